import { subscribe } from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { logDebug } from '../diag/logger.js';
import { satisfiesSimpleRange } from '../instrumentations/version-range.js';
import { stateKey } from '../state-key.js';
import type { ModuleLoadMessage } from './channel.js';
import { MODULE_LOAD_CHANNEL } from './channel.js';

/** The parts of @opentelemetry/instrumentation's module definitions read and set here (InstrumentationNodeModuleDefinition / File). */
interface FileDefinition {
  name: string;
  supportedVersions: string[];
  patch(exports: unknown, version?: string): unknown;
  moduleExports?: unknown;
}
interface ModuleDefinition {
  name: string;
  supportedVersions: string[];
  includePrerelease?: boolean;
  patch?: (exports: unknown, version?: string) => unknown;
  files?: FileDefinition[];
  moduleExports?: unknown;
  moduleVersion?: string;
}
interface Patching {
  /** InstrumentationBase's own definitions, those its require hook patches with (and any narrowing of their ranges sees). */
  _modules?: ModuleDefinition[];
  getModuleDefinitions?(): ModuleDefinition[];
  isEnabled?(): boolean;
  /** LazyInstrumentations: the instrumentations of a package, loaded on first ask. */
  forPackage?(pkg: string): readonly Instrumentation[];
}

const SUBSCRIBED_KEY = stateKey('bundledModules');

/**
 * Patches the modules of a bundle built with a tracehook bundler plugin: each wrapped module publishes its exports,
 * package name, version and file on {@link MODULE_LOAD_CHANNEL} as it loads (src/bundler/wrap-code.ts), and this runs,
 * on those exports, the patches of the instrumentations' module definitions that match, with their version ranges:
 * what @opentelemetry/instrumentation's require hook does for the same package loaded from `node_modules`
 * (`InstrumentationBase#_onRequire`), the version read at build time instead of from the package's folder. The
 * message's `module` becomes the patched exports. Lazy instrumentations are loaded as their package's first module
 * arrives. Once per thread; never throws into the bundle (a failed patch is logged at DEBUG, the module keeps its exports).
 * @param instrumentations - the preload's instrumentations (a LazyInstrumentations among them stands for the lazy ones)
 */
export function subscribeBundledModules(instrumentations: readonly Instrumentation[]): void {
  const g = globalThis as typeof globalThis & { [SUBSCRIBED_KEY]?: boolean };
  if (g[SUBSCRIBED_KEY]) return;
  g[SUBSCRIBED_KEY] = true;
  subscribe(MODULE_LOAD_CHANNEL, (message) => {
    const m = message as Partial<ModuleLoadMessage>;
    if (typeof m?.name !== 'string' || typeof m.path !== 'string') return;
    try {
      for (const each of instrumentationsOf(instrumentations, m.name)) m.module = patchModule(each as Patching, m as ModuleLoadMessage);
    } catch (err) {
      logDebug('bundler', `${m.name}/${m.path}: applying its instrumentation failed (${String((err as Error)?.message ?? err).split('\n')[0]})`);
    }
  });
}

/** The instrumentations with a module definition for package `pkg`, lazy ones loaded now. */
function instrumentationsOf(instrumentations: readonly Instrumentation[], pkg: string): Instrumentation[] {
  const found: Instrumentation[] = [];
  for (const i of instrumentations) {
    const p = i as Patching;
    if (typeof p.forPackage === 'function') found.push(...p.forPackage(pkg));
    else if (definitionsOf(p).some((d) => d.name === pkg || d.name.startsWith(`${pkg}/`))) found.push(i);
  }
  return found;
}

/**
 * The module definitions `instrumentation`'s own require hook patches with (`InstrumentationBase#_modules`): what a
 * bundled module must meet too, with the same version ranges (narrowed where the library has channels:
 * src/instrumentations/channels/native-channels.ts) and the exports recorded where its `disable()` finds them.
 * `getModuleDefinitions()` makes new copies each call; it is the fallback for an instrumentation without `_modules`.
 */
function definitionsOf(instrumentation: Patching): ModuleDefinition[] {
  return Array.isArray(instrumentation._modules) ? instrumentation._modules : (instrumentation.getModuleDefinitions?.() ?? []);
}

/** Runs `instrumentation`'s matching patches on the message's exports, as `InstrumentationBase#_onRequire` does. @returns the exports to use */
function patchModule(instrumentation: Patching, message: ModuleLoadMessage): unknown {
  const { name, path, main } = message;
  const version = typeof message.version === 'string' ? message.version : undefined;
  const enabled = instrumentation.isEnabled?.() ?? true;
  const file = `${name}/${path}`;
  let exports = message.module;
  for (const def of definitionsOf(instrumentation)) {
    if (((main && def.name === name) || def.name === file) && typeof def.patch === 'function' && supported(def.supportedVersions, version, def.includePrerelease)) {
      def.moduleVersion = version;
      def.moduleExports = exports;
      if (enabled) exports = def.patch(exports, version) ?? exports;
    }
    for (const f of def.files ?? []) {
      if (f.name.split('\\').join('/') !== file || !supported(f.supportedVersions, version, def.includePrerelease)) continue;
      def.moduleVersion = version;
      f.moduleExports = exports;
      if (enabled) exports = f.patch(exports, version) ?? exports;
    }
  }
  return exports;
}

/**
 * As @opentelemetry/instrumentation's `isSupported`: without a version only `*` matches. Ranges {@link satisfiesSimpleRange}
 * cannot decide (`||`, `~`, prereleases) go to the node-semver that @opentelemetry/instrumentation itself depends on.
 */
function supported(ranges: readonly string[], version: string | undefined, includePrerelease = false): boolean {
  if (version === undefined) return ranges.includes('*');
  return ranges.some((range) => satisfiesSimpleRange(version, range) ?? instrumentationSemver().satisfies(version, range, { includePrerelease }));
}

function instrumentationSemver(): { satisfies(version: string, range: string, options: object): boolean } {
  return createRequire(require.resolve('@opentelemetry/instrumentation'))('semver');
}
