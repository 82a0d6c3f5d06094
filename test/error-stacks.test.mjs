// What Node.js prints for an app's error keeps the app's frames: tracehook's patches add at most their own one frame
// (issue 29, item 14d: the SERVER span's context used to add four, AsyncLocalStorage's and OpenTelemetry's `with`).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, run, spansDir } from './helpers/fixture.mjs';

const OURS = join(ROOT, 'dist');

test('an unhandled rejection in a request listener: the stack printed untraced, plus the one frame of the patched Server#emit', async (t) => {
  const env = { TRACEHOOK_SPANS_DIR: spansDir(t) };
  const [plain, traced] = await Promise.all([
    run('unhandled-rejection-server.cjs', { preload: [] }),
    run('unhandled-rejection-server.cjs', { env }),
  ]);
  assert.equal(plain.code, 1);
  assert.match(plain.stderr, /Error: boom\n {4}at /);
  assert.equal(traced.code, plain.code);
  const lines = traced.stderr.split('\n');
  const ours = lines.filter((l) => l.includes(OURS));
  assert.deepEqual(ours.map((l) => l.replace(/ \(.*/, '')), ['    at Server.emit'], traced.stderr);
  assert.equal(lines.filter((l) => !l.includes(OURS)).join('\n'), plain.stderr);
});
