// Every API call is a harmless no-op or pass-through without the preload: run in a child process
// where nothing is registered, so the global OpenTelemetry state is really empty.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

test('every API call works as a no-op or pass-through when nothing is registered', async () => {
  const cwd = new URL('..', import.meta.url).pathname;
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['test/fixtures/api-no-preload.mjs'], { cwd, env });
  assert.equal(stderr, '', 'nothing logged');
  assert.equal(stdout, 'ok\n');
});
