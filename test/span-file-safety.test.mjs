// Span files on a shared machine: private modes, no symlink followed, another user's directory
// refused (with the fallback directory for the default one), rotation and deletion survived, and a
// full disk: no cut line, exact loss counts, writing resumes when space returns.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { burst } from './helpers/burst.mjs';
import { FIXTURES, get, run, spansDir, start } from './helpers/fixture.mjs';
import { runInPrivateTmp } from './helpers/private-tmp.mjs';
import { lossLine, mode, spanFiles, strictSpans, waitForStats } from './helpers/span-file-checks.mjs';

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const canUnshare = isRoot && spawnSync('unshare', ['--mount', '--propagation', 'private', 'true']).status === 0;
const canMount = isRoot && spawnSync('sh', ['-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs "$d" && umount "$d" && rmdir "$d"']).status === 0;
const NOT_ROOT = 'needs root: a second uid (nobody) plants the directory and symlinks';

test('a new spans directory is created 0700 and the span file 0600', async (t) => {
  const dir = join(spansDir(t), 'a', 'b');
  const { code } = await run('exit-app.mjs', { args: ['normal', '3'], env: { TRACEHOOK_SPANS_DIR: dir } });
  assert.equal(code, 0);
  const [file] = spanFiles(dir);
  assert.equal(mode(dir), '700');
  assert.equal(mode(file), '600');
  assert.equal(strictSpans(file).length, 3);
});

test('an explicit TRACEHOOK_SPANS_DIR of another user: one line, nothing written there, losses counted, the app unharmed', { skip: !isRoot && NOT_ROOT }, async (t) => {
  const dir = join(spansDir(t), 'theirs');
  mkdirSync(dir);
  chmodSync(dir, 0o777);
  chownSync(dir, NOBODY, NOBODY);
  const { code, stdout, stderr } = await run('exit-app.mjs', { args: ['normal', '4'], env: { TRACEHOOK_SPANS_DIR: dir } });
  assert.equal(code, 0);
  assert.equal(stdout, '');
  assert.deepEqual(spanFiles(dir), []);
  assert.equal(stderr.match(/is owned by uid 65534, another user: not safe for span files; spans are not written/g)?.length, 1, stderr);
  assert.deepEqual(lossLine(stderr), { lost: 4, ended: 4, queueFull: 0, exportFailed: 0, writeFailed: 4, shutdownBound: 0, exported: 0 });
});

/**
 * Runs exit-app.mjs as root in a mount namespace whose /tmp is `tmp` (mode 1777, as /tmp is), after
 * `attack` (a shell snippet run first as root, then `as_nobody` lines as uid 65534) has prepared it.
 * `$$` is the pid the app will have (the shell execs node). TMPDIR is unset, so os.tmpdir() is /tmp.
 */
function runWithPrivateTmp(tmp, attack, appUser = 'root') {
  const asUser = appUser === 'root' ? [] : ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
  return runInPrivateTmp(tmp, attack, [...asUser, process.execPath, '--import', '@tracehook/register', join(FIXTURES, 'exit-app.mjs'), 'normal', '5']);
}

const ATTACKS = {
  // Another user made /tmp/spans first, world-writable, and planted the span file's name as a symlink.
  'another user owns /tmp/spans (0777) and planted <pid>.jsonl -> a root file': `
    : > /tmp/victim; chmod 600 /tmp/victim
    as_nobody "mkdir -m 0777 /tmp/spans && chmod 0777 /tmp/spans && ln -s /tmp/victim /tmp/spans/$$.jsonl"`,
  // /tmp/spans is root's and sticky (like /tmp): the directory is fine, the planted symlink is not.
  "/tmp/spans is root's and sticky, another user planted <pid>.jsonl -> a root file": `
    : > /tmp/victim; chmod 600 /tmp/victim
    mkdir -m 1777 /tmp/spans; chmod 1777 /tmp/spans
    as_nobody "ln -s /tmp/victim /tmp/spans/$$.jsonl"`,
  // World-writable without the sticky bit: anyone could replace our file later.
  '/tmp/spans is root-owned 0777 without the sticky bit': `
    : > /tmp/victim
    mkdir -m 0777 /tmp/spans; chmod 0777 /tmp/spans`,
  // Not an attack: root's processes made /tmp/spans (0700) first, and this app runs as nobody.
  "the app runs as nobody and /tmp/spans is root's, 0700": {
    user: 'nobody',
    attack: `
    : > /tmp/victim
    mkdir -m 0700 /tmp/spans`,
  },
};

for (const [name, entry] of Object.entries(ATTACKS)) {
  const { attack, user = 'root' } = typeof entry === 'string' ? { attack: entry } : entry;
  const uid = user === 'root' ? 0 : NOBODY;
  test(
    `default directory unusable (${name}): tracehook says so once and writes to the private /tmp/spans-${uid}`,
    { skip: !canUnshare && (isRoot ? 'unshare --mount is not permitted here' : NOT_ROOT) },
    async (t) => {
      const tmp = spansDir(t);
      const { code, stderr, pid } = await runWithPrivateTmp(tmp, attack, user);
      assert.equal(code, 0, stderr);
      assert.equal(readFileSync(join(tmp, 'victim'), 'utf8'), '', 'nothing written through the symlink');
      assert.equal(stderr.match(new RegExp(`; writing them to /tmp/spans-${uid} instead`, 'g'))?.length, 1, stderr);
      const file = join(tmp, `spans-${uid}`, `${pid}.jsonl`);
      assert.equal(mode(join(tmp, `spans-${uid}`)), '700');
      assert.equal(mode(file), '600');
      assert.equal(statSync(file).uid, uid);
      assert.deepEqual(
        strictSpans(file)
          .map((s) => s.name)
          .sort(),
        ['work-0', 'work-1', 'work-2', 'work-3', 'work-4'],
      );
      assert.doesNotMatch(stderr, /losses:/);
    },
  );
}

test('the span file renamed (rotated) and then deleted while the app runs: later spans land in a new file', async (t) => {
  const dir = spansDir(t);
  const app = start('burst-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, OTEL_BSP_SCHEDULE_DELAY: '20' } });
  const [, port] = await app.ready();
  const serverPaths = (file) =>
    strictSpans(file)
      .filter((s) => s.kind === 'SERVER')
      .map((s) => s.attributes['url.path']);
  const phase = async (path) => {
    await burst(port, { total: 10, concurrency: 5, path });
    await waitForStats(port, (s) => s.queued === 0 && s.exporting === 0 && existsSync(file) && serverPaths(file).filter((p) => p === path).length === 10);
  };
  await burst(port, { total: 1, concurrency: 1 });
  await waitForStats(port, () => spanFiles(dir).length === 1);
  const [file] = spanFiles(dir);

  await phase('/one');
  renameSync(file, `${file}.1`);
  await phase('/two');
  unlinkSync(file);
  await phase('/three');
  await get(port, '/exit').catch(() => undefined);
  const { code, stderr } = await app.done;
  assert.equal(code, 0);
  assert.ok(serverPaths(`${file}.1`).includes('/one'));
  assert.deepEqual(
    serverPaths(file).filter((p) => p === '/three'),
    Array(10).fill('/three'),
  );
  assert.equal(mode(file), '600');
  assert.doesNotMatch(stderr, /losses:/);
});

test('a span file at TRACEHOOK_SPANS_MAX_BYTES: no line past it, every refused span counted, one line naming the variable, writing resumes after rotation', async (t) => {
  const dir = spansDir(t);
  const bound = 64 * 1024;
  const app = start('burst-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, TRACEHOOK_SPANS_MAX_BYTES: '64KiB', OTEL_BSP_SCHEDULE_DELAY: '20' } });
  const [, port] = await app.ready();
  // ≈ 500 bytes a span: 1000 spans are ≈ 8 times the bound.
  await burst(port, { total: 200, concurrency: 10, path: '/full' });
  const full = await waitForStats(port, (s) => s.queued === 0 && s.exporting === 0 && s.exported + s.dropped.writeFailed >= 1000);
  const [file] = spanFiles(dir);
  assert.ok(statSync(file).size <= bound, `${statSync(file).size} bytes, past the bound of ${bound}`);
  assert.ok(statSync(file).size > bound / 2, `${statSync(file).size} bytes: the bound should be nearly reached`);
  assert.ok(full.dropped.writeFailed > 500, `only ${full.dropped.writeFailed} spans refused`);
  assert.equal(strictSpans(file).length, full.exported, 'exactly the spans counted as exported are in the file');

  renameSync(file, `${file}.1`);
  await burst(port, { total: 10, concurrency: 5, path: '/after' });
  const afterPaths = () => strictSpans(file).filter((s) => s.kind === 'SERVER' && s.attributes['url.path'] === '/after');
  await waitForStats(port, (s) => s.queued === 0 && s.exporting === 0 && existsSync(file) && afterPaths().length === 10);
  await get(port, '/exit').catch(() => undefined);
  const { code, stderr } = await app.done;
  assert.equal(code, 0);
  const losses = lossLine(stderr);
  assert.ok(losses, stderr);
  assert.equal(losses.exported, strictSpans(`${file}.1`).length + strictSpans(file).length, 'exactly the spans counted as exported are in the two files');
  assert.equal(losses.writeFailed, losses.lost);
  assert.equal(losses.exported + losses.lost, losses.ended);
  const boundLines = stderr.split('\n').filter((l) => l.includes('TRACEHOOK_SPANS_MAX_BYTES'));
  assert.ok(boundLines.length >= 1 && boundLines.length <= 4, stderr);
  assert.match(
    boundLines[0],
    /^\[tracehook\] span-file: cannot write spans to .*\.jsonl: it reached its bound of 65536 bytes \(TRACEHOOK_SPANS_MAX_BYTES\); writing resumes once it is rotated or deleted; those spans are dropped and counted/,
  );
});

test(
  'disk full, then space again: no cut line, every lost span counted, writing resumes',
  { skip: !canMount && (isRoot ? 'mount -t tmpfs is not permitted here' : 'needs root to mount a small tmpfs') },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tracehook-full-'));
    assert.equal(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=512k,mode=0700', 'tmpfs', dir]).status, 0);
    t.after(() => {
      spawnSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    });
    const app = start('burst-app.mjs', { env: { TRACEHOOK_SPANS_DIR: dir, OTEL_BSP_SCHEDULE_DELAY: '20' } });
    const [, port] = await app.ready();
    await burst(port, { total: 10, concurrency: 5, path: '/before' });
    await waitForStats(port, (s) => s.exported >= 50 && s.queued === 0);

    // Fill the file system, then free 20 KB: less than one line of 64 spans, so a write is cut short.
    const filler = join(dir, 'filler');
    const fd = openSync(filler, 'w');
    const chunk = Buffer.alloc(16 * 1024, 120);
    for (;;) {
      try {
        if (writeSync(fd, chunk) < chunk.length) break;
      } catch {
        break;
      }
    }
    ftruncateSync(fd, Math.max(0, statSync(filler).size - 20 * 1024));
    closeSync(fd);
    await burst(port, { total: 200, concurrency: 20, path: '/full' });
    const full = await waitForStats(port, (s) => s.queued === 0 && s.exporting === 0 && s.dropped.writeFailed > 0);
    assert.ok(full.dropped.writeFailed >= 500, `only ${full.dropped.writeFailed} spans failed`);

    rmSync(filler);
    await burst(port, { total: 20, concurrency: 5, path: '/after' });
    await waitForStats(port, (s) => s.queued === 0 && s.exporting === 0 && s.exported > full.exported + 100);
    await get(port, '/exit').catch(() => undefined);
    const { code, stderr } = await app.done;
    assert.equal(code, 0);

    const [file] = spanFiles(dir);
    const spans = strictSpans(file);
    const paths = spans.filter((s) => s.kind === 'SERVER').map((s) => s.attributes['url.path']);
    assert.equal(paths.filter((p) => p === '/before').length, 10);
    assert.equal(paths.filter((p) => p === '/after').length, 20, 'writing resumed when space returned');
    const losses = lossLine(stderr);
    assert.ok(losses, stderr);
    assert.equal(losses.exported, spans.length, 'exactly the spans counted as exported are in the file');
    assert.equal(losses.writeFailed, losses.lost);
    assert.equal(losses.exported + losses.lost, losses.ended);
    // Distinct causes (a cut write, ENOSPC) each print a line at 1, 10, 100…: a handful, not one per line.
    const writeLines = stderr.split('\n').filter((l) => l.includes('cannot write spans to'));
    console.log(`# ${losses.exported} spans written, ${losses.writeFailed} lost to the full disk\n# ${writeLines.join('\n# ')}`);
    assert.ok(writeLines.length >= 1 && writeLines.length <= 8, writeLines.join('\n'));
  },
);
