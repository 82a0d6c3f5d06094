// Core pinning (`--pin`): the server under test on one core, the bench process (autocannon, receivers) on the
// others, so the load generator does not steal the server's CPU. Needs `taskset` (util-linux) and ≥ 2 usable CPUs.
import { execFileSync } from 'node:child_process';

let allowed;

/** The CPUs this process may run on, from `taskset -p` (e.g. [0, 1]); [] when taskset is missing. */
function allowedCpus() {
  if (allowed === undefined) {
    try {
      const out = execFileSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8' });
      allowed = expand(out.slice(out.lastIndexOf(':') + 1).trim());
    } catch {
      allowed = [];
    }
  }
  return allowed;
}

function expand(list) {
  const cpus = [];
  for (const part of list.split(',')) {
    const [a, b] = part.split('-').map(Number);
    for (let c = a; c <= (b ?? a); c++) cpus.push(c);
  }
  return cpus;
}

/** Why pinning cannot be done here, or null when it can. */
export function pinUnavailable() {
  const cpus = allowedCpus();
  if (cpus.length === 0) return 'taskset (util-linux) not found';
  if (cpus.length < 2) return `only ${cpus.length} CPU usable`;
  return null;
}

/** The server's core list for `taskset -c`: the first usable CPU. */
export function serverCpuList() {
  return String(allowedCpus()[0]);
}

/** Moves every thread of this process (autocannon runs here) and its later children to the other CPUs. */
export function pinSelf() {
  const why = pinUnavailable();
  if (why) throw new Error(`--pin: ${why}`);
  setSelf(allowedCpus().slice(1).join(','));
}

/** Undoes {@link pinSelf}. */
export function unpinSelf() {
  if (allowedCpus().length > 0) setSelf(allowedCpus().join(','));
}

function setSelf(list) {
  execFileSync('taskset', ['-a', '-c', '-p', list, String(process.pid)], { stdio: 'ignore' });
}
