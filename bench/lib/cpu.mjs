// CPU and I/O counters of a running child from Linux /proc: counted, not timed, so they hold on a shared machine
// far better than throughput does.
import { readFileSync } from 'node:fs';

/** CPU time a thread has run, ns (`/proc/<pid>/task/<tid>/schedstat`, first field); NaN where unreadable. */
export function threadCpuNs(pid, tid = pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

/** `/proc/<pid>/io` as numbers: rchar, wchar (bytes), syscr, syscw (read / write syscalls), …; NaNs where unreadable. */
export function processIo(pid) {
  const io = { rchar: NaN, wchar: NaN, syscr: NaN, syscw: NaN };
  try {
    for (const line of readFileSync(`/proc/${pid}/io`, 'utf8').split('\n')) {
      const [k, v] = line.split(': ');
      if (v !== undefined) io[k] = Number(v);
    }
  } catch {
    /* gone, or not Linux */
  }
  return io;
}

/**
 * Scheduling counters of one thread: CPU run time and runqueue wait (ns, schedstat), and context switches
 * (`status`: voluntary = it blocked, e.g. in epoll; nonvoluntary = preempted while runnable). NaNs where unreadable.
 */
export function threadSched(pid, tid = pid) {
  const s = { runNs: NaN, waitNs: NaN, voluntary: NaN, nonvoluntary: NaN };
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
    s.runNs = Number(run);
    s.waitNs = Number(wait);
    const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
    s.voluntary = Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1]);
    s.nonvoluntary = Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1]);
  } catch {
    /* gone, or not Linux */
  }
  return s;
}
