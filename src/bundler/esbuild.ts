import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ModuleSelection } from './module-list.js';
import { PackageInfo } from './package-info.js';
import { hasDefaultExport, looksLikeEsModule, wrapCommonJs, wrapEsModule } from './wrap-code.js';

/** The part of esbuild's plugin API this plugin uses (esbuild is the user's, not a dependency of tracehook). */
interface EsbuildBuild {
  initialOptions: { minify?: boolean; minifyIdentifiers?: boolean; keepNames?: boolean };
  onStart(callback: () => { warnings?: Array<{ text: string }> } | undefined): void;
  onResolve(options: { filter: RegExp; namespace?: string }, callback: (args: { path: string }) => { path: string; namespace: string } | undefined): void;
  onLoad(options: { filter: RegExp; namespace?: string }, callback: (args: { path: string }) => Promise<{ contents: string; loader: 'js'; resolveDir: string } | undefined>): void;
}

/** An esbuild plugin, as `plugins: [tracehook()]` takes it. */
export interface EsbuildPlugin {
  name: string;
  setup(build: EsbuildBuild): void;
}

/** The namespace and import prefix under which the wrapper of an ES module imports the module's own text. */
const ORIGINAL = 'tracehook-original';

/**
 * The esbuild plugin of `@tracehook/register/esbuild`: `esbuild.build({ …, plugins: [tracehook()] })`. Each bundled
 * file of a package an instrumentation patches (its main file, and the files patched by path: `pg/lib/client.js`) is
 * compiled with a few lines after its own code that, when the app runs under the tracehook preload, hand its exports
 * and its package's version to the preload, which patches them as it would the same package loaded from
 * `node_modules` (docs/bundlers.md). Without the preload the exports are untouched and each such module pays one
 * `hasSubscribers` check. Reads only the bundled packages' own files and package.json; loads no code.
 *
 * CommonJS and ES-module files, every output format, code splitting. Minified builds need `keepNames: true`
 * (instrumentations and tracehook's route hook find some functions and classes by name): without it the build gets a
 * warning.
 * @returns a new plugin (state per build: the package.json files read)
 */
export function tracehook(): EsbuildPlugin {
  return {
    name: 'tracehook',
    setup(build) {
      const selection = new ModuleSelection();
      const packages = new PackageInfo();
      const { minify, minifyIdentifiers, keepNames } = build.initialOptions;
      build.onStart(() =>
        (minify || minifyIdentifiers) && !keepNames
          ? { warnings: [{ text: 'tracehook: minified without keepNames: some libraries may lose their spans or route names in the bundle; add keepNames: true (--keep-names)' }] }
          : undefined,
      );
      build.onResolve({ filter: new RegExp(`^${ORIGINAL}:`) }, (args) => ({ path: args.path.slice(ORIGINAL.length + 1), namespace: ORIGINAL }));
      build.onLoad({ filter: /.*/, namespace: ORIGINAL }, async (args) => ({ contents: await readFile(args.path, 'utf8'), loader: 'js', resolveDir: dirname(args.path) }));
      build.onLoad({ filter: selection.pathFilter() }, async (args) => {
        const info = packages.of(args.path);
        if (info === undefined || !selection.wants(info.name, info.path, info.main) || !/\.[cm]?js$/.test(info.path)) return undefined;
        const source = await readFile(args.path, 'utf8');
        const esm = info.esm || looksLikeEsModule(source);
        const contents = esm ? wrapEsModule(`${ORIGINAL}:${args.path}`, info, hasDefaultExport(source)) : wrapCommonJs(source, info);
        return { contents, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}

export default tracehook;
