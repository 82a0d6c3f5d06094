// `npm run demo` end to end: three services and a client,
// each a real child process under `node --import @tracehook/register`, traced into span files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function runDemo() {
  return new Promise((resolve) => {
    // The demo ends itself within ~25 s; the timeout here only guards against a broken watchdog.
    execFile(process.execPath, ['examples/demo.mjs'], { cwd: ROOT, timeout: 45_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (err.code ?? 1) : 0, signal: err?.signal, stdout, stderr });
    });
  });
}

test('npm run demo prints a trace that crosses the front, the gRPC service and the downstream service', async (t) => {
  const { code, signal, stdout, stderr } = await runDemo();
  const spansDir = /^span files: (.+)$/m.exec(stdout)?.[1];
  if (spansDir) t.after(() => rmSync(spansDir, { recursive: true, force: true }));
  const context = `\n--- stdout\n${stdout}\n--- stderr\n${stderr}`;

  assert.equal(signal ?? null, null, `demo killed by ${signal}${context}`);
  assert.equal(code, 0, `demo exit code${context}`);
  assert.match(
    stdout,
    /^check OK: trace [0-9a-f]{32} crosses 4 processes with correct parent links: client\[\d+\] → front\[\d+\], front\[\d+\] → (grpc-service|downstream)\[\d+\], front\[\d+\] → (grpc-service|downstream)\[\d+\]$/m,
    context,
  );
  assert.match(stdout, /^check OK: 3 of 3 upstream traceparents continued/m, context);
  // Stopped by SIGTERM and exited by it (after the flush), none had to be killed.
  assert.match(stdout, /^stopped with SIGTERM: front \(signal SIGTERM\), grpc-service \(signal SIGTERM\), downstream \(signal SIGTERM\)$/m, context);
  // The trees themselves: a gRPC server span under the front's gRPC client span.
  assert.match(stdout, /[├└]─ grpc\.demo\.Pricing\/GetQuote +CLIENT .* front\[\d+\] .*\n.*[│ ] {2}└─ grpc\.demo\.Pricing\/GetQuote +SERVER .* grpc-service\[\d+\]/, context);
  assert.doesNotMatch(stdout, /^check FAIL/m, context);
  // It ends with how to open the traces in the browser, and the page exists.
  const ui = new RegExp(`\\nin the browser: npx tracehook ui ${spansDir} .*\\nor open the file: (file://\\S+/traces\\.html)\\n$`).exec(stdout);
  assert.ok(ui, context);
  assert.match(readFileSync(new URL(ui[1]), 'utf8'), /^<!doctype html>/);
});
