// The tracing startup hook contract (Ray's module:attribute): named by TRACEHOOK_STARTUP_HOOK or by
// `tracehook run --tracing-startup-hook`, it runs exactly once per process.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, get, readSpans, spansDir, start } from './helpers/fixture.mjs';

const HOOK = './test/fixtures/hooks/count-hook.mjs:tracing.setup';

async function serveOnce(t, opts) {
  const dir = spansDir(t);
  const log = join(dir, 'hook.log');
  const app = start('http-app.mjs', { ...opts, env: { TRACEHOOK_SPANS_DIR: dir, FIXTURE_HOOK_LOG: log, ...opts.env } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  assert.equal((await get(port)).body, 'ok');
  app.kill();
  const result = await app.done;
  return { log: readFileSync(log, 'utf8').trim().split('\n'), spans: await readSpans(dir), pid: app.child.pid, result };
}

test('a hook named by TRACEHOOK_STARTUP_HOOK runs once, even when the preload is given twice', async (t) => {
  const { log, spans, pid } = await serveOnce(t, {
    env: { TRACEHOOK_STARTUP_HOOK: HOOK },
    preload: ['--import', '@tracehook/register', '--import', '@tracehook/register', '--require', '@tracehook/register'],
  });
  assert.deepEqual(log, [`${pid} 0`]);
  assert.equal(spans.filter((s) => s.kind === 'SERVER').length, 1);
});

test('a hook named by `tracehook run --tracing-startup-hook` runs once in the app process', async (t) => {
  const { log, spans, result } = await serveOnce(t, {
    command: [join(ROOT, 'bin', 'tracehook.mjs'), 'run', `--tracing-startup-hook=${HOOK}`, 'test/fixtures/http-app.mjs'],
  });
  assert.equal(log.length, 1);
  const [pid, thread] = log[0].split(' ');
  assert.equal(thread, '0');
  const server = spans.find((s) => s.kind === 'SERVER');
  assert.equal(server.resource['process.pid'], Number(pid));
  // The CLI passes the app's end through: killed by SIGTERM with no handler of its own.
  assert.equal(result.signal, 'SIGTERM');
});

test('built-in hooks by short name: console prints spans to stdout', async () => {
  const app = start('exit-app.mjs', { args: ['normal', '2'], env: { TRACEHOOK_STARTUP_HOOK: 'console' } });
  const { code, stdout } = await app.done;
  assert.equal(code, 0);
  assert.match(stdout, /name: 'work-0'/);
  assert.match(stdout, /name: 'work-1'/);
});
