import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

let root: string | undefined;

/**
 * The directory of this package's package.json. Self-reference (`@tracehook/register/...`) cannot
 * be used from dist/, whose own package.json (marking it CommonJS) has no name, and this code runs
 * both from dist/<folder>/ and from the preload bundle in dist/, so the root is found by walking up.
 */
export function packageRoot(): string {
  if (root) return root;
  let dir = __dirname;
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === '@tracehook/register') return (root = dir);
    const up = dirname(dir);
    if (up === dir) return (root = join(__dirname, '..'));
    dir = up;
  }
}

/** Absolute path of `register.cjs`, the `--require` entry: a child resolves it from any directory. */
export function registerCjsPath(): string {
  return join(packageRoot(), 'register.cjs');
}

/** `file:` URL of `register.mjs`, the `--import` entry. */
export function registerMjsUrl(): string {
  return pathToFileURL(join(packageRoot(), 'register.mjs')).href;
}

/**
 * The absolute preload flag pair, so a child resolves the preload from any working directory:
 * `['--require', <register.cjs path>]` or `['--import', <register.mjs file: URL>]`.
 */
export function preloadFlags(requireForm: boolean): [string, string] {
  return requireForm ? ['--require', registerCjsPath()] : ['--import', registerMjsUrl()];
}
