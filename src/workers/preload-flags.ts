import { existsSync, realpathSync } from 'node:fs';
import { basename, isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot, preloadFlags, registerCjsPath, registerMjsUrl } from '../package-root.js';
import { getPreloadState } from '../state.js';

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

/** How a flag loads a module before the app: `--import` (ES module) or `--require`/`-r` (CommonJS). */
export type PreloadKind = 'import' | 'require';

const PRELOAD_FLAGS: Record<string, PreloadKind> = { '--import': 'import', '--require': 'require', '-r': 'require' };

/** The bare specifier users write: `--import @tracehook/register`. */
const BARE = '@tracehook/register';

/**
 * The working directory while the preload starts (this module is loaded then, before the app's
 * first line): a relative preload path in this process's flags was resolved from it.
 */
const START_CWD = ((): string => {
  try {
    return process.cwd();
  } catch {
    return ROOT;
  }
})();

function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * The absolute form of `value` when it names this package's preload (bare specifier, relative or
 * absolute path, `file:` URL), else undefined. Relative paths are resolved from the directory the
 * preload started in. The bare specifier becomes the entry its flag selects (`--import`:
 * `register.mjs` as a `file:` URL; `--require`: the path of `register.cjs`); a path keeps naming
 * the same file.
 */
export function absolutePreload(value: string, kind: PreloadKind): string | undefined {
  if (value === BARE) return kind === 'import' ? REGISTER_MJS_URL : REGISTER_CJS;
  let file: string;
  if (value.startsWith('file:')) {
    try {
      file = fileURLToPath(value);
    } catch {
      return undefined;
    }
  } else if (isAbsolute(value) || value.startsWith('./') || value.startsWith('../') || value === '.' || value === '..') {
    file = resolve(START_CWD, value);
  } else {
    return undefined;
  }
  if (!basename(file).startsWith('register.')) return undefined;
  if (sameFile(file, REGISTER_MJS)) return value.startsWith('file:') || isAbsolute(value) ? value : kind === 'import' ? REGISTER_MJS_URL : REGISTER_MJS;
  if (sameFile(file, REGISTER_CJS)) return value.startsWith('file:') || isAbsolute(value) ? value : REGISTER_CJS;
  return undefined;
}

/** One preload flag of this package's found among node options. */
interface PreloadFlag {
  /** Index of the flag (of `--import=value` itself when inline). */
  at: number;
  kind: PreloadKind;
  /** The value is in the same token (`--import=value`). */
  inline: boolean;
  /** The absolute form of its value. */
  absolute: string;
}

/**
 * This package's preload flags among node options `tokens[0..end)` (an `execArgv`, `NODE_OPTIONS`
 * split as Node splits it, or a child's arguments up to its script).
 */
function findPreloadFlags(tokens: readonly string[], end = tokens.length): PreloadFlag[] {
  const found: PreloadFlag[] = [];
  for (let i = 0; i < end; i++) {
    const token = tokens[i];
    if (typeof token !== 'string') continue;
    const eq = token.indexOf('=');
    const kind = PRELOAD_FLAGS[eq > 0 ? token.slice(0, eq) : token];
    if (kind === undefined) {
      if (FLAGS_WITH_VALUE.has(token)) i++;
      continue;
    }
    const inline = eq > 0;
    const value = inline ? token.slice(eq + 1) : tokens[i + 1];
    if (!inline) i++;
    const absolute = typeof value === 'string' ? absolutePreload(value, kind) : undefined;
    if (absolute !== undefined) found.push({ at: inline ? i : i - 1, kind, inline, absolute });
  }
  return found;
}

/** The kinds of this package's preload flags among node options (see {@link findPreloadFlags}). */
export function preloadKinds(tokens: readonly string[] | undefined, end?: number): Set<PreloadKind> {
  return new Set(Array.isArray(tokens) ? findPreloadFlags(tokens, end).map((f) => f.kind) : []);
}

/**
 * The preload's entry files are there. When they are not (the package was moved or deleted while
 * the app runs), no thread or process is given the preload: it would fail to start.
 */
export function preloadAvailable(): boolean {
  return existsSync(REGISTER_MJS) && existsSync(REGISTER_CJS);
}

/**
 * Node options `tokens` with this package's preload flags (in `tokens[0..end)`) loading it from an
 * absolute location, so that a child resolves it whatever its working directory; without them when
 * the preload is not {@link preloadAvailable}. The same array when nothing changes.
 */
export function withAbsolutePreload<T extends readonly string[]>(tokens: T, end?: number): T | string[] {
  const flags = findPreloadFlags(tokens, end);
  if (flags.length === 0) return tokens;
  const available = preloadAvailable();
  const out = tokens.slice();
  for (const flag of flags.reverse()) {
    const name = flag.inline ? out[flag.at].slice(0, out[flag.at].indexOf('=')) : out[flag.at];
    if (!available) out.splice(flag.at, flag.inline ? 1 : 2);
    else if (flag.inline) out[flag.at] = `${name}=${flag.absolute}`;
    else out[flag.at + 1] = flag.absolute;
  }
  return out.every((t, i) => t === tokens[i]) && out.length === tokens.length ? tokens : out;
}

/**
 * `NODE_OPTIONS` split into arguments as Node.js does: spaces separate, double quotes group, and
 * inside quotes a backslash escapes the next character.
 */
export function splitNodeOptions(text: string): string[] {
  const args: string[] = [];
  let current = '';
  let inArg = false;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    let c = text[i];
    if (c === '\\' && quoted && i + 1 < text.length) {
      c = text[++i];
    } else if (c === ' ' && !quoted) {
      if (inArg) args.push(current);
      current = '';
      inArg = false;
      continue;
    } else if (c === '"') {
      quoted = !quoted;
      inArg = true;
      continue;
    }
    current += c;
    inArg = true;
  }
  if (inArg) args.push(current);
  return args;
}

/** One `NODE_OPTIONS` argument, quoted when {@link splitNodeOptions} needs it. */
function quoteNodeOption(arg: string): string {
  return arg === '' || /[\s"\\]/.test(arg) ? `"${arg.replace(/(["\\])/g, '\\$1')}"` : arg;
}

/** This package's preload flags in `NODE_OPTIONS`, by kind. */
export function nodeOptionsPreloadKinds(nodeOptions: string | undefined): Set<PreloadKind> {
  return nodeOptions ? preloadKinds(splitNodeOptions(nodeOptions)) : new Set();
}

/** `NODE_OPTIONS` loading the preload from an absolute location ({@link withAbsolutePreload}); the same string when nothing changes. */
export function nodeOptionsWithAbsolutePreload<T extends string | undefined>(nodeOptions: T): T | string {
  if (!nodeOptions || !nodeOptions.includes('register')) return nodeOptions;
  const args = splitNodeOptions(nodeOptions);
  const changed = withAbsolutePreload(args);
  return changed === args ? nodeOptions : changed.map(quoteNodeOption).join(' ');
}

/**
 * The flags that load the preload the way this process loaded it: `--require <register.cjs>` when
 * the CommonJS entry ran (an app that `--import` would break, e.g. ts-node on Node 20), else
 * `--import <register.mjs URL>`.
 */
export function ownPreloadFlags(): [string, string] {
  return preloadFlags(usesRequireEntry());
}

/**
 * True when this thread loaded the preload through `--require` (`register.cjs`), except in a worker thread given it
 * only in place of its starter's `--import` ({@link withRequireEntry}).
 */
export function usesRequireEntry(): boolean {
  return require.cache[REGISTER_CJS] !== undefined && getPreloadState().importEntry !== true;
}

/** Node options that start the ES module loader in a new thread (any `--import`), or change how it loads modules. */
const ESM_LOADER_FLAGS = new Set(['--import', '--loader', '--experimental-loader']);

/**
 * A worker thread's `execArgv` with this package's `--import` entry replaced by `--require <register.cjs>`, put last
 * (after the app's own `--require`s, as an `--import` runs after them): the same preload, synchronous as it is
 * without a startup hook or exporter import path, without starting the ES module loader in the worker, which an
 * `--import` does before anything else (≈ 6 / 4.5 / 1 ms of the worker thread's CPU on Node 20 / 22 / 24, up to
 * ≈ 0.4 MiB of its heap: bench/RESULTS.md, the worker start notes). The same array when any other option starts
 * or changes that loader (another `--import`, `--loader`), or when the entry is not `--import`ed.
 * @param tokens - an `execArgv` whose preload flags name absolute locations ({@link withAbsolutePreload})
 */
export function withRequireEntry<T extends readonly string[]>(tokens: T): T | string[] {
  let loaders = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (typeof token !== 'string') continue;
    const eq = token.indexOf('=');
    if (ESM_LOADER_FLAGS.has(eq > 0 ? token.slice(0, eq) : token)) loaders++;
    if (FLAGS_WITH_VALUE.has(token)) i++;
  }
  return loaders === 1 ? withEntry(tokens, 'import', ['--require', REGISTER_CJS]) : tokens;
}

/**
 * What {@link withRequireEntry} undoes: in a worker thread given `--require` only in place of its starter's `--import`
 * (`importEntry` of the preload state), the `execArgv` a worker it starts inherits, with `--import <register.mjs>`
 * again (last, as {@link withRequireEntry} put the `--require`), for a worker whose preload would not start as
 * synchronously (a startup hook, an exporter import path or the ES module loader hook in its `env`). The same array
 * elsewhere.
 */
export function withImportEntryAgain<T extends readonly string[]>(tokens: T): T | string[] {
  return getPreloadState().importEntry === true ? withEntry(tokens, 'require', ['--import', REGISTER_MJS_URL]) : tokens;
}

/** `tokens` with this package's one preload flag of kind `from` (and its value) removed and `entry` appended; the same array when there is not exactly one such flag. */
function withEntry<T extends readonly string[]>(tokens: T, from: PreloadKind, entry: readonly [string, string]): T | string[] {
  const flags = findPreloadFlags(tokens);
  if (flags.length !== 1 || flags[0].kind !== from) return tokens;
  const { at, inline } = flags[0];
  return [...tokens.slice(0, at), ...tokens.slice(at + (inline ? 1 : 2)), ...entry];
}

/**
 * `NODE_OPTIONS` with `flag value` appended (the app's own options kept, in front). Values are
 * quoted as `NODE_OPTIONS` parsing expects.
 */
export function appendNodeOption(current: string | undefined, flag: string, value: string): string {
  const quoted = quoteNodeOption(value);
  return current && current.trim() ? `${current} ${flag} ${quoted}` : `${flag} ${quoted}`;
}

/**
 * `NODE_OPTIONS` for a Node.js child: the preload loaded from an absolute location, appended
 * unless `NODE_OPTIONS` or `alsoLoaded` already has it. Unchanged when the preload is not
 * {@link preloadAvailable}, except that its flags are then removed.
 */
export function nodeOptionsWithPreload(current: string | undefined, alsoLoaded = false): string | undefined {
  const absolute = nodeOptionsWithAbsolutePreload(current);
  if (alsoLoaded || nodeOptionsPreloadKinds(absolute).size > 0 || !preloadAvailable()) return absolute;
  return appendNodeOption(absolute, ...ownPreloadFlags());
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
export const FLAGS_WITH_VALUE: ReadonlySet<string> = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '--conditions',
  '-C',
  '--input-type',
  '--env-file',
  '--title',
  '--inspect-port',
  '--stack-size',
]);

/**
 * The script a node command line runs (`messaging.destination.name` of a child process):
 * the first argument after the options, `[eval]` for `-e`/`-p`, undefined when none.
 * @param args - the arguments after the executable
 */
export function scriptOf(args: readonly string[]): string | undefined {
  const end = optionsEnd(args);
  if (end < args.length && (args[end] === '-e' || args[end] === '--eval' || args[end] === '-p' || args[end] === '--print')) return '[eval]';
  return args[end] === '--' ? args[end + 1] : args[end];
}

/**
 * Where the node options of a command line end: the index of its script, of `--`, or of
 * `-e`/`-p` (whose code follows), else `args.length`.
 * @param args - the arguments after the executable
 */
export function optionsEnd(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '-e' || arg === '--eval' || arg === '-p' || arg === '--print' || arg === '--') return i;
    if (FLAGS_WITH_VALUE.has(arg)) {
      i++;
      continue;
    }
    if (typeof arg !== 'string' || !arg.startsWith('-')) return i;
  }
  return args.length;
}
