// What is kept of a request: sensitive query values redacted (url.query and the client's url.full),
// URL credentials redacted, request-derived values bounded, server.port only when valid,
// x-request-id only when short and visible ASCII. Both HTTP server instrumentations.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { readSpans, spansDir, start } from './helpers/fixture.mjs';

/** GET with raw control of the path and headers (fetch would normalise both). */
function request(port, path, headers = {}) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (d) => (body += d))
          .on('end', () => resolve({ status: res.statusCode, body }));
      })
      .on('error', reject);
  });
}

async function run(t, mode, env, fn) {
  const dir = spansDir(t);
  const app = start('request-data-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_HTTP_INSTRUMENTATION: mode, ...env } });
  t.after(() => app.kill('SIGKILL'));
  const [, port] = await app.ready();
  await fn(port);
  app.kill('SIGTERM');
  const { stderr } = await app.done;
  assert.equal(stderr, '', 'no diagnostics');
  return readSpans(dir);
}

const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);
const SECRETS = ['s1gvalue', 'amzsig', 'amzcred', 'goog', 'awskey', 'cfsig', 'tok3n', 'pa55', 'k3y', 'acc3ss', 'c0de', 'sess1on', 'encsig', 'upperS1g'];
const QUERY =
  'q=open&sig=s1gvalue&X-Amz-Signature=amzsig&X-Amz-Credential=amzcred&X-Goog-Signature=goog&AWSAccessKeyId=awskey' +
  '&Signature=cfsig&token=tok3n&password=pa55&api_key=k3y&access_token=acc3ss&code=c0de&session=sess1on&%73ig=encsig&Sig=upperS1g&keep=1';

/** A listed name as apps and frameworks spell it; `%54oken` is `Token` percent-encoded. */
const SPELLINGS = ['Token', 'TOKEN', 'x-amz-signature', 'token[]', 'token[0]', 'api-key', 'apiKey', 'jwt', 'user[password]', 'Access-Key', 'Private-Token', '%54oken'];
const SPELLED = `${SPELLINGS.map((name, i) => `${name}=sp3lled${i}`).join('&')}&keep=1&tokens=kept`;

for (const mode of ['fast', 'stock']) {
  test(`${mode}: sensitive query values are REDACTED in url.query and the client's url.full; URL credentials too`, async (t) => {
    let port;
    const spans = await run(t, mode, { TRACEHOOK_REDACT_QUERY_PARAMS: 'session, other' }, async (p) => {
      port = p;
      assert.equal((await request(p, `/?${QUERY}`)).body, 'ok');
      const target = encodeURIComponent(`http://user:hunter2@127.0.0.1:${p}/?sig=s1gvalue&token=tok3n&keep=1`);
      assert.equal((await request(p, `/call?url=${target}`)).body, '200');
    });
    // The /call SERVER span's url.query holds the target URL as one (encoded) value: not parsed further.
    const kept = spans.filter((s) => !(s.kind === 'SERVER' && s.attributes['url.path'] === '/call'));
    // Without the ids: random hex, which may hold `c0de` by chance (≈ 1 run in 200).
    const text = JSON.stringify(kept, (k, v) => (ID_FIELDS.has(k) ? undefined : typeof v === 'bigint' ? String(v) : v));
    for (const secret of [...SECRETS, 'hunter2']) assert.ok(!text.includes(secret), `${secret} kept nowhere`);
    const server = spans.find((s) => s.kind === 'SERVER' && s.attributes['url.path'] === '/' && s.attributes['url.query'].startsWith('q=open'));
    const query = server.attributes['url.query'];
    for (const name of ['sig', 'X-Amz-Signature', 'X-Amz-Credential', 'X-Goog-Signature', 'AWSAccessKeyId', 'Signature', 'token', 'password', 'api_key', 'access_token', 'code', 'session']) {
      assert.ok(query.includes(`${name}=REDACTED`), `${name}=REDACTED in ${query}`);
    }
    assert.ok(query.includes('Sig=REDACTED') && query.includes('keep=1'), 'other parameters kept (names matched in any case)');
    if (mode === 'fast') assert.equal(query, QUERY.replace(/=(s1gvalue|amzsig|amzcred|goog|awskey|cfsig|tok3n|pa55|k3y|acc3ss|c0de|sess1on|encsig|upperS1g)/g, '=REDACTED'), 'everything else as sent');
    const client = spans.find((s) => s.kind === 'CLIENT');
    assert.equal(client.attributes['url.full'], `http://REDACTED:REDACTED@127.0.0.1:${port}/?sig=REDACTED&token=REDACTED&keep=1`);
  });

  // Issue 29 item 5: the names were matched as spelled in the list, so these kept their values.
  test(`${mode}: every spelling of a listed name (Token, TOKEN, x-amz-signature, token[], api-key, apiKey, jwt, user[password]) is REDACTED in the SERVER url.query and the node:http CLIENT url.full`, async (t) => {
    let port;
    const spans = await run(t, mode, {}, async (p) => {
      port = p;
      const target = `http://127.0.0.1:${p}/?${SPELLED}`;
      assert.equal((await request(p, `/call?url=${encodeURIComponent(target)}`)).body, '200');
    });
    const server = spans.find((s) => s.kind === 'SERVER' && s.attributes['url.path'] === '/');
    assert.equal(server.attributes['url.query'], SPELLED.replace(/=sp3lled\d+/g, '=REDACTED'));
    const full = spans.find((s) => s.kind === 'CLIENT').attributes['url.full'];
    assert.ok(full.startsWith(`http://127.0.0.1:${port}/?`), full);
    assert.doesNotMatch(full, /sp3lled/);
    assert.equal(full.match(/=REDACTED/g).length, SPELLINGS.length, full);
    assert.match(full, /&keep=1&tokens=kept$/, 'other names kept, a listed name inside another is not matched');
  });

  test(`${mode}: request-derived values are bounded (2048 by default, OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT and OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT honoured)`, async (t) => {
    const long = (c, n) => c.repeat(n);
    for (const [env, limit] of [
      [{}, 2048],
      [{ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '100' }, 100],
      [{ OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '90' }, 90],
    ]) {
      const spans = await run(t, mode, env, async (p) => {
        // 12 KB in all: Node's default header limit is 16 KiB.
        await request(p, `/${long('p', 3000)}?q=${long('v', 3000)}`, { 'user-agent': long('u', 3000), host: `${long('h', 3000)}:80` });
      });
      const [server] = spans.filter((s) => s.kind === 'SERVER');
      for (const key of ['url.path', 'url.query', 'user_agent.original', 'server.address']) {
        const value = server.attributes[key];
        assert.equal(typeof value, 'string', key);
        assert.equal(value.length, limit, `${key} cut to ${limit}`);
      }
    }
  });

  test(`${mode}: server.port only when 0-65535 in digits; x-request-id only when <= 128 visible ASCII`, async (t) => {
    const cases = [
      ['a:99999999999999999999', 'a', undefined],
      ['a:65536', 'a', undefined],
      ['a:-1', 'a', undefined],
      ['a:0x50', 'a', undefined],
      ['a:8080', 'a', 8080],
      ['[::1]:443', '::1', 443],
    ];
    const ids = [
      ['id-ok_123', 'id-ok_123'],
      ['x'.repeat(128), 'x'.repeat(128)],
      ['x'.repeat(129), undefined],
      ['x'.repeat(15 * 1024), undefined],
      ['has space', undefined],
      ['caf\xe9', undefined],
    ];
    const spans = await run(t, mode, {}, async (p) => {
      for (const [host] of cases) await request(p, `/?host=${encodeURIComponent(host)}`, { host });
      for (const [id] of ids) await request(p, `/?id=${ids.findIndex(([i]) => i === id)}`, { 'x-request-id': id });
    });
    const servers = spans.filter((s) => s.kind === 'SERVER');
    for (const [host, address, port] of cases) {
      const s = servers.find((x) => x.attributes['url.query'] === `host=${encodeURIComponent(host)}`);
      assert.equal(s.attributes['server.address'], address, host);
      assert.equal(s.attributes['server.port'], port, host);
    }
    ids.forEach(([, expected], i) => {
      const s = servers.find((x) => x.attributes['url.query'] === `id=${i}`);
      // Only the fast instrumentation takes a request id from the header.
      assert.equal(s.attributes['tracehook.request.id'], mode === 'fast' ? expected : undefined, `request id case ${i}`);
    });
  });
}
