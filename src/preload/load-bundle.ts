import { closeSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join } from 'node:path';
import vm from 'node:vm';
import { getPreloadState } from '../state.js';

/** What {@link loadPreloadBundle} returns: the bundle's exports (its `start`, `shouldStart` …). */
export type PreloadBundle = typeof import('./start.js');

/** V8 code caches kept in the cache folder, newest first; older ones are deleted when one is written. */
const MAX_CACHES = 8;
/**
 * The last byte of a cache file, after V8's data: when it was taken. `START`: once startup was done; `SERVED`: once
 * a span had also ended, so it holds what a request compiles too (≈ 2 ms of a server's first request).
 */
const START = 0;
const SERVED = 1;
/** The last line scripts/bundle.mjs appends to the bundle: `//# tracehook-bundle-id=<hex>`. */
const BUNDLE_ID = /\/\/# tracehook-bundle-id=([0-9a-f]{16,64})\s*$/;

interface ModuleInternals {
  _cache: Record<string, Module>;
  _nodeModulePaths(from: string): string[];
}

/**
 * Loads dist/preload.bundle.js (`bundle`, an absolute path) as `require()` would, compiled with a V8
 * code cache when one is there: the functions the preload runs at startup come compiled instead of
 * parsed and compiled again in every process and worker thread (≈ 10-15 ms of startup). The cache is
 * the one `vm.Script#createCachedData()` produced after an earlier start, in `<bundle folder>/compile-cache/`,
 * one file per bundle build, Node.js version, architecture and Node.js flags (V8 rejects a cache made under
 * other flags), at most {@link MAX_CACHES} files (≈ 0.5 MiB each). It lives beside the bundle because only
 * a folder that may change the bundle may change its compiled form: a cache in a shared temporary folder
 * would let another user put code into this process. A missing or rejected cache is written once startup
 * is done (after `setImmediate`, atomically: a temporary file renamed), and once more, if it was not already,
 * in the turn after the first span ended (so it also holds the functions of the request path); a folder that
 * cannot be written (a read-only install) leaves the preload uncached, never failing.
 * Without `vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER` (Node.js < 20.12; the bundle's `import()` needs it),
 * or when anything here fails, the bundle is `require`d as before.
 * @throws only what evaluating the bundle throws (as `require` would)
 */
export function loadPreloadBundle(bundle: string): PreloadBundle {
  const useMainLoader = (vm.constants as { USE_MAIN_CONTEXT_DEFAULT_LOADER?: unknown } | undefined)?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  const internals = Module as unknown as ModuleInternals;
  let compiled: { run: vm.Script; cacheFile: string; cached: Buffer | undefined; served: boolean } | undefined;
  try {
    if (useMainLoader === undefined || internals._cache[bundle]) throw new Error('plain require');
    const source = readFileSync(bundle, 'latin1');
    const cacheFile = cacheFileOf(bundle, source);
    // No id: not a bundle scripts/bundle.mjs finished (it also makes the text ASCII, so latin1 reads it exactly).
    if (!cacheFile) throw new Error('plain require');
    let file: Buffer | undefined;
    try {
      file = readFileSync(cacheFile);
    } catch {
      // No cache yet.
    }
    const cached = file !== undefined && file.length > 1 ? file.subarray(0, file.length - 1) : undefined;
    const run = new vm.Script(Module.wrap(source), { filename: bundle, cachedData: cached, importModuleDynamically: useMainLoader as never });
    compiled = { run, cacheFile, cached, served: file?.[file.length - 1] === SERVED };
  } catch {
    return require(bundle) as PreloadBundle;
  }
  // The bundle's own import() would go through vm's main-context loader and print an ExperimentalWarning.
  getPreloadState().importModule = (specifier) => import(specifier);
  const mod = new Module(bundle, module);
  mod.filename = bundle;
  mod.paths = internals._nodeModulePaths(dirname(bundle));
  internals._cache[bundle] = mod;
  try {
    const wrapper = compiled.run.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(mod.exports, mod.exports, Module.createRequire(bundle), mod, bundle, dirname(bundle));
  } catch (err) {
    delete internals._cache[bundle];
    throw err;
  }
  mod.loaded = true;
  const { run, cacheFile, cached, served } = compiled;
  const usable = cached !== undefined && run.cachedDataRejected !== true;
  if (!usable) setImmediate(writeCache, run, cacheFile, START);
  if (!usable || !served) getPreloadState().afterFirstSpan = () => writeCache(run, cacheFile, SERVED);
  return mod.exports as PreloadBundle;
}

/** `<folder>/compile-cache/preload-<bundle id>-<node version>-<arch>-<flags hash>.v8`; undefined for a bundle without an id. */
function cacheFileOf(bundle: string, source: string): string | undefined {
  const id = BUNDLE_ID.exec(source.slice(-100))?.[1];
  if (!id) return undefined;
  const flags = fnv1a(v8RelevantFlags([...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]).join('\0'));
  return join(dirname(bundle), 'compile-cache', `preload-${id.slice(0, 16)}-${process.version}-${process.arch}-${flags}.v8`);
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

function writeCache(run: vm.Script, cacheFile: string, stage: typeof START | typeof SERVED): void {
  const dir = dirname(cacheFile);
  const temp = `${cacheFile}.${process.pid}.${Date.now()}.tmp`;
  try {
    const data = run.createCachedData();
    let fd: number;
    try {
      fd = openSync(temp, 'wx', 0o644);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return;
      (require('node:fs') as typeof import('node:fs')).mkdirSync(dir, { mode: 0o755 });
      fd = openSync(temp, 'wx', 0o644);
    }
    try {
      writeSync(fd, data);
      writeSync(fd, new Uint8Array([stage]));
    } finally {
      closeSync(fd);
    }
    renameSync(temp, cacheFile);
    pruneCaches(dir);
  } catch {
    // A read-only install, a full disk, a race with another process: this start stays uncached.
    try {
      unlinkSync(temp);
    } catch {
      // Not created.
    }
  }
}

/** Keeps the {@link MAX_CACHES} newest caches (and leaves others' temporary files alone). */
function pruneCaches(dir: string): void {
  const caches = readdirSync(dir)
    .filter((name) => name.endsWith('.v8'))
    .map((name) => ({ path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of caches.slice(MAX_CACHES)) unlinkSync(old.path);
}
