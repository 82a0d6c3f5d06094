import { closeSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { isMainThread } from '../workers/thread.js';
import { logWarn } from '../diag/logger.js';
import { MODULE_LOAD_CHANNEL } from './channel.js';
import { instrumentedPackages } from './module-list.js';

const MARKER = 'node_modules/';
const AT = 0x40;

/**
 * Libraries whose bundled copy is traced without the plugin when it publishes its own diagnostics channel: the
 * channel's name in the bundle says it does (Fastify 5's `tracingChannel('fastify.request.handler')`, ioredis ≥ 5.11's
 * `ioredis:command`, mysql2 ≥ 3.20's `mysql2:query`: src/instrumentations/channels/; Fastify 4 and older ioredis and
 * mysql2, which have none, need the plugin).
 */
const OWN_CHANNELS: Readonly<Record<string, string>> = { fastify: 'fastify.request.handler', ioredis: 'ioredis:command', mysql2: 'mysql2:query' };

/** Larger entry files are not read (a bundle of that size is rare; reading it would cost startup time); the bound holds for the entry and its chunks together. */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;
/**
 * What esbuild, webpack and Rollup's CommonJS plugin put in a bundle's entry: their helpers' names (esbuild's
 * `require_<module>` functions included) or an import of an esbuild chunk (`./chunk-<hash>.mjs`).
 */
const BUNDLER_RUNTIME = /\b(?:__commonJS|__toESM|__require|__webpack_require__|getDefaultExportFromCjs|commonjsRequire|require_[\w$]+)\b|["']\.\/chunk-[\w-]+\.[cm]?js["']/;
/** The most chunk files read beside a bundle's entry. */
const MAX_CHUNKS = 16;

/**
 * Tells the user, in one stderr line, when the app's entry file is a bundle that carries libraries the preload would
 * trace but was built without a tracehook bundler plugin: those libraries then run untraced. Checked once per
 * process (main thread), after the entry's first synchronous run (`setImmediate`, unref'd: never keeps the process
 * alive), only for an entry outside `node_modules`. A bundle is recognised by the module ids bundlers leave in it:
 * `node_modules/pg/` (esbuild's `__commonJS` keys and comments, webpack's development ids, Rollup's comments); a
 * bundle built with a plugin carries {@link MODULE_LOAD_CHANNEL}'s name. Silent when all is well, on any error, and
 * for builds that keep no ids (webpack's production numeric ids). Cost: one read of the entry file (and of the chunks
 * it imports when it has no module ids itself) and one pass over the module ids in them (docs/bundlers.md gives the figure for a 5 MB bundle).
 * @param instrumentations - the enabled instrumentation names (`http` covers tracehook's route hook)
 * @param entry - the app's entry file; default `process.argv[1]`
 */
export function checkBundleForPlugin(instrumentations: readonly string[], entry = process.argv[1]): void {
  if (!isMainThread || typeof entry !== 'string' || entry.includes(`${sep}node_modules${sep}`)) return;
  setImmediate(() => {
    try {
      const missing = librariesWithoutPlugin(entry, instrumentations);
      if (missing.length > 0) {
        logWarn(
          'bundler',
          `${entry} is a bundle with ${missing.join(', ')} inside, built without tracehook's bundler plugin: they run untraced; add the plugin to the bundler's configuration (esbuild: plugins: [tracehook()] from '@tracehook/register/esbuild'; webpack: new TracehookWebpackPlugin() from '@tracehook/register/webpack'; Rollup and Vite: tracehook() from '@tracehook/register/rollup'; README, "Bundled apps")`,
        );
      }
    } catch {
      // No entry file to read (`node -e`, a REPL), or it went away: nothing to tell.
    }
  }).unref();
}

/**
 * The instrumented libraries whose module ids `entry` carries when it carries no sign of the plugin. An entry without
 * module ids but a bundler's helpers is read with the files it imports by a relative path (at most {@link MAX_CHUNKS}): the chunks of a
 * code-split build, where the libraries are.
 * @returns package names (sorted, each once); empty for a file that is not a bundle, or one built with the plugin
 */
export function librariesWithoutPlugin(entry: string, instrumentations: readonly string[]): string[] {
  const file = realpathSync(entry);
  const first = readLatin1(file, MAX_ENTRY_BYTES);
  if (first === undefined) return [];
  const texts = [first];
  if (!first.includes(MARKER) && BUNDLER_RUNTIME.test(first)) {
    let budget = MAX_ENTRY_BYTES - first.length;
    for (const chunk of relativeImports(first).slice(0, MAX_CHUNKS)) {
      const text = readLatin1(resolve(dirname(file), chunk), budget);
      if (text === undefined) break;
      budget -= text.length;
      texts.push(text);
    }
  }
  // Most entries are no bundle: no module id, nothing more to read (the module list included).
  if (!texts.some((t) => t.includes(MARKER)) || texts.some((t) => t.includes(MODULE_LOAD_CHANNEL))) return [];
  const wanted = new Set(instrumentedPackages().flatMap((p) => (instrumentations.includes(p.instrumentation) ? [p.name] : [])));
  const names = new Set<string>();
  const traced = new Set<string>();
  for (const text of texts) {
    // One pass over the module ids (`node_modules/<name>/`, `node_modules/@scope/name/`), not one search of the
    // whole text per package.
    for (let at = text.indexOf(MARKER); at !== -1; at = text.indexOf(MARKER, at + MARKER.length)) {
      const start = at + MARKER.length;
      let end = text.indexOf('/', start);
      if (end !== -1 && text.charCodeAt(start) === AT) end = text.indexOf('/', end + 1);
      if (end === -1 || end - start > 214) continue;
      const name = text.slice(start, end);
      if (!wanted.has(name) || names.has(name) || traced.has(name)) continue;
      // Once per library, not per module id: a release with its own channel is traced without the plugin.
      if (name in OWN_CHANNELS && texts.some((t) => t.includes(OWN_CHANNELS[name]))) traced.add(name);
      else names.add(name);
    }
  }
  return [...names].sort();
}

/** `file` as latin1 text (one byte per character, no decoding: module ids are ASCII); undefined when larger than `limit` bytes. */
function readLatin1(file: string, limit: number): string | undefined {
  const size = statSync(file).size;
  if (size > limit) return undefined;
  const buffer = Buffer.allocUnsafe(size);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buffer, 0, size, 0);
  } finally {
    closeSync(fd);
  }
  return buffer.toString('latin1');
}

/** The relative paths of JavaScript files `text` imports or requires statically (`from "./chunk-X.mjs"`, `require("./a.js")`). */
function relativeImports(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:\bfrom|\bimport|\brequire\()\s*["'](\.\.?\/[^"'\n]+\.[cm]?js)["']/g)) found.add(m[1]);
  return [...found];
}
