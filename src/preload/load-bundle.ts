import { closeSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import Module from 'node:module';
import { basename, dirname, join } from 'node:path';
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

/** A file compiled through `vm.Script` with the code cache found for it, and where that cache lives. */
interface Compiled {
  /** What its caches are named by: `preload`, or the bundled instrumentation's name (`pg`). */
  name: string;
  run: vm.Script;
  cacheFile: string;
  /** The cache V8 was given (without its last byte), if any. */
  cached: Buffer | undefined;
  /** That cache was taken after the first span ended. */
  served: boolean;
}

/**
 * Loads dist/preload.bundle.js (`bundle`, an absolute path) as `require()` would, compiled with a V8
 * code cache when one is there: the functions the preload runs at startup come compiled instead of
 * parsed and compiled again in every process and worker thread (≈ 10-15 ms of startup). The cache is
 * the one `vm.Script#createCachedData()` produced after an earlier start, in `<bundle folder>/compile-cache/`,
 * one file per bundle build, Node.js version, architecture and Node.js flags (V8 rejects a cache made under
 * other flags), at most {@link MAX_CACHES} files per bundle (≈ 0.5 MiB each). It lives beside the bundle because only
 * a folder that may change the bundle may change its compiled form: a cache in a shared temporary folder
 * would let another user put code into this process. A missing or rejected cache is written once startup
 * is done (after `setImmediate`, atomically: a temporary file renamed), and once more, if it was not already,
 * in the turn after the first span ended (so it also holds the functions of the request path); a folder that
 * cannot be written (a read-only install) leaves the preload uncached, never failing.
 * Without `vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER` (Node.js < 20.12; the bundle's `import()` needs it),
 * or when anything here fails, the bundle is `require`d as before.
 * Also sets `loadCompiled` in the preload state, for the lazily loaded instrumentations' bundles.
 * @throws only what evaluating the bundle throws (as `require` would)
 */
export function loadPreloadBundle(bundle: string): PreloadBundle {
  const compiled = compile(bundle, 'preload', true);
  if (!compiled) return require(bundle) as PreloadBundle;
  const state = getPreloadState();
  // The bundle's own import() would go through vm's main-context loader and print an ExperimentalWarning.
  state.importModule = (specifier) => import(specifier);
  state.loadCompiled = loadCompiledFile;
  const exports = runAsModule(bundle, compiled.run) as PreloadBundle;
  const usable = compiled.cached !== undefined && compiled.run.cachedDataRejected !== true;
  if (!usable) setImmediate(writeCache, compiled, START);
  if (!usable || !compiled.served) state.afterFirstSpan = () => writeCache(compiled, SERVED);
  return exports;
}

/**
 * `require(file)` for one of the build's own bundles that loads after startup (an instrumentation of
 * dist/instrumentations/bundled/, as the app first loads its package), compiled with a V8 code cache as
 * {@link loadPreloadBundle} does: ≈ 1.5 ms less for pg's. Its cache, in `<file folder>/compile-cache/<name>-…`,
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
  if (compiled.cached === undefined || compiled.run.cachedDataRejected === true) setImmediate(writeCache, compiled, START);
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
    if (useMainLoader === undefined || (Module as unknown as ModuleInternals)._cache[file]) return undefined;
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
    const cached = data !== undefined && data.length > 1 ? data.subarray(0, data.length - 1) : undefined;
    const run = new vm.Script(Module.wrap(source), { filename: file, cachedData: cached, importModuleDynamically: useMainLoader as never });
    return { name, run, cacheFile, cached, served: data?.[data.length - 1] === SERVED };
  } catch {
    return undefined;
  }
}

/** Runs a compiled CommonJS wrapper as `require()` would run `file`: in `require.cache` while it runs, and after. */
function runAsModule(file: string, run: vm.Script): unknown {
  const internals = Module as unknown as ModuleInternals;
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

function writeCache({ name, run, cacheFile }: Compiled, stage: typeof START | typeof SERVED): void {
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
    pruneCaches(dir, name);
  } catch {
    // A read-only install, a full disk, a race with another process: this start stays uncached.
    try {
      unlinkSync(temp);
    } catch {
      // Not created.
    }
  }
}

/** Keeps the {@link MAX_CACHES} newest caches of `name` (and leaves others' temporary files alone). */
function pruneCaches(dir: string, name: string): void {
  const caches = readdirSync(dir)
    .filter((file) => file.endsWith('.v8') && file.startsWith(`${name}-`) && /^[0-9a-f]{16}-v/.test(file.slice(name.length + 1)))
    .map((file) => ({ path: join(dir, file), mtime: statSync(join(dir, file)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of caches.slice(MAX_CACHES)) unlinkSync(old.path);
}
