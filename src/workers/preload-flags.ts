import { basename, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot, registerCjsPath, registerMjsUrl } from '../package-root.js';

/**
 * Where the preload lives and how a new thread or process is told to load it. Absolute paths and
 * `file:` URLs, so a child resolves them from any working directory.
 */

const ROOT = packageRoot();
/** Absolute path of `register.cjs`, the `--require` entry. */
export const REGISTER_CJS = registerCjsPath();
/** Absolute path of `register.mjs`, the `--import` entry. */
export const REGISTER_MJS = join(ROOT, 'register.mjs');
/** Absolute path of the early IPC hook a child with an IPC channel `--require`s (see ipc-entry.ts). */
export const IPC_ENTRY = join(ROOT, 'dist', 'workers', 'ipc-entry.js');
/** `file:` URL of `register.mjs`. */
export const REGISTER_MJS_URL = registerMjsUrl();
const ROOT_URL = pathToFileURL(ROOT).href;

/** True when `text` (one argument, or a whole `NODE_OPTIONS`) names this package's preload. */
export function mentionsPreload(text: string | undefined): boolean {
  if (!text) return false;
  return (
    /(^|[\s="'])@tracehook\/register(?=$|[\s"'])/.test(text) ||
    text.includes(join(ROOT, 'register.')) ||
    text.includes(`${ROOT_URL}/register.`)
  );
}

/** True when any of `args` names this package's preload. */
export function argsMentionPreload(args: readonly unknown[] | undefined): boolean {
  return Array.isArray(args) && args.some((a) => typeof a === 'string' && mentionsPreload(a));
}

/**
 * The flags that load the preload the way this process loaded it: `--require <register.cjs>` when
 * the CommonJS entry ran (an app that `--import` would break, e.g. ts-node on Node 20), else
 * `--import <register.mjs URL>`.
 */
export function preloadArgs(): [string, string] {
  return usesRequireEntry() ? ['--require', REGISTER_CJS] : ['--import', REGISTER_MJS_URL];
}

/** True when this process loaded the preload through `--require` (`register.cjs`). */
export function usesRequireEntry(): boolean {
  return require.cache[REGISTER_CJS] !== undefined;
}

/**
 * `NODE_OPTIONS` with `flag value` appended (the app's own options kept, in front). Values are
 * quoted as `NODE_OPTIONS` parsing expects.
 */
export function appendNodeOption(current: string | undefined, flag: string, value: string): string {
  const quoted = /[\s"\\]/.test(value) ? `"${value.replace(/(["\\])/g, '\\$1')}"` : value;
  return current && current.trim() ? `${current} ${flag} ${quoted}` : `${flag} ${quoted}`;
}

/** `NODE_OPTIONS` with the preload appended, or unchanged when it already names it. */
export function nodeOptionsWithPreload(current: string | undefined): string {
  if (mentionsPreload(current)) return current as string;
  return appendNodeOption(current, ...preloadArgs());
}

const OWN_SCRIPTS = join(ROOT, 'dist') + sep;

/**
 * True when a command line runs one of tracehook's own scripts (the exit sender of the OTLP
 * exporter, say): the preload never instruments the processes it starts itself, so they cannot
 * start it again.
 */
export function runsOwnScript(args: readonly unknown[]): boolean {
  return args.some((a) => typeof a === 'string' && a.startsWith(OWN_SCRIPTS));
}

/** True when `file` is this Node.js binary or a `node` found on the PATH. */
export function isNodeExecutable(file: unknown): boolean {
  if (typeof file !== 'string') return false;
  return file === process.execPath || /^node(js)?(\.exe)?$/i.test(basename(file));
}

/** Flags of the node CLI that take the next argument as their value. */
const FLAGS_WITH_VALUE = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--conditions', '-C', '--input-type', '--env-file', '--title', '--inspect-port', '--stack-size']);

/**
 * The script a node command line runs (`messaging.destination.name` of a child process):
 * the first argument after the options, `[eval]` for `-e`/`-p`, undefined when none.
 * @param args - the arguments after the executable
 */
export function scriptOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '-e' || arg === '--eval' || arg === '-p' || arg === '--print') return '[eval]';
    if (arg === '--') return args[i + 1];
    if (FLAGS_WITH_VALUE.has(arg)) {
      i++;
      continue;
    }
    if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}
