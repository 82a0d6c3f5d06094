// Bundles the preload (dist/preload/start.js and everything it loads at startup) into one file,
// dist/preload.bundle.js: one parse instead of ≈ 300 module resolutions and reads, the largest part
// of the preload's startup cost. The CommonJS builds are bundled as they are: mixing in the ESM
// builds (for tree shaking) was measured larger and slower to load, as the lazily required
// instrumentations pull the CommonJS builds in anyway.
// Left out, and required from node_modules when used: import-in-the-middle (its message channel
// must be the one register.mjs created), the OTLP exporters and otlp-transformer (their parts that the
// direct OTLP/HTTP exporter uses are bundled apart, below), and instrumentations named by
// OTEL_NODE_ENABLED_INSTRUMENTATIONS.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import { stampBundleId } from './bundle-id.mjs';
import { LINE_LIMIT } from './bundle-line-limit.mjs';
import { PRELOAD_WRAPPER } from '../dist/preload/bundle-wrapper.js';
import { semconvSubset } from './semconv-subset.mjs';
import { sharedModulesPlugin } from './shared-modules-plugin.mjs';
import { SOURCE_EDITS, sourceEditPlugin } from './source-edits.mjs';

const root = new URL('..', import.meta.url).pathname;
const { SHARED_MODULES_KEY } = createRequire(import.meta.url)(join(root, 'dist/instrumentations/shared-modules.js'));

const options = {
  entryPoints: [join(root, 'dist/preload/start.js')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // The CommonJS builds throughout, @opentelemetry/api's too: its ESM build ("module" condition, which esbuild
  // picks by default) turned each of ≈ 65 require() sites into a copy of its ≈ 50 exports at startup.
  conditions: [],
  mainFields: ['main'],
  external: ['import-in-the-middle', '@opentelemetry/otlp-transformer', '@opentelemetry/exporter-trace-otlp-*', '@opentelemetry/auto-instrumentations-node'],
  logLevel: 'warning',
  legalComments: 'none',
  lineLimit: LINE_LIMIT,
};

const { plugin: semconvPlugin, names } = await semconvSubset(options, root);

// Packages replaced by a stand-in from scripts/bundle-stubs/ that loads the real one (left external) only
// when it is needed: `debug` when DEBUG is set, import-in-the-middle when its loader hook may be registered.
const stub = (name) => {
  const path = join(root, `scripts/bundle-stubs/${name}.cjs`);
  return {
    name: `lazy-${name}`,
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${name}$`) }, (args) => (args.importer === path ? { path: name, external: true } : { path }));
    },
  };
};

// The build-time edits of five dependencies (scripts/source-edits.mjs; each one's meaning is tested in
// test/unit/source-edits.test.mjs and proposed upstream in docs/upstream.md).
const [lazyCrypto, lazyPerformance, packageVersionOnce, mainResolvedOnce, simpleRanges] = SOURCE_EDITS.map(sourceEditPlugin);

// Whitespace and comments removed (names kept): a third less to read and hash at every start. The external
// source map (never referenced from the bundle, so never loaded by Node.js) lets bench/profile.mjs name the module
// of a profiled function.
// Written already wrapped as a CommonJS module function (src/preload/load-bundle.ts compiles it as it is): Module.wrap()
// of the read text made a second, flattened copy of its ≈ 0.5 MiB at every start, in every process and worker thread
// (bench: startup, a worker's heap at its first message).
const preload = await build({
  ...options,
  banner: { js: PRELOAD_WRAPPER[0] },
  footer: { js: PRELOAD_WRAPPER[1] },
  minifyWhitespace: true,
  sourcemap: 'external',
  sourcesContent: false,
  outfile: join(root, 'dist/preload.bundle.js'),
  metafile: true,
  plugins: [semconvPlugin, stub('debug'), stub('import-in-the-middle'), lazyCrypto, lazyPerformance, packageVersionOnce, mainResolvedOnce, simpleRanges],
});

// Made ASCII and given an id of its content, which names its V8 code caches.
stampBundleId(join(root, 'dist/preload.bundle.js'));

// The OTLP/JSON trace serializer alone, from otlp-transformer's ESM build, for the span-file exporter:
// ≈ 20 KiB that load in ≈ 3 ms, where the whole package (protobuf, metrics, logs) takes ≈ 100 ms.
const serializer = await build({
  stdin: {
    // The request builder and its JSON encoder are otlp-transformer's own (what JsonTraceSerializer
    // runs), taken directly so the exporter can stringify once, without TextEncoder and a copy.
    contents: [
      "export { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';",
      "export { createExportTraceServiceRequest } from '@opentelemetry/otlp-transformer/build/esm/trace/internal.js';",
      "export { JSON_ENCODER } from '@opentelemetry/otlp-transformer/build/esm/common/utils.js';",
    ].join('\n'),
    resolveDir: root,
    loader: 'js',
  },
  outfile: join(root, 'dist/otlp-json.bundle.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  mainFields: ['module', 'main'],
  logLevel: 'warning',
  legalComments: 'none',
  metafile: true,
});

// The OTLP/HTTP export path for the direct encoders (src/exporters/direct-otlp-http-exporter.ts), loaded when an
// OTLP/HTTP exporter is configured: otlp-exporter-base's HTTP export delegate (endpoint, headers, TLS, compression,
// retries) and, of otlp-transformer, only the trace response parsers and the exporter-metrics helper. Required from
// the packages, the same parts cost ≈ 120 ms (otlp-transformer's index brings metrics, logs and sdk-metrics along);
// @opentelemetry/api and core stay external, so they are the preload bundle's shared copies.
const { entryPoints, external, ...withoutEntry } = options;
const otlpHttp = await build({
  stdin: {
    contents: [
      "exports.OTLPExporterBase = require('@opentelemetry/otlp-exporter-base').OTLPExporterBase;",
      "const http = require('@opentelemetry/otlp-exporter-base/node-http');",
      'exports.convertLegacyHttpOptions = http.convertLegacyHttpOptions;',
      'exports.createOtlpHttpExportDelegate = http.createOtlpHttpExportDelegate;',
      "exports.JsonTraceSerializer = require('@opentelemetry/otlp-transformer/build/src/trace/json/trace.js').JsonTraceSerializer;",
      // What ProtobufTraceSerializer.deserializeResponse calls, without the serializer it sits beside.
      "exports.deserializeExportTraceServiceResponse = require('@opentelemetry/otlp-transformer/build/src/trace/protobuf/response-deserializer.js').deserializeExportTraceServiceResponse;",
      "exports.TraceExporterMetricsHelper = require('@opentelemetry/otlp-transformer/build/src/trace/index.js').TraceExporterMetricsHelper;",
    ].join('\n'),
    resolveDir: root,
    loader: 'js',
  },
  ...withoutEntry,
  outfile: join(root, 'dist/otlp-http.bundle.js'),
  external: [],
  plugins: [sharedModulesPlugin(['@opentelemetry/api', '@opentelemetry/core'], SHARED_MODULES_KEY)],
  minifyWhitespace: true,
  charset: 'ascii',
  metafile: true,
});

for (const r of [preload, serializer, otlpHttp]) {
  for (const [file, out] of Object.entries(r.metafile.outputs)) console.log(`${file}: ${(out.bytes / 1024).toFixed(0)} KiB`);
}
console.log(names ? `semantic-conventions: ${names.length} constants kept` : 'semantic-conventions: bundled whole (unrecognised use)');

// The loader that register.mjs and register.cjs require first (src/preload/load-bundle.ts), with the small files it
// imports (the preload state, its versioned key, the Module internals' accessor) inlined in place: a start reads one
// file for them, not four. Their state lives on globalThis under versioned keys, so this copy and dist/'s share it.
await build({ ...options, entryPoints: [join(root, 'dist/preload/load-bundle.js')], outfile: join(root, 'dist/preload/load-bundle.js'), allowOverwrite: true });
