// Bundles the preload (dist/preload/start.js and everything it loads at startup) into one file,
// dist/preload.bundle.js: one parse instead of ≈ 300 module resolutions and reads, the largest part
// of the preload's startup cost. The CommonJS builds are bundled as they are: mixing in the ESM
// builds (for tree shaking) was measured larger and slower to load, as the lazily required
// instrumentations pull the CommonJS builds in anyway.
// Left out, and required from node_modules when used: import-in-the-middle (its message channel
// must be the one register.mjs created), the OTLP exporters and otlp-transformer (needed only at the
// first export), and instrumentations named by OTEL_NODE_ENABLED_INSTRUMENTATIONS.
import { build } from 'esbuild';

const result = await build({
  entryPoints: [new URL('../dist/preload/start.js', import.meta.url).pathname],
  outfile: new URL('../dist/preload.bundle.js', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: [
    'import-in-the-middle',
    '@opentelemetry/otlp-transformer',
    '@opentelemetry/exporter-trace-otlp-*',
    '@opentelemetry/auto-instrumentations-node',
  ],
  logLevel: 'warning',
  legalComments: 'none',
  metafile: true,
});
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
console.log(`dist/preload.bundle.js: ${(bytes / 1024).toFixed(0)} KiB`);
