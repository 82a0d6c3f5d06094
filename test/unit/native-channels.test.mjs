// The version gate between channel- and patch-based tracing (src/instrumentations/channels/native-channels.ts):
// ioredis from 5.11 and mysql2 from 3.20 publish TracingChannels; the patch-based instrumentations keep the releases
// before those, and only those, whichever copy of the library loads first.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileHasChannels, narrowToUnchanneled, publishesChannels } from '../../dist/instrumentations/channels/native-channels.js';

const require = createRequire(import.meta.url);
// The semver the instrumentations' own version check uses.
const semver = createRequire(require.resolve('@opentelemetry/instrumentation'))('semver');

test('releases with channels: ioredis from 5.11.0, mysql2 from 3.20.0; none for other names or undecidable versions', () => {
  assert.deepEqual(
    ['5.10.9', '5.11.0', '6.0.0'].map((v) => publishesChannels('ioredis', v)),
    [false, true, true],
  );
  assert.deepEqual(
    ['3.19.9', '3.20.0', '3.24.5'].map((v) => publishesChannels('mysql2', v)),
    [false, true, true],
  );
  assert.equal(publishesChannels('pg', '9.0.0'), false);
  assert.equal(publishesChannels('ioredis', '6.0.0-beta.1'), false);
  assert.equal(publishesChannels('ioredis', undefined), false);
});

for (const [name, pkg, older, newer] of [
  ['ioredis', '@opentelemetry/instrumentation-ioredis', ['2.0.0', '4.28.5', '5.10.1'], ['5.11.0', '6.0.0']],
  ['mysql2', '@opentelemetry/instrumentation-mysql2', ['1.4.2', '3.11.5', '3.19.1'], ['3.20.0', '3.24.5']],
]) {
  test(`${pkg}, narrowed: it patches ${older.join(', ')} and not ${newer.join(', ')}, in each of its module definitions`, () => {
    const Class = Object.values(require(pkg)).find((v) => typeof v === 'function' && v.name.endsWith('Instrumentation'));
    const instrumentation = new Class({ enabled: false });
    narrowToUnchanneled(name, instrumentation);
    // `_modules`: the definitions its require hook checks versions against (getModuleDefinitions() makes new ones).
    const ranges = instrumentation._modules.flatMap((d) => [d.supportedVersions, ...d.files.map((f) => f.supportedVersions)]);
    assert.ok(ranges.length > 0);
    for (const supported of ranges) {
      for (const v of older)
        assert.ok(
          supported.some((r) => semver.satisfies(v, r)),
          `${v} in ${supported}`,
        );
      for (const v of newer) assert.ok(!supported.some((r) => semver.satisfies(v, r)), `${v} not in ${supported}`);
    }
  });
}

test("a loaded file's package folder decides, by its package.json version; unreadable means patched", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-native-channels-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [app, version] of [
    ['old', '5.10.0'],
    ['new', '5.11.0'],
  ]) {
    mkdirSync(join(dir, app, 'node_modules', 'ioredis', 'built'), { recursive: true });
    writeFileSync(join(dir, app, 'node_modules', 'ioredis', 'package.json'), JSON.stringify({ name: 'ioredis', version }));
  }
  const file = (app) => join(dir, app, 'node_modules', 'ioredis', 'built', 'Redis.js');
  assert.equal(fileHasChannels('ioredis', 'ioredis', file('old')), false);
  assert.equal(fileHasChannels('ioredis', 'ioredis', file('new')), true);
  assert.equal(fileHasChannels('ioredis', 'ioredis', join(dir, 'none', 'node_modules', 'ioredis', 'built', 'Redis.js')), false);
  assert.equal(fileHasChannels('pg', 'pg', file('new')), false);
});

test("ioredis's db.query.text: redis-common's table over the arguments ioredis redacted; ACL and CONFIG keep only the subcommand", async () => {
  const { redisQueryText } = await import('../../dist/instrumentations/channels/ioredis-channels.js');
  assert.equal(redisQueryText('set', ['k', '?']), 'set k [1 other arguments]');
  assert.equal(redisQueryText('get', ['k']), 'get k');
  assert.equal(redisQueryText('hset', ['h', 'f', '?']), 'hset h f [1 other arguments]');
  // ioredis keeps all of these; the password must not reach the span.
  assert.equal(redisQueryText('config', ['SET', 'requirepass', 'SECRET']), 'config SET [2 other arguments]');
  assert.equal(redisQueryText('acl', ['SETUSER', 'alice', 'on', '>SECRET']), 'acl SETUSER [3 other arguments]');
  assert.equal(redisQueryText('auth', ['?']), 'auth [1 other arguments]');
  assert.equal(redisQueryText('ping', []), 'ping');
});

test('mysql2 query text with values formatted in: literals and the keywords values become are masked; without values, keywords stay', async () => {
  const { mysql2QueryText } = await import('../../dist/instrumentations/channels/mysql2-channels.js');
  assert.equal(mysql2QueryText("SELECT 'a\\'b' AS s, 42 AS n, true AS t, NULL AS z FROM `null` WHERE x IN (1, 2)", [1]), 'SELECT ? AS s, ? AS n, ? AS t, ? AS z FROM `null` WHERE x IN (?, ?)');
  assert.equal(mysql2QueryText('SELECT * FROM t WHERE d IS NULL AND f = false', []), 'SELECT * FROM t WHERE d IS NULL AND f = false');
  assert.equal(mysql2QueryText('SELECT * FROM t WHERE d IS NULL', undefined), 'SELECT * FROM t WHERE d IS NULL');
});
