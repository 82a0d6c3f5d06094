import { readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { BundledModuleInfo } from './channel.js';

const NODE_MODULES = `${sep}node_modules${sep}`;

interface PackageJson {
  name?: unknown;
  version?: unknown;
  type?: unknown;
  main?: unknown;
  module?: unknown;
  exports?: unknown;
}

/** What one package folder says, read once per build. */
interface PackageFacts {
  version: string | undefined;
  esm: boolean;
  /** The files its name may resolve to (`main`, `module`, and every target of `exports['.']`), relative, `/`-separated. */
  mainFiles: Set<string>;
}

/**
 * Reads, at build time, what a bundled file of an installed package is: its package, the package's version and whether
 * it is the package's main file, from the package's own package.json. One instance per build (it caches each
 * package.json it read). Never throws: a file it cannot place gives undefined.
 */
export class PackageInfo {
  private readonly packages = new Map<string, PackageFacts | undefined>();

  /**
   * @param file - absolute path of the file being bundled
   * @returns undefined outside a `node_modules` folder or when the package.json is unreadable
   */
  of(file: string): (BundledModuleInfo & { root: string }) | undefined {
    const at = file.lastIndexOf(NODE_MODULES);
    if (at === -1) return undefined;
    const rest = file.slice(at + NODE_MODULES.length).split(sep);
    const size = rest[0].startsWith('@') ? 2 : 1;
    if (rest.length <= size) return undefined;
    const name = rest.slice(0, size).join('/');
    const root = file.slice(0, at + NODE_MODULES.length) + rest.slice(0, size).join(sep);
    const facts = this.factsOf(root);
    if (facts === undefined) return undefined;
    const path = rest.slice(size).join('/');
    return { name, root, version: facts.version, path, main: facts.mainFiles.has(path), esm: isEsFile(path, facts.esm) };
  }

  private factsOf(root: string): PackageFacts | undefined {
    if (this.packages.has(root)) return this.packages.get(root);
    let facts: PackageFacts | undefined;
    try {
      const json = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
      facts = { version: typeof json.version === 'string' ? json.version : undefined, esm: json.type === 'module', mainFiles: mainFilesOf(root, json) };
    } catch {
      facts = undefined;
    }
    this.packages.set(root, facts);
    return facts;
  }
}

/** Whether `path` is an ES module: `.mjs`, or `.js` in a package of `"type": "module"`. */
function isEsFile(path: string, packageIsEsm: boolean): boolean {
  if (path.endsWith('.mjs')) return true;
  if (path.endsWith('.cjs')) return false;
  return packageIsEsm;
}

/**
 * The files the package's name may resolve to, under any bundler's conditions and main fields: `main` (default
 * `index.js`), `module`, and every string under `exports` for `.` (or `exports` itself when it has no subpaths),
 * each completed as Node.js completes `main` (`./lib` → `lib/index.js`).
 */
function mainFilesOf(root: string, json: PackageJson): Set<string> {
  const targets: string[] = [];
  targets.push(typeof json.main === 'string' ? json.main : 'index.js');
  if (typeof json.module === 'string') targets.push(json.module);
  const exports = json.exports;
  const dot = exports !== null && typeof exports === 'object' && Object.keys(exports).some((k) => k.startsWith('.')) ? (exports as Record<string, unknown>)['.'] : exports;
  collectStrings(dot, targets);
  const files = new Set<string>();
  for (const t of targets) {
    const file = completeFile(root, t.replace(/^\.?\//, '').replace(/\/$/, ''));
    if (file !== undefined) files.add(file);
  }
  return files;
}

function collectStrings(value: unknown, into: string[]): void {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const v of value) collectStrings(v, into);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) collectStrings(v, into);
}

/** `lib` → `lib/index.js`, `lib/index` → `lib/index.js`, as Node.js resolves a `main`; undefined when no file is there. */
function completeFile(root: string, relative: string): string | undefined {
  const candidates = relative === '' ? ['index.js'] : [relative, `${relative}.js`, `${relative}.json`, `${relative}/index.js`];
  for (const c of candidates) {
    if (statSync(join(root, ...c.split('/')), { throwIfNoEntry: false })?.isFile()) return c;
  }
  return undefined;
}
