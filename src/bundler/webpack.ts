import { ModuleSelection } from './module-list.js';
import { PackageInfo } from './package-info.js';
import type { LoaderOptions } from './webpack-loader.js';
import { ORIGINAL_QUERY } from './webpack-loader.js';

/** The parts of webpack's API this plugin uses (webpack is the user's, not a dependency of tracehook). */
interface LoaderItem {
  loader: string;
  options?: unknown;
  ident?: string | null;
  type?: string | null;
}
interface NormalModule {
  resource?: string;
  resourceResolveData?: { path?: string; query?: string };
}
interface Compilation {
  warnings: Error[];
}
interface Compiler {
  webpack: {
    NormalModule: { getCompilationHooks(compilation: Compilation): { beforeLoaders: Hook<[LoaderItem[], NormalModule]> } };
    WebpackError: new (message: string) => Error;
  };
  options: { optimization?: { minimize?: boolean; minimizer?: unknown[]; minimizeOptions?: { javascript?: Record<string, unknown> | false } } };
  hooks: { thisCompilation: Hook<[Compilation]> };
}
interface Hook<Args extends unknown[]> {
  tap(name: string, callback: (...args: Args) => void): void;
}

const NAME = 'tracehook';
const LOADER = require.resolve('./webpack-loader.js');

/**
 * The webpack 5 plugin of `@tracehook/register/webpack`: `plugins: [new TracehookWebpackPlugin()]` (Next.js:
 * `webpack: (config) => { config.plugins.push(new TracehookWebpackPlugin()); return config; }`). Each bundled file of
 * a package an instrumentation patches (its main file, and the files patched by path: `pg/lib/client.js`) gets a
 * loader that compiles it with a few lines after its own code which, under the tracehook preload, hand its exports
 * and its package's version to the preload, which patches them as it would the same package loaded from
 * `node_modules` (src/bundler/wrap-code.ts, docs/bundlers.md). Without the preload the exports are untouched and each
 * such module pays one `hasSubscribers` check. Reads only the bundled packages' own package.json; loads no code.
 *
 * CommonJS and ES-module files, every output format, code splitting. A minified build needs names kept
 * (`optimization.minimizeOptions.javascript: { keep_classnames: true, keep_fnames: true }`, or the same terser options
 * of a minimizer of your own): minimizing with webpack's default options gives the build a warning.
 */
export class TracehookWebpackPlugin {
  /** Called by webpack once per compiler. */
  apply(compiler: Compiler): void {
    const selection = new ModuleSelection();
    const filter = selection.pathFilter();
    compiler.hooks.thisCompilation.tap(NAME, (compilation) => {
      const packages = new PackageInfo();
      if (minifiesNames(compiler.options.optimization)) {
        compilation.warnings.push(
          new compiler.webpack.WebpackError(
            'tracehook: minified without kept names: some libraries may lose their spans or route names in the bundle; set optimization.minimizeOptions.javascript to { keep_classnames: true, keep_fnames: true }',
          ),
        );
      }
      compiler.webpack.NormalModule.getCompilationHooks(compilation).beforeLoaders.tap(NAME, (loaders, module) => {
        const data = module.resourceResolveData;
        const path = data?.path ?? module.resource?.split('?')[0];
        if (path === undefined || data?.query === ORIGINAL_QUERY || !filter.test(path)) return;
        const info = packages.of(path);
        if (info === undefined || !selection.wants(info.name, info.path, info.main) || !/\.[cm]?js$/.test(info.path)) return;
        const options: LoaderOptions = { name: info.name, version: info.version, path: info.path, main: info.main, esm: info.esm };
        // First in the list, so it runs last: it wraps what the other loaders made of the file.
        loaders.unshift({ loader: LOADER, options, ident: null, type: null });
      });
    });
  }
}

/**
 * Whether webpack's own minimizer (the plain object webpack puts in `optimization.minimizer`) will run with options
 * that rename functions and classes. A minimizer of the user's own (a class instance) is theirs to configure.
 */
function minifiesNames(optimization: Compiler['options']['optimization']): boolean {
  if (!optimization?.minimize) return false;
  if (optimization.minimizer?.some((m) => m !== '...' && Object.getPrototypeOf(m) !== Object.prototype)) return false;
  const js = optimization.minimizeOptions?.javascript;
  if (js === false) return false;
  return !(js && js.keep_classnames === true && js.keep_fnames === true);
}

/** `new (require('@tracehook/register/webpack'))()` and `tracehook()` both work: a plugin, new each call. */
export function tracehook(): TracehookWebpackPlugin {
  return new TracehookWebpackPlugin();
}

export default TracehookWebpackPlugin;
