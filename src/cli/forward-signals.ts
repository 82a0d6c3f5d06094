import { readFileSync } from 'node:fs';
import { isatty } from 'node:tty';
import type { ChildProcess } from 'node:child_process';

/**
 * Signals `tracehook run` passes on to the app. Without a listener each of these would end the
 * wrapper alone and leave the app running under pid 1. SIGUSR1 starts the app's inspector, not ours.
 * Windows delivers only SIGINT, SIGHUP and SIGBREAK to a Node.js process.
 */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = process.platform === 'win32' ? ['SIGINT', 'SIGTERM', 'SIGHUP'] : ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

/** The terminal's keys: Ctrl-C and Ctrl-\ send these to every process of the foreground process group. */
const TERMINAL_SIGNALS: ReadonlySet<string> = new Set(['SIGINT', 'SIGQUIT']);

/**
 * Whether this process is in the foreground process group of its controlling terminal, where a
 * Ctrl-C reaches the app (which shares our process group) directly. Linux: `tpgid == pgrp` in
 * /proc/self/stat (proc(5)); elsewhere: whether stdin is a terminal. Read at signal time, since a
 * shell's `fg`/`bg` moves the group.
 */
export function inTerminalForeground(): boolean {
  try {
    const stat = readFileSync('/proc/self/stat', 'latin1');
    // Fields after "(comm)": state ppid pgrp session tty_nr tpgid …; comm may hold spaces and parens.
    const [, , pgrp, , , tpgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return pgrp === tpgid;
  } catch {
    return isatty(0);
  }
}

/**
 * Passes FORWARDED_SIGNALS received by this process on to `child`, except SIGINT and SIGQUIT while
 * this process is in its terminal's foreground process group: the terminal sent those to the app
 * too, and a second copy makes a "press Ctrl-C again to force quit" app force-quit at once. A
 * listener stays for every signal, so the wrapper never dies before the app (it mirrors the app's
 * end instead; see runCommand).
 * @returns a function that removes the listeners
 */
export function forwardSignals(child: ChildProcess): () => void {
  const forward = (signal: NodeJS.Signals) => {
    if (TERMINAL_SIGNALS.has(signal) && inTerminalForeground()) return;
    child.kill(signal);
  };
  for (const s of FORWARDED_SIGNALS) process.on(s, forward);
  return () => {
    for (const s of FORWARDED_SIGNALS) process.removeListener(s, forward);
  };
}
