import { readFile } from 'node:fs/promises';
import { ModuleSelection } from './module-list.js';
import { PackageInfo } from './package-info.js';
import { hasDefaultExport, looksLikeEsModule, wrapCommonJs, wrapEsModule } from './wrap-code.js';

/** The query under which an ES module's wrapper imports the module's own text (ids with a query are left alone). */
const ORIGINAL_QUERY = '?tracehook-original';

/** The part of Rollup's (and Vite's) plugin API this plugin uses (Rollup is the user's, not a dependency of tracehook). */
export interface RollupPlugin {
  name: string;
  buildStart(): void;
  resolveId: { order: 'pre'; handler(source: string): string | null };
  load(id: string): Promise<string | null>;
  transform: { order: 'pre'; handler(code: string, id: string): { code: string; map: null } | null };
}

/**
 * The Rollup plugin of `@tracehook/register/rollup`, which Vite takes too: `plugins: [tracehook(), nodeResolve(),
 * commonjs(), json()]`. Each bundled file of a package an instrumentation patches (its main file, and the files patched
 * by path: `pg/lib/client.js`) is compiled with a few lines after its own code that, when the app runs under the
 * tracehook preload, hand its exports and its package's version to the preload, which patches them as it would the
 * same package loaded from `node_modules` (src/bundler/wrap-code.ts, docs/bundlers.md). Without the preload the
 * exports are untouched and each such module pays one `hasSubscribers` check. Reads only the bundled packages' own
 * files and package.json; loads no code.
 *
 * Its `transform` runs before every other plugin's (`order: 'pre'`), so a CommonJS file is wrapped before
 * @rollup/plugin-commonjs turns it into an ES module, wherever the plugin sits in the list. CommonJS and ES-module
 * output, code splitting. A minifier (such as @rollup/plugin-terser) must keep names: `keep_classnames: true,
 * keep_fnames: true`.
 * @returns a new plugin (state per build: the package.json files read)
 */
export function tracehook(): RollupPlugin {
  const selection = new ModuleSelection();
  const filter = selection.pathFilter();
  let packages = new PackageInfo();
  return {
    name: 'tracehook',
    buildStart() {
      packages = new PackageInfo();
    },
    resolveId: {
      order: 'pre',
      handler: (source) => (source.endsWith(ORIGINAL_QUERY) ? source : null),
    },
    async load(id) {
      return id.endsWith(ORIGINAL_QUERY) ? readFile(id.slice(0, -ORIGINAL_QUERY.length), 'utf8') : null;
    },
    transform: {
      order: 'pre',
      handler(code, id) {
        if (id.includes('?') || id.startsWith('\0') || !filter.test(id)) return null;
        const info = packages.of(id);
        if (info === undefined || !selection.wants(info.name, info.path, info.main) || !/\.[cm]?js$/.test(info.path)) return null;
        const esm = info.esm || looksLikeEsModule(code);
        return { code: esm ? wrapEsModule(`${id}${ORIGINAL_QUERY}`, info, hasDefaultExport(code)) : wrapCommonJs(code, info), map: null };
      },
    },
  };
}

export default tracehook;
