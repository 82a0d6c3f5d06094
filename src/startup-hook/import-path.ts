import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError } from '../config/config-error.js';
import { packageRoot } from '../package-root.js';
import { getPreloadState } from '../state.js';
import { resolveFromApp } from './resolve-from-app.js';

/**
 * A parsed `module:attribute` import path, Ray's `--tracing-startup-hook` syntax.
 * `module` is a package name, a path relative to the working directory (beginning with `./` or `../`),
 * an absolute path or a `file:` URL; `attribute` is a property name, possibly dotted (`a.b`).
 * @see Ray docs, "Tracing" (https://docs.ray.io/en/latest/ray-observability/user-guides/ray-tracing.html), "Tracing startup hook"
 */
export interface ImportPath {
  module: string;
  attribute: string[];
}

/** What a hook's module may be, for the error when it cannot be loaded. */
const IMPORTABLE = 'a module that can be imported: a package the app installed, or a path (`./file.mjs`, absolute, `file:`)';

const ATTRIBUTE = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

/**
 * Splits `module:attribute` at its last colon (a `file:` URL or a Windows drive keeps its own).
 * @throws ConfigError naming `variable` when the syntax is wrong.
 */
export function parseImportPath(variable: string, value: string): ImportPath {
  const colon = value.lastIndexOf(':');
  const module = value.slice(0, colon);
  const attribute = value.slice(colon + 1);
  if (colon <= 0 || !ATTRIBUTE.test(attribute) || module === 'file') {
    throw new ConfigError(variable, value, '`module:attribute`, e.g. `./tracing.mjs:setupTracing` or `my-pkg:hooks.setup`');
  }
  return { module, attribute: attribute.split('.') };
}

/**
 * Where the module of an import path is loaded from, as a URL or specifier `import()` accepts: a path
 * the user named (`./` or `../` relative to `cwd`, absolute, a `file:` URL), or a package resolved as
 * the app's own imports are ({@link resolveFromApp}: its entry file's directory and that directory's ancestors, never the
 * working directory's nor `NODE_PATH`; `@tracehook/register/…` from this copy of tracehook), else left to `import()`
 * from here: ESM-only packages (no `require` condition).
 */
export function moduleUrl(module: string, cwd: string): string {
  if (module.startsWith('file:')) return module;
  if (isAbsolute(module)) return pathToFileURL(module).href;
  if (isRelativePath(module)) return pathToFileURL(resolve(cwd, module)).href;
  const resolved = ownFile(module) ?? resolveFromApp(module);
  return resolved ? pathToFileURL(resolved).href : module;
}

/** `@tracehook/register/…` as this copy of tracehook resolves it (self-reference through its package.json `exports`). */
function ownFile(module: string): string | undefined {
  if (!module.startsWith(`${OWN_NAME}/`)) return undefined;
  try {
    return createRequire(join(packageRoot(), 'noop.js')).resolve(module);
  } catch {
    return undefined;
  }
}

const OWN_NAME = '@tracehook/register';

/** `.`, `..`, `./x`, `../x` (and `.\\x` on Windows): a path, where a bare `x` names a package. */
function isRelativePath(module: string): boolean {
  return module === '.' || module === '..' || /^\.\.?[\\/]/.test(module);
}

/**
 * Imports the module of `value` and returns the function at its attribute.
 * @throws ConfigError naming `variable` when the module cannot be loaded, the attribute is
 *   missing or it is not a function.
 */
export async function importFunction(variable: string, value: string, cwd = process.cwd()): Promise<(...args: unknown[]) => unknown> {
  const path = parseImportPath(variable, value);
  let target: unknown;
  try {
    const url = moduleUrl(path.module, cwd);
    const importModule = getPreloadState().importModule;
    target = await (importModule ? importModule(url) : import(url));
  } catch (err) {
    throw new ConfigError(variable, value, IMPORTABLE, (err as Error).message?.split('\n')[0]);
  }
  return pickFunction(variable, value, path, target);
}

/**
 * The function at `path.attribute` of a loaded module's exports `target`.
 * @throws ConfigError naming `variable` when the attribute is missing or not a function.
 */
export function pickFunction(variable: string, value: string, path: ImportPath, target: unknown): (...args: unknown[]) => unknown {
  for (const [i, key] of path.attribute.entries()) {
    let next = (target as Record<string, unknown> | undefined)?.[key];
    // A CJS module imported from ESM has its exports under `default` as well.
    if (next === undefined && i === 0) next = (target as { default?: Record<string, unknown> }).default?.[key];
    if (next === undefined) {
      throw new ConfigError(variable, value, `a module that exports \`${path.attribute.join('.')}\``, `\`${path.attribute.slice(0, i + 1).join('.')}\` is missing`);
    }
    target = next;
  }
  if (typeof target !== 'function') {
    throw new ConfigError(variable, value, 'an attribute that is a function', `it is ${target === null ? 'null' : typeof target}`);
  }
  return target as (...args: unknown[]) => unknown;
}

/**
 * The function of an import path loaded with `require()`, or undefined when its module cannot be loaded so
 * (a bare specifier only `import()` resolves, top-level await, a Node without `require(esm)`):
 * then `import()` loads it and reports any error.
 * @throws ConfigError for a bad `module:attribute` or a missing attribute
 */
export function requireFunction(variable: string, value: string): ((...args: unknown[]) => unknown) | undefined {
  const path = parseImportPath(variable, value);
  const url = moduleUrl(path.module, process.cwd());
  if (!url.startsWith('file:')) return undefined;
  const file = fileURLToPath(url);
  if (file.endsWith('.mjs') && !(process.features as { require_module?: boolean }).require_module) return undefined;
  let target: unknown;
  try {
    target = require(file);
  } catch (err) {
    // Only "this module needs import()": any other error is the module's own, and loading it
    // again through import() would run its side effects twice.
    if (IMPORT_ONLY.has((err as { code?: string }).code ?? '')) return undefined;
    throw new ConfigError(variable, value, IMPORTABLE, (err as Error).message?.split('\n')[0]);
  }
  return pickFunction(variable, value, path, target);
}

/** Errors of `require()` for modules that only `import()` loads (ES modules on older Node, top-level await, other file types). */
const IMPORT_ONLY = new Set(['ERR_REQUIRE_ESM', 'ERR_REQUIRE_ASYNC_MODULE', 'ERR_REQUIRE_CYCLE_MODULE', 'ERR_UNKNOWN_FILE_EXTENSION', 'MODULE_NOT_FOUND']);
