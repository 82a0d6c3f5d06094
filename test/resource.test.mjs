// The resource of every span: OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES (percent-encoded values),
// and what the default hook adds (process pid and parent pid, thread id).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSpans, run, spansDir, start } from './helpers/fixture.mjs';

test('OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (percent-decoded) are on every span; OTEL_SERVICE_NAME wins over a service.name among the attributes', async (t) => {
  const dir = spansDir(t);
  const env = { TRACEHOOK_SPANS_DIR: dir, OTEL_SERVICE_NAME: 'checkout', OTEL_RESOURCE_ATTRIBUTES: 'service.name=other,deployment.environment.name=prod,team=a%20b%2Cc' };
  const app = start('exit-app.mjs', { args: ['normal', '3'], env });
  const { code, stderr } = await app.done;
  assert.equal(code, 0);
  assert.equal(stderr, '');
  const spans = await readSpans(dir);
  assert.equal(spans.length, 3);
  for (const { resource } of spans) {
    assert.equal(resource['service.name'], 'checkout');
    assert.equal(resource['deployment.environment.name'], 'prod');
    assert.equal(resource.team, 'a b,c');
    assert.equal(resource['process.pid'], app.child.pid);
    assert.equal(resource['process.parent_pid'], process.pid, 'the test started it');
    assert.equal(resource['thread.id'], 0);
  }
});

test('with neither variable the service is unknown_service:node', async (t) => {
  const dir = spansDir(t);
  await run('exit-app.mjs', { args: ['normal', '1'], env: { TRACEHOOK_SPANS_DIR: dir } });
  const [span] = await readSpans(dir);
  assert.equal(span.resource['service.name'], 'unknown_service:node');
});
