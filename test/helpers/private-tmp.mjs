// Runs a command as root in a mount namespace whose /tmp is a test's own directory (mode 1777, as
// /tmp is), so a test can plant /tmp/spans as another user would without touching the real /tmp.
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { ROOT } from './fixture.mjs';

/**
 * @param tmp - the directory that becomes /tmp
 * @param setup - a shell snippet run first, as root; `as_nobody "…"` runs a line as uid 65534
 * @param command - argv run after it (exec'd, so `$$` in `setup` is its pid)
 * @returns `{ code, stdout, stderr, pid }` (`pid`: the command's); TMPDIR and TRACEHOOK_SPANS_DIR are unset, so os.tmpdir() is /tmp
 */
export function runInPrivateTmp(tmp, setup, command) {
  // A checkout or a Node binary under /tmp (a CI clone there) must stay visible under the private
  // /tmp: each is bound into it first, and the recursive bind carries those mounts along.
  const keep = [ROOT, dirname(process.execPath)].filter((p, i, all) => p.startsWith('/tmp/') && !all.some((q, j) => j !== i && p.startsWith(`${q}/`)));
  const quote = (s) => `'${s.replaceAll("'", `'\\''`)}'`;
  const script = [
    'set -e',
    ...keep.map((p) => `mkdir -p "$TMP_DIR${p.slice(4)}" && mount --bind "${p}" "$TMP_DIR${p.slice(4)}"`),
    'mount --rbind "$TMP_DIR" /tmp',
    'chmod 1777 /tmp',
    'as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "$1"; }',
    setup,
    `exec ${command.map(quote).join(' ')}`,
  ].join('\n');
  const env = { ...process.env, TMP_DIR: tmp };
  for (const k of ['TMPDIR', 'TRACEHOOK_SPANS_DIR', 'NODE_OPTIONS', 'OTEL_LOG_LEVEL']) delete env[k];
  return new Promise((resolve) => {
    const child = spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr, pid: child.pid }));
  });
}
