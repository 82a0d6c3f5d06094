// Real PostgreSQL, Redis and MariaDB servers for tests, from Debian's packages (postgresql, redis-server, mariadb-server; see
// .ci/apt-packages), each on a free loopback port with its data in a temp dir, stopped when the test ends.
// Each returns the reason in `skipped` when the binaries are missing, so the caller can `t.skip(reason)`
// (under TRACEHOOK_TEST_NO_SKIP=1 it throws instead: test/helpers/needs.mjs). PostgreSQL refuses to run as root: as root, it runs as the `postgres` user.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missing } from './needs.mjs';

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function waitFor(child, pattern, what, timeoutMs = 30000) {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const onData = (d) => {
      out += d;
      if (pattern.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.setEncoding('utf8').on('data', onData);
    child.stderr?.setEncoding('utf8').on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${out}`));
    });
  });
}

function stopOnEnd(t, child, dir) {
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  });
}

/** @returns `{ port }` of a PostgreSQL server (user `postgres`, trust auth, database `postgres`), or `{ skipped }`. */
export async function startPostgres(t) {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => b - a) : [];
  const bin = versions.map((v) => `/usr/lib/postgresql/${v}/bin`).find((b) => existsSync(join(b, 'postgres')));
  if (!bin) return { skipped: missing('PostgreSQL is not installed (apt-get install postgresql)') };
  let user = {};
  if (process.getuid?.() === 0) {
    try {
      user = { uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })) };
    } catch {
      return { skipped: missing('running as root and there is no `postgres` user to run PostgreSQL as (apt-get install postgresql makes one)') };
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-pg-'));
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], { ...user, stdio: 'ignore', env: { ...process.env, LC_ALL: 'C' } });
  const port = await freePort();
  const server = spawn(join(bin, 'postgres'), ['-D', data, '-k', dir, '-h', '127.0.0.1', '-p', String(port), '-c', 'fsync=off'], { ...user, stdio: ['ignore', 'pipe', 'pipe'] });
  stopOnEnd(t, server, dir);
  await waitFor(server, /ready to accept connections/, 'postgres');
  return { port };
}

/** @returns `{ port }` of a Redis server with persistence off, or `{ skipped }`. */
export async function startRedis(t) {
  const bin = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((b) => existsSync(b));
  if (!bin) return { skipped: missing('redis-server is not installed (apt-get install redis-server)') };
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-redis-'));
  const port = await freePort();
  const server = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  stopOnEnd(t, server, dir);
  await waitFor(server, /Ready to accept connections/i, 'redis-server');
  return { port };
}

/**
 * @returns `{ port }` of a MariaDB server (MySQL protocol; user `root` without a password over TCP, database `test`),
 *   or `{ skipped }`. As root it runs as the `mysql` user the package made.
 */
export async function startMariadb(t) {
  const bin = ['/usr/sbin/mariadbd', '/usr/bin/mariadbd'].find((b) => existsSync(b));
  if (!bin || !existsSync('/usr/bin/mariadb-install-db')) return { skipped: missing('MariaDB is not installed (apt-get install mariadb-server)') };
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-mariadb-'));
  const data = join(dir, 'data');
  const user = asRoot ? ['--user=mysql'] : [];
  if (asRoot) {
    try {
      chownSync(dir, Number(execFileSync('id', ['-u', 'mysql'], { encoding: 'utf8' })), Number(execFileSync('id', ['-g', 'mysql'], { encoding: 'utf8' })));
    } catch {
      return { skipped: missing('running as root and there is no `mysql` user to run MariaDB as (apt-get install mariadb-server makes one)') };
    }
  }
  // `--auth-root-authentication-method=normal`: root logs in with an (empty) password over TCP, not only by socket.
  execFileSync('/usr/bin/mariadb-install-db', ['--no-defaults', `--datadir=${data}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...user], { stdio: 'ignore' });
  const port = await freePort();
  const server = spawn(
    bin,
    [
      '--no-defaults',
      `--datadir=${data}`,
      `--socket=${join(dir, 'sock')}`,
      `--pid-file=${join(dir, 'pid')}`,
      '--bind-address=127.0.0.1',
      `--port=${port}`,
      '--skip-log-bin',
      '--innodb-flush-log-at-trx-commit=0',
      ...user,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  stopOnEnd(t, server, dir);
  await waitFor(server, /ready for connections/, 'mariadbd');
  execFileSync('/usr/bin/mariadb', ['--no-defaults', '-h', '127.0.0.1', '-P', String(port), '-u', 'root', '-e', 'CREATE DATABASE test'], { stdio: 'ignore' });
  return { port };
}
