// The longest line of a bundle, in characters (esbuild's `lineLimit`), for scripts/bundle.mjs and
// scripts/bundle-instrumentations.mjs. Node.js prints the whole source line of a throw that reaches the top,
// and minified whitespace alone put the preload bundle on 6 lines of up to 170 KB: an app error rethrown by an
// instrumentation printed 146 KB of them on stderr.
export const LINE_LIMIT = 200;
