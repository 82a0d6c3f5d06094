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

// The OTLP/JSON trace serializer alone, from otlp-transformer's ESM build, for the span-file exporter:
// ≈ 20 KiB that load in ≈ 3 ms, where the whole package (protobuf, metrics, logs) takes ≈ 100 ms.
const serializer = await build({
  stdin: { contents: "export { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';", resolveDir: new URL('..', import.meta.url).pathname, loader: 'js' },
  outfile: new URL('../dist/otlp-json.bundle.js', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  mainFields: ['module', 'main'],
  logLevel: 'warning',
  legalComments: 'none',
  metafile: true,
});

for (const r of [result, serializer]) {
  for (const [file, out] of Object.entries(r.metafile.outputs)) console.log(`${file}: ${(out.bytes / 1024).toFixed(0)} KiB`);
}
