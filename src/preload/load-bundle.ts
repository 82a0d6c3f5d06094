import { closeSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import Module from 'node:module';
import { basename, dirname, join } from 'node:path';
import vm from 'node:vm';
import { moduleInternals } from '../compat/node-module.js';
import { getPreloadState } from '../state.js';
import { PRELOAD_WRAPPER } from './bundle-wrapper.js';

/** What {@link loadPreloadBundle} returns: the bundle's exports (its `start`, `shouldStart` …). */
export type PreloadBundle = typeof import('./start.js');

/** V8 code caches kept in the cache folder, newest first; older ones are deleted when one is written. */
const MAX_CACHES = 8;
/** A temporary cache file older than this (ms) belongs to no write in progress (a write takes a few ms). */
const STALE_TEMP_MS = 60_000;
/**
 * A cache file is V8's data, then what it covers (tags, comma-separated ASCII), the tags' length in bytes (2, little
 * endian), and this format byte; a file ending otherwise is treated as missing. A tag names code the cache was taken
 * after running: `served` (a span had ended, so it holds what a request compiles: part of a server's first
 * request), or a package an instrumentation patched as it loaded (`http`, `express`, `pg`: the patching code and, once
 * served, the request path through it).
 */
const FORMAT = 0xc2;
/** The last line scripts/bundle.mjs appends to the bundle: `//# tracehook-bundle-id=<hex>`. */
const BUNDLE_ID = /\/\/# tracehook-bundle-id=([0-9a-f]{16,64})\s*$/;

/** A file compiled through `vm.Script` with the code cache found for it, and where that cache lives. */
interface Compiled {
  /** What its caches are named by: `preload`, or the bundled instrumentation's name (`pg`). */
  name: string;
  run: vm.Script;
  cacheFile: string;
  /** The tags of the cache V8 accepted; undefined when there was none or V8 rejected it. */
  covered: ReadonlySet<string> | undefined;
}

/**
 * Loads dist/preload.bundle.js (`bundle`, an absolute path) as `require()` would, compiled with a V8
 * code cache when one is there: the functions the preload runs at startup come compiled instead of
 * parsed and compiled again in every process and worker thread (bench: startup, tracehook-files row). The cache is
 * the one `vm.Script#createCachedData()` produced after an earlier start, in `<bundle folder>/compile-cache/`,
 * one file per bundle build, Node.js version, architecture and Node.js flags (V8 rejects a cache made under
 * other flags), at most {@link MAX_CACHES} files per bundle (the size of a V8 code cache of the bundle). It lives beside the bundle because only
 * a folder that may change the bundle may change its compiled form: a cache in a shared temporary folder
 * would let another user put code into this process. A missing or rejected cache is written once startup
 * is done (after `setImmediate`, atomically: a temporary file renamed). It is written again, in a later turn, when
 * this thread runs code the cache's tags do not cover (see {@link FORMAT}): its first span ended, or an instrumentation
 * patched a package no earlier writer loaded. A cache V8 accepted keeps its functions compiled, so the new one holds
 * both and its tags are the union: one install that runs several apps (a hello-world server, then an Express app with
 * pg) converges on one cache that covers them all, instead of the first app's cache, with which the others compile
 * their instrumentations' code at every start (measured in the express + pg + ioredis bench app's start and first
 * request: bench/RESULTS.md, the callgrind note of that startup row). A folder that cannot be written (a read-only install)
 * leaves the preload uncached after one attempt, never failing.
 * Without `vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER` (Node.js < 20.12; the bundle's `import()` needs it),
 * or when anything here fails, the bundle is compiled without a cache and run as `require` would run it (it is written as its
 * own module wrapper: {@link PRELOAD_WRAPPER}).
 * Also sets `loadCompiled` and `codeReached` in the preload state, for the lazily loaded instrumentations' bundles
 * and the tags.
 * @throws only what evaluating the bundle throws (as `require` would)
 */
export function loadPreloadBundle(bundle: string): PreloadBundle {
  const state = getPreloadState();
  // The bundle's own import() would go through vm's main-context loader and print an ExperimentalWarning.
  state.importModule = (specifier) => import(specifier);
  const compiled = compile(bundle, 'preload', true);
  if (!compiled) return requireWrapped(bundle) as PreloadBundle;
  state.loadCompiled = loadCompiledFile;
  state.codeReached = coverage(compiled);
  return runAsModule(bundle, compiled.run) as PreloadBundle;
}

/**
 * Schedules the writes of `compiled`'s cache: one after startup when it had none V8 accepted, and one each time a
 * tag it does not cover is reached (coalesced into one write per turn). Stops after a write that failed.
 * @returns what `codeReached` of the preload state does: notes a tag (idempotent, cheap)
 */
function coverage(compiled: Compiled): (tag: string) => void {
  const reached = new Set<string>();
  let covered = compiled.covered;
  let pending = false;
  let failed = false;
  const write = () => {
    pending = false;
    // Functions deserialized from an accepted cache are compiled, so the new one holds them too.
    const tags = new Set([...(covered ?? []), ...reached]);
    if (writeCache(compiled, tags)) covered = tags;
    else failed = true;
  };
  const schedule = () => {
    if (pending || failed) return;
    pending = true;
    setImmediate(write);
  };
  if (covered === undefined) schedule();
  return (tag) => {
    if (reached.has(tag)) return;
    reached.add(tag);
    if (!covered?.has(tag)) schedule();
  };
}

/**
 * `require(file)` for one of the build's own bundles that loads after startup (an instrumentation of
 * dist/instrumentations/bundled/, as the app first loads its package), compiled with a V8 code cache as
 * {@link loadPreloadBundle} does (bench: startup, express + pg + ioredis row). Its cache, in `<file folder>/compile-cache/<name>-…`,
 * is written once, in the turn after it loaded, when it was missing or rejected. A file without a build id, or one
 * that makes an `import()` (which vm-compiled code would run through an experimental loader), is required as usual.
 * @param file - absolute path
 * @returns its `module.exports`
 * @throws what evaluating the file throws (as `require` would)
 */
function loadCompiledFile(file: string): unknown {
  const compiled = compile(file, basename(file, '.js'), false);
  if (!compiled) return require(file);
  const exports = runAsModule(file, compiled.run);
  if (compiled.covered === undefined) setImmediate(writeCache, compiled, new Set<string>());
  return exports;
}

/**
 * `file` compiled with its cache; undefined when it must be `require`d (see {@link loadPreloadBundle}).
 * @param importsViaState - the file's `import()` calls go through `importModule` of the preload state (the preload
 *   bundle's do); otherwise a file that makes one is `require`d
 */
function compile(file: string, name: string, importsViaState: boolean): Compiled | undefined {
  try {
    const useMainLoader = (vm.constants as { USE_MAIN_CONTEXT_DEFAULT_LOADER?: unknown } | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
    const internals = moduleInternals(Module);
    if (useMainLoader === undefined || internals === undefined || internals._cache[file]) return undefined;
    const source = readFileSync(file, 'latin1');
    const cacheFile = cacheFileOf(file, name, source);
    // No id: not a bundle the build finished (it also makes the text ASCII, so latin1 reads it exactly).
    if (!cacheFile || (!importsViaState && /\bimport\s*\(/.test(source))) return undefined;
    let data: Buffer | undefined;
    try {
      data = readFileSync(cacheFile);
    } catch {
      // No cache yet.
    }
    const trailer = data === undefined ? undefined : readTrailer(data);
    const run = new vm.Script(isWrapped(source) ? source : Module.wrap(source), { filename: file, cachedData: trailer?.data, importModuleDynamically: useMainLoader as never });
    return { name, run, cacheFile, covered: trailer === undefined || run.cachedDataRejected === true ? undefined : trailer.tags };
  } catch {
    return undefined;
  }
}

/** Whether `source` is written as its own CommonJS module wrapper ({@link PRELOAD_WRAPPER}: the preload bundle). */
function isWrapped(source: string): boolean {
  return source.startsWith(PRELOAD_WRAPPER[0]);
}

/**
 * `require(file)`, also for a file written as its own module wrapper (which `require` would wrap once more and never
 * call): that one is compiled without a code cache and run as `require` runs a module.
 */
function requireWrapped(file: string): unknown {
  const internals = moduleInternals(Module);
  if (internals?._cache[file]) return require(file);
  const source = readFileSync(file, 'latin1');
  if (!isWrapped(source)) return require(file);
  const run = new vm.Script(source, { filename: file });
  if (internals !== undefined) return runAsModule(file, run);
  const mod = { exports: {} };
  (run.runInThisContext() as (...args: unknown[]) => void).call(mod.exports, mod.exports, Module.createRequire(file), mod, file, dirname(file));
  return mod.exports;
}

/** Runs a compiled CommonJS wrapper as `require()` would run `file`: in `require.cache` while it runs, and after. */
function runAsModule(file: string, run: vm.Script): unknown {
  const internals = moduleInternals(Module)!;
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = internals._nodeModulePaths(dirname(file));
  internals._cache[file] = mod;
  try {
    const wrapper = run.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(mod.exports, mod.exports, Module.createRequire(file), mod, file, dirname(file));
  } catch (err) {
    delete internals._cache[file];
    throw err;
  }
  mod.loaded = true;
  return mod.exports;
}

/** `<folder>/compile-cache/<name>-<bundle id>-<node version>-<arch>-<flags hash>.v8`; undefined for a file without an id. */
function cacheFileOf(file: string, name: string, source: string): string | undefined {
  const id = BUNDLE_ID.exec(source.slice(-100))?.[1];
  if (!id) return undefined;
  const flags = fnv1a(v8RelevantFlags([...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]).join('\0'));
  return join(dirname(file), 'compile-cache', `${name}-${id.slice(0, 16)}-${process.version}-${process.arch}-${flags}.v8`);
}

/**
 * The flags without the preloads they name (`--import x`, `-r x` …) and the code of `-e`/`-p`, which never change
 * how V8 compiles (a script given with `-e` is in `process.execArgv`: each would otherwise get a cache of its own).
 */
function v8RelevantFlags(flags: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i];
    if (!flag || /^--(import|require|eval|print)=/.test(flag)) continue;
    if (['--import', '--require', '-r', '--eval', '-e', '--print', '-p', '-pe'].includes(flag)) i++;
    else kept.push(flag);
  }
  return kept;
}

/** 32-bit FNV-1a of `text`, as 8 hex characters: names the flags a cache was made under. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * Writes `compiled`'s cache with `tags` in its trailer, atomically (a temporary file renamed over it).
 * @returns whether it was written
 */
function writeCache({ name, run, cacheFile }: Compiled, tags: ReadonlySet<string>): boolean {
  const dir = dirname(cacheFile);
  // Unique to this thread's write: each worker thread has a cache writer of its own.
  const temp = `${cacheFile}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  try {
    // Taken before the file is opened: a process killed (SIGKILL) while it works leaves no temporary file.
    const data = run.createCachedData();
    let fd: number;
    try {
      fd = openSync(temp, 'wx', 0o644);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return false;
      (require('node:fs') as typeof import('node:fs')).mkdirSync(dir, { mode: 0o755 });
      fd = openSync(temp, 'wx', 0o644);
    }
    try {
      writeSync(fd, data);
      writeSync(fd, trailerOf(tags));
    } finally {
      closeSync(fd);
    }
    renameSync(temp, cacheFile);
    pruneCaches(dir, name);
    return true;
  } catch {
    // A read-only install, a full disk, a race with another process: this start stays uncached.
    try {
      unlinkSync(temp);
    } catch {
      // Not created.
    }
    return false;
  }
}

/** V8's data and the tags of a cache file's contents; undefined when it does not end in {@link FORMAT}'s trailer. */
function readTrailer(file: Buffer): { data: Buffer; tags: ReadonlySet<string> } | undefined {
  if (file.length < 4 || file[file.length - 1] !== FORMAT) return undefined;
  const length = file.readUInt16LE(file.length - 3);
  const end = file.length - 3 - length;
  if (end < 1) return undefined;
  const tags = file
    .toString('latin1', end, end + length)
    .split(',')
    .filter((t) => t !== '');
  return { data: file.subarray(0, end), tags: new Set(tags) };
}

/**
 * The trailer {@link readTrailer} reads, `tags` sorted. Tags are package names that instrumentations register, so a
 * few KiB at most; past 64 KiB (which its length cannot say) it holds none.
 */
function trailerOf(tags: ReadonlySet<string>): Buffer {
  const text = Buffer.from([...tags].sort().join(','), 'latin1');
  const length = text.length <= 0xffff ? text.length : 0;
  const trailer = Buffer.alloc(length + 3);
  text.copy(trailer, 0, 0, length);
  trailer.writeUInt16LE(length, length);
  trailer[length + 2] = FORMAT;
  return trailer;
}

/** A file's modification time (ms); +∞ for one gone since the folder was read (so it is never pruned). */
function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Infinity;
  }
}

/**
 * Keeps the {@link MAX_CACHES} newest caches of `name`, and deletes its temporary files older than
 * {@link STALE_TEMP_MS}: those of writers killed between opening and renaming (others' writes in progress are left).
 */
function pruneCaches(dir: string, name: string): void {
  const ours = readdirSync(dir)
    .filter((file) => file.startsWith(`${name}-`) && /^[0-9a-f]{16}-v/.test(file.slice(name.length + 1)))
    .map((file) => ({ file, path: join(dir, file), mtime: mtimeOf(join(dir, file)) }));
  const caches = ours.filter((c) => c.file.endsWith('.v8')).sort((a, b) => b.mtime - a.mtime);
  const stale = Date.now() - STALE_TEMP_MS;
  for (const { path } of [...caches.slice(MAX_CACHES), ...ours.filter((t) => t.file.endsWith('.tmp') && t.mtime < stale)]) {
    try {
      unlinkSync(path);
    } catch {
      // Another process pruned it first.
    }
  }
}
