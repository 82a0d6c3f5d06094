import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import type { Instrumentation, InstrumentationConfig } from '@opentelemetry/instrumentation';
import { logDebug, logWarn } from '../diag/logger.js';
import { onModuleLoad, requireAgain } from '../patch/module-hooks.js';
import { packageOfFile } from './require-gate.js';

/**
 * Instrumentations that are loaded only when the app first loads one of their target modules, so
 * an app pays (in startup time and memory) only for the instrumentations of the packages it uses.
 *
 * The trigger is `Module.prototype.load` (tracehook's one wrapper of it, src/patch/module-hooks.ts) of the first file of a target package (found by the
 * package folder after the last `node_modules`), before that file runs: the instrumentation is
 * required and enabled then, which registers its module names with require-in-the-middle's hook,
 * so the package's internal files are patched as they load; once the file has loaded, it is
 * required again through that hook, which patches its exports. An ES module's `import` of a
 * CommonJS package passes through the same `load`. ES-module-only packages are not seen here: they need import-in-the-middle's loader
 * (TRACEHOOK_ESM_LOADER), with which everything is loaded at startup instead.
 *
 * Stands in the list of instrumentations as one: `setTracerProvider` reaches the ones loaded so far
 * and those loaded later; `disable` disables them and loads no more.
 */
export class LazyInstrumentations implements Instrumentation {
  readonly instrumentationName = '@tracehook/register/lazy';
  readonly instrumentationVersion = '0.0.0';
  private readonly byPackage = new Map<string, string[]>();
  private readonly loaded: Instrumentation[] = [];
  /** Package name → the instrumentations loaded for it (read by {@link forPackage}). */
  private readonly byPackageLoaded = new Map<string, Instrumentation[]>();
  private provider: TracerProvider | undefined;
  private enabled = true;
  private config: InstrumentationConfig = { enabled: true };

  /**
   * @param targets - instrumentation name → the package names it patches
   * @param create - creates (and enables) the instrumentation of a name, given the file of its package being loaded (undefined for a bundled module); may throw
   */
  constructor(
    targets: ReadonlyMap<string, readonly string[]>,
    private readonly create: (name: string, packageFile: string | undefined) => Instrumentation,
  ) {
    for (const [name, packages] of targets) {
      for (const pkg of packages) this.byPackage.set(pkg, [...(this.byPackage.get(pkg) ?? []), name]);
    }
    if (this.byPackage.size > 0) this.hookModuleLoad();
  }

  /** The instrumentations loaded so far. */
  get active(): readonly Instrumentation[] {
    return this.loaded;
  }

  private hookModuleLoad(): void {
    onModuleLoad((module, filename) => {
      const pkg = this.byPackage.size > 0 && typeof filename === 'string' ? packageOfFile(filename) : undefined;
      if (pkg === undefined || !this.byPackage.has(pkg) || !this.activate(pkg, filename)) return undefined;
      // The instrumentation came with its own copy of @opentelemetry/instrumentation, whose
      // require-in-the-middle hook was installed inside this require() and so missed it: require the
      // now cached file once more, through that hook, which patches or replaces the exports.
      return () => {
        const failed = requireAgain(module, filename);
        // The package loaded; only its instrumentation failed, and that must not fail the require.
        if (failed !== undefined) logDebug('instrumentations', `${pkg}: applying its instrumentation failed (${failed})`);
      };
    });
  }

  /** @returns whether an instrumentation was loaded */
  private activate(pkg: string, filename: string | undefined): boolean {
    const names = this.byPackage.get(pkg) ?? [];
    const packages: string[] = [];
    // Each name once, whichever of its packages came first (pg or pg-pool).
    for (const [key, list] of this.byPackage) {
      if (!list.some((n) => names.includes(n))) continue;
      this.byPackage.delete(key);
      packages.push(key);
    }
    if (!this.enabled) return false;
    const before = this.loaded.length;
    for (const name of names) {
      try {
        const instrumentation = this.create(name, filename);
        instrumentation.setTracerProvider(this.provider ?? trace.getTracerProvider());
        this.loaded.push(instrumentation);
        for (const key of packages) this.byPackageLoaded.set(key, [...(this.byPackageLoaded.get(key) ?? []), instrumentation]);
      } catch (err) {
        logWarn('instrumentations', `${name} (for ${pkg}) could not be loaded: ${(err as Error)?.message?.split('\n')[0]}; ${pkg} runs untraced`);
      }
    }
    return this.loaded.length > before;
  }

  /**
   * The instrumentations of package `pkg`, loading them now if the app has not loaded a module of theirs before (for a
   * module inside a bundle, which no `Module#load` announces: src/bundler/bundled-modules.ts). Their copy is looked for
   * from the app's entry, then tracehook's. Never throws.
   * @param pkg - a package name: `pg`
   */
  forPackage(pkg: string): readonly Instrumentation[] {
    if (this.byPackage.has(pkg)) this.activate(pkg, undefined);
    return this.byPackageLoaded.get(pkg) ?? [];
  }

  /** Never loads these (a startup hook registered its own). */
  skip(names: readonly string[]): void {
    for (const [pkg, list] of this.byPackage) {
      const rest = list.filter((n) => !names.includes(n));
      if (rest.length === 0) this.byPackage.delete(pkg);
      else this.byPackage.set(pkg, rest);
    }
  }

  enable(): void {
    this.enabled = true;
    for (const i of this.loaded) i.enable();
  }

  disable(): void {
    this.enabled = false;
    for (const i of this.loaded) i.disable();
  }

  setTracerProvider(provider: TracerProvider): void {
    this.provider = provider;
    for (const i of this.loaded) i.setTracerProvider(provider);
  }

  setMeterProvider(_provider: MeterProvider): void {
    // tracehook records no metrics.
  }

  setConfig(config: InstrumentationConfig): void {
    this.config = config;
  }

  getConfig(): InstrumentationConfig {
    return this.config;
  }
}
