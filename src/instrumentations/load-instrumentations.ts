import { existsSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { ConfigError } from '../config/config-error.js';
import type { RequestDataConfig } from '../config/request-data.js';
import { BUILT_IN_INSTRUMENTATIONS } from '../config/instrumentation-defaults.js';
import { packageRoot } from '../package-root.js';
import { appDirectory, resolveFromApp } from '../startup-hook/resolve-from-app.js';
import { getPreloadState } from '../state.js';
import { LazyInstrumentations } from './lazy-instrumentations.js';
import { ChannelInstrumentation } from './channels/channel-instrumentation.js';
import { NATIVE_CHANNELS, fileHasChannels, narrowToUnchanneled } from './channels/native-channels.js';
import { MYSQL2_OPTIONS, pgOptions } from './db-statements.js';
import { declareModuleFiles, gateRequireHook } from './require-gate.js';
import { publishSharedModules, shareBundledModules } from './shared-modules.js';
import { INSTRUMENTATION_TARGETS } from './targets.js';

type InstrumentationClass = new (config?: Record<string, unknown>) => Instrumentation;

/**
 * Creates the instrumentations named in `names` (the names auto-instrumentations-node uses:
 * `http`, `grpc`, `express`, `pg`, …, i.e. `@opentelemetry/instrumentation-<name>`). http and
 * undici are bundled and enabled now; with `lazy`, each other one whose target modules are known
 * (auto-instrumentations-node's set, not Node.js built-ins) is required only when the app first loads
 * one of them ({@link LazyInstrumentations}); the rest are required now.
 * @param httpServer - `fast`: SERVER spans of node:http/https from {@link FastHttpServerInstrumentation}, the
 *   stock instrumentation-http keeps the client side; `stock`: instrumentation-http for both
 * @param requestData - redaction, bounds and incoming-trace policy for the HTTP instrumentations
 * @param lazy - false when import-in-the-middle's loader is registered: its hooks must exist before
 *   the app's first import
 * @returns the instances (enabled on creation; the lazy ones behind one LazyInstrumentations) and one
 *   ConfigError per name that could not be loaded now
 */
export function loadInstrumentations(
  names: readonly string[],
  httpServer: 'fast' | 'stock' = 'fast',
  requestData?: RequestDataConfig,
  lazy = true,
): { instrumentations: Instrumentation[]; errors: ConfigError[] } {
  gateRequireHook();
  const instrumentations: Instrumentation[] = [];
  const errors: ConfigError[] = [];
  const deferred = new Map<string, readonly string[]>();
  for (const name of names) {
    // From its channels for the releases that publish them (bundled or not); the patch below for the older ones.
    if (NATIVE_CHANNELS[name] !== undefined) instrumentations.push(new ChannelInstrumentation(name));
    const targets = INSTRUMENTATION_TARGETS[name];
    if (lazy && targets?.length && !(BUILT_IN_INSTRUMENTATIONS as readonly string[]).includes(name) && !targets.some((t) => isBuiltin(t))) {
      deferred.set(name, targets);
      continue;
    }
    try {
      if (name === 'http' && httpServer === 'fast') {
        const { FastHttpServerInstrumentation } = require('./http/fast-http-server-instrumentation.js') as typeof import('./http/fast-http-server-instrumentation.js');
        instrumentations.push(new FastHttpServerInstrumentation(requestData));
      }
      if (name === 'http') {
        const { RouteInstrumentation } = require('./routes/route-instrumentation.js') as typeof import('./routes/route-instrumentation.js');
        const routes = new RouteInstrumentation();
        declareModuleFiles(routes);
        instrumentations.push(routes);
      }
      instrumentations.push(create(name));
    } catch (err) {
      const e = new ConfigError(
        'OTEL_NODE_ENABLED_INSTRUMENTATIONS',
        names.join(','),
        'names of installed @opentelemetry/instrumentation-<name> packages, e.g. http,grpc,express',
        `${name}: ${(err as Error).message.split('\n')[0]}`,
      );
      e.disablesTracing = false;
      errors.push(e);
    }
  }
  if (deferred.size > 0) instrumentations.push(new LazyInstrumentations(deferred, create, (name, pkg, file) => !fileHasChannels(name, pkg, file)));
  return { instrumentations, errors };

  /**
   * Creates (and so enables) the instrumentation of `name`, and tells the require gate which files it patches.
   * @param packageFile - the first file of its target package the app loads (lazy loading): the app's copy of the
   *   instrumentation is looked for from there, as that package would resolve it; else from the app's entry
   */
  function create(name: string, packageFile?: string): Instrumentation {
    const instrumentation = new (instrumentationClass(name, packageFile))(instrumentationConfig(name, httpServer, requestData));
    narrowToUnchanneled(name, instrumentation);
    declareModuleFiles(instrumentation);
    return instrumentation;
  }
}

function instrumentationClass(name: string, packageFile?: string): InstrumentationClass {
  if (name === 'http') return require('@opentelemetry/instrumentation-http').HttpInstrumentation;
  if (name === 'undici') return require('@opentelemetry/instrumentation-undici').UndiciInstrumentation;
  if (!/^[a-z0-9.-]+$/.test(name)) throw new Error('not an instrumentation name');
  const pkg = `@opentelemetry/instrumentation-${name}`;
  const file = instrumentationFile(name, pkg, packageFile);
  const bundled = file === bundledFile(name);
  if (bundled) publishSharedModules();
  else shareBundledModules();
  // Our bundle, compiled from its V8 code cache when the preload itself was.
  const loadCompiled = bundled ? getPreloadState().loadCompiled : undefined;
  const exports = (loadCompiled ? loadCompiled(file) : require(file)) as Record<string, unknown>;
  const cls = Object.entries(exports).find(([key, value]) => key.endsWith('Instrumentation') && typeof value === 'function');
  if (!cls) throw new Error(`@opentelemetry/instrumentation-${name} exports no *Instrumentation class`);
  return cls[1] as InstrumentationClass;
}

/**
 * The app's own copy of `pkg` first (an instrumentation it installed, or the version it pins), then
 * ours: as dist/instrumentations/bundled/<name>.js (one file, built from our copy by
 * scripts/bundle-instrumentations.mjs) when there is one, else from node_modules. The app's copy is
 * looked for only where the app's own code resolves packages ({@link resolveFromApp}): from the
 * instrumented package's file when it is known, else from the app's entry; never from the working
 * directory (unless the app has no entry file) nor `NODE_PATH`.
 * @throws Error when neither the app nor tracehook has the package
 */
function instrumentationFile(name: string, pkg: string, packageFile?: string): string {
  const app = resolveFromApp(pkg, packageFile === undefined ? appDirectory() : dirname(packageFile));
  // Our own dependencies, also without NODE_PATH: undefined when not installed with tracehook.
  const ours = resolveFromApp(pkg, packageRoot());
  if (app !== undefined && app !== ours) return app;
  const bundled = bundledFile(name);
  if (existsSync(bundled)) return bundled;
  const file = app ?? ours;
  if (file === undefined) throw new Error(`Cannot find module '${pkg}' beside the app's entry, the package it instruments, or tracehook`);
  return file;
}

/** dist/instrumentations/bundled/<name>.js (scripts/bundle-instrumentations.mjs). */
function bundledFile(name: string): string {
  return join(packageRoot(), 'dist', 'instrumentations', 'bundled', `${name}.js`);
}

/**
 * Per-instrumentation options: URLs and query text redacted (undici, pg, mysql2); with the fast server side, the stock
 * http one keeps only the client side; a CLIENT span outside any trace as `TRACEHOOK_HTTP_CLIENT_ROOT_SPANS` says.
 */
function instrumentationConfig(name: string, httpServer: 'fast' | 'stock', requestData?: RequestDataConfig): Record<string, unknown> | undefined {
  const requireParent = requestData?.clientRootSpans === false;
  if (name === 'undici') {
    return requestData && { ...(require('./http/undici-options.js') as typeof import('./http/undici-options.js')).undiciOptions(requestData), requireParentforSpans: requireParent };
  }
  if (name === 'pg') return pgOptions();
  if (name === 'mysql2') return { ...MYSQL2_OPTIONS };
  if (name !== 'http') return undefined;
  const { stockHttpOptions } = require('./http/stock-http-options.js') as typeof import('./http/stock-http-options.js');
  return { ...(requestData && stockHttpOptions(requestData)), requireParentforOutgoingSpans: requireParent, disableIncomingRequestInstrumentation: httpServer === 'fast' };
}
