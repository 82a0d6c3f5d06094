// The traced system of test/fixtures/view/app.mjs, run once under the preload into a fresh span
// directory: three requests that cross a worker thread and a forked child process (service
// `stock`) and share one batch span, and one request that fails.
import assert from 'node:assert/strict';
import { run, spansDir } from './fixture.mjs';

/** @returns the span directory (removed when the test ends) */
export async function runViewFixture(t) {
  const dir = spansDir(t);
  const result = await run('view/app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, OTEL_SERVICE_NAME: 'shop' }, timeoutMs: 30_000 });
  assert.equal(result.code, 0, `fixture failed\n${result.stdout}\n${result.stderr}`);
  assert.match(result.stdout, /^done$/m);
  return dir;
}
