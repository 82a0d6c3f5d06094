import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Resolves `specifier` (a package name) as the app would: from the working directory, then from the
 * directory of the app's entry file (`process.argv[1]`), so packages the app installed itself are
 * found even when tracehook is installed elsewhere (`npm link`, a global install, `npm install <folder>`).
 * @returns the resolved file, or undefined when the app cannot resolve it (the caller then falls back
 *   to tracehook's own resolution)
 */
export function resolveFromApp(specifier: string, cwd = process.cwd(), entry = process.argv[1]): string | undefined {
  const bases = [join(cwd, 'noop.js')];
  if (entry) bases.push(join(dirname(entry), 'noop.js'));
  for (const base of bases) {
    try {
      return createRequire(base).resolve(specifier);
    } catch {
      // Not resolvable from there (or ESM-only: no `require` condition).
    }
  }
  return undefined;
}
