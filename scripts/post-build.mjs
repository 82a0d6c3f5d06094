// dist/ is CommonJS so the `--require` entry and the `--import` entry share one module instance
// (no dual-package state); tsc does not copy package.json, so mark the folder here.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
copyFileSync(new URL('../src/package.json', import.meta.url), new URL('../dist/package.json', import.meta.url));
// The trace page's HTML, CSS and browser script, read by dist/cli/ui/page.js (from page.ts).
for (const name of ['page-template.html', 'page-style.css', 'page-script.js']) {
  copyFileSync(new URL(`../src/cli/ui/${name}`, import.meta.url), new URL(`../dist/cli/ui/${name}`, import.meta.url));
}
// The package's version into dist/state-key.js (src/state-key.ts), before the bundles are made from dist/: the
// versioned globalThis keys of every copy of this build.
const stateKeyFile = new URL('../dist/state-key.js', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const stateKeyText = readFileSync(stateKeyFile, 'utf8');
if (!stateKeyText.includes("'0.0.0-unbuilt'")) throw new Error("dist/state-key.js: no '0.0.0-unbuilt' to replace with the package version; update scripts/post-build.mjs");
writeFileSync(stateKeyFile, stateKeyText.replace("'0.0.0-unbuilt'", JSON.stringify(version)));
