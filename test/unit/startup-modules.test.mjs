// What a start evaluates (issue 30: a process or worker thread loads only what it needs until first use). The
// preload bundle keeps the module graph of dist/ (esbuild evaluates a bundled module at its first require()), so
// the graph is checked on dist/'s own files: a start with span files evaluates no OTLP exporter or encoder and does
// not read package.json; with OTLP it does load the exporter (control).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The files of the package (relative, `dist/…`, `package.json`) that a start of dist/preload/start.js loaded. */
function filesLoadedByStart(t, env) {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-modules-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const code = `
    require(${JSON.stringify(join(root, 'dist/preload/start.js'))}).start();
    const root = ${JSON.stringify(root)};
    console.log(JSON.stringify(Object.keys(require.cache).filter((f) => f.startsWith(root) && !f.includes('node_modules')).map((f) => f.slice(root.length))));
  `;
  const r = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8', env: { PATH: process.env.PATH, TRACEHOOK_SPANS_DIR: dir, ...env } });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  return JSON.parse(r.stdout);
}

const OTLP_FILES = ['dist/exporters/otlp-span-exporter.js', 'dist/exporters/direct-otlp-http-exporter.js', 'dist/encoding/otlp-protobuf.js'];

test('a start writing span files evaluates no OTLP exporter or encoder and reads no package.json', (t) => {
  const loaded = filesLoadedByStart(t, {});
  assert.ok(loaded.includes('dist/exporters/file-span-exporter.js'), `control: the span-file exporter (${loaded})`);
  assert.deepEqual(
    [...OTLP_FILES, 'package.json'].filter((f) => loaded.includes(f)),
    [],
  );
});

test('a start exporting OTLP loads the OTLP exporter', (t) => {
  const loaded = filesLoadedByStart(t, { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
  assert.ok(loaded.includes('dist/exporters/otlp-span-exporter.js'), String(loaded));
});
