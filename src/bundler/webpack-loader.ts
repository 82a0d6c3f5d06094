import type { BundledModuleInfo } from './channel.js';
import { hasDefaultExport, looksLikeEsModule, wrapCommonJs, wrapEsModule } from './wrap-code.js';

/** The resource query under which an ES module's wrapper imports the module's own text (the plugin adds no loader there). */
export const ORIGINAL_QUERY = '?tracehook-original';

/** What the plugin hands the loader for one file: its facts, read at build time (src/bundler/package-info.ts). */
export type LoaderOptions = Pick<BundledModuleInfo, 'name' | 'version' | 'path' | 'main' | 'esm'>;

/** The part of webpack's loader context used here. */
interface LoaderContext {
  resourcePath: string;
  getOptions(): LoaderOptions;
}

/**
 * The webpack loader that {@link TracehookWebpackPlugin} puts first in line (it runs last, on the file's final
 * JavaScript) for each bundled file of an instrumented package: the file's text comes back wrapped by
 * src/bundler/wrap-code.ts, so that its exports reach the preload. An ES module becomes a module that re-exports the
 * original, imported as `<file>?tracehook-original`.
 */
export default function tracehookLoader(this: LoaderContext, source: string): string {
  const info = this.getOptions();
  if (info.esm || looksLikeEsModule(source)) return wrapEsModule(`${this.resourcePath}${ORIGINAL_QUERY}`, info, hasDefaultExport(source));
  return wrapCommonJs(source, info);
}
