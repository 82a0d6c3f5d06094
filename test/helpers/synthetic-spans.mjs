// Span files made up line by line for the trace page tests: traces of a chosen shape, size and
// timing that no fixture app could produce quickly, in the span file format (OTLP/JSON per line).
import { execFile, spawn } from 'node:child_process';
import { ROOT } from './fixture.mjs';

/** Runs `bin/tracehook.mjs args…` and resolves with its exit code, stdout and stderr. */
export function cli(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/tracehook.mjs', ...args], { cwd: ROOT, timeout: 60_000, maxBuffer: 1 << 26 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, stdout, stderr });
    });
  });
}

/** An OTLP/JSON attribute list from a plain object (strings, integers, booleans). */
export function attrs(obj) {
  return Object.entries(obj).map(([key, v]) => ({
    key,
    value: typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : { intValue: v },
  }));
}

/** One span file line (OTLP/JSON) with `spans` in one resource; `resource` adds to service.name and process.pid 7. */
export function line(service, spans, resource = {}) {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: attrs({ 'service.name': service, 'process.pid': 7, ...resource }) },
        scopeSpans: [{ scope: { name: 'synthetic' }, spans }],
      },
    ],
  });
}

/** The epoch of synthetic traces: 2023-11-14T22:13:20Z, in ns. */
export const T0 = 1_700_000_000_000_000_000n;

/** A span id from a small integer: 16 hex chars. */
export const spanId = (i) => (i + 1).toString(16).padStart(16, '0');

/**
 * Span `i` of `traceId` (named `step i` unless `extra.name`), child of span `parent` (undefined: a root),
 * starting `startUs` µs after {@link T0} and lasting `durUs` µs. `extra`: more OTLP span fields.
 */
export function span(traceId, i, parent, startUs, durUs, extra = {}) {
  return {
    traceId,
    spanId: spanId(i),
    ...(parent === undefined ? {} : { parentSpanId: spanId(parent) }),
    name: `step ${i}`,
    kind: 1,
    startTimeUnixNano: String(T0 + BigInt(startUs) * 1000n),
    endTimeUnixNano: String(T0 + BigInt(startUs + durUs) * 1000n),
    attributes: [{ key: 'i', value: { intValue: i } }],
    ...extra,
  };
}

/** Starts `tracehook ui dir --port 0`, killed when the test ends. @returns the server process and the page's URL */
export async function startUi(t, dir) {
  const server = spawn(process.execPath, ['bin/tracehook.mjs', 'ui', dir, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => server.kill('SIGKILL'));
  let out = '';
  server.stdout.setEncoding('utf8');
  const url = await new Promise((resolve, reject) => {
    server.stdout.on('data', (d) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/) /.exec(out);
      if (m) resolve(m[1]);
    });
    server.on('exit', (code) => reject(new Error(`ui exited ${code}: ${out}`)));
  });
  return { server, url };
}

/**
 * A trace of 10,000 spans starting `startUs` after {@link T0}: a 1 s root with 99 children of 100
 * children each, each level's spans one after the other.
 */
export function bigTrace(traceId, startUs = 0) {
  const spans = [span(traceId, 0, undefined, startUs, 1_000_000)];
  for (let c = 0; c < 99; c++) {
    const child = spans.length;
    spans.push(span(traceId, child, 0, startUs + c * 10_000, 9_000));
    for (let g = 0; g < 100; g++) spans.push(span(traceId, spans.length, child, startUs + c * 10_000 + g * 90, 80));
  }
  return spans;
}
