import { context, propagation, trace } from '@opentelemetry/api';
import type { TextMapPropagator } from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ConfigError, isConfigError } from '../config/config-error.js';
import type { TracehookConfig } from '../config/environment.js';
import { getConfig } from '../config/current.js';
import { wantsEsmLoader } from '../config/environment.js';
import { installDiagLogger } from '../diag/diag-logger.js';
import { logError, logWarn } from '../diag/logger.js';
import { setupDefaultTracing } from '../startup-hook/default-hook.js';
import { TracehookContextManager } from '../context/context-manager.js';
import { subscribeBundledModules } from '../bundler/bundled-modules.js';
import { checkBundleForPlugin } from '../bundler/missing-plugin.js';
import { installEsmCjsBridge } from '../instrumentations/esm-cjs-bridge.js';
import { incomingTracePropagator } from '../instrumentations/http/incoming-trace.js';
import { loadInstrumentations } from '../instrumentations/load-instrumentations.js';
import { whenHttpsLoaded } from '../instrumentations/http/https-loaded.js';
import { makeRoomForStartupHook } from '../instrumentations/step-aside.js';
import { getRegisteredProvider } from '../provider/tracer-provider.js';
import { runStartupHook } from '../startup-hook/run-startup-hook.js';
import { claimThread, getPreloadState } from '../state.js';
import { installExitHandlers } from './exit.js';

export { shouldRegisterEsmLoader, shouldStart } from './entry.js';

/** How the entry runs {@link start}. */
export interface StartOptions {
  /**
   * The entry awaits the returned promise before the app's first line (`register.mjs`, top-level
   * await). Without it (`register.cjs`), the startup hook's module, or the exporter import path's, is
   * loaded with `require()` where it can be, so that a synchronous hook runs before the app's first line.
   */
  awaited?: boolean;
}

/**
 * Starts tracing in this thread, once: context manager, propagators, instrumentations, then the
 * tracing startup hook, then exit handling. Configuration errors are printed as one line each;
 * the app then runs untraced, or, with `TRACEHOOK_STRICT=true`, the process exits with status 1
 * before the app starts. Never throws.
 * @returns a promise the ESM entry awaits before the app's first line (resolved at once when
 *   everything was synchronous), or undefined when tracing is disabled or already started (in this thread, by this or another tracehook version)
 */
export function start(options: StartOptions = {}): Promise<void> | undefined {
  const state = getPreloadState();
  if (state.started) return state.ready;
  if (!claimThread()) return undefined;
  state.started = true;
  try {
    return startOnce(options.awaited === true);
  } catch (err) {
    // A defect of ours (or an instrumentation's) must cost the app its traces, never its start.
    logError('preload', `could not start: ${(err as Error)?.stack ?? err}; the app runs untraced`);
    return undefined;
  }
}

function startOnce(awaited: boolean): Promise<void> | undefined {
  const state = getPreloadState();
  const config = getConfig();
  if (config.disabled) return undefined;
  if (!report(config.errors, config.strict)) return undefined;

  installDiagLogger(config.logLevel);
  context.setGlobalContextManager(new TracehookContextManager().enable());
  const propagator = incomingTracePropagator(createPropagator(config.propagators), config.requestData.incomingTrace, config.httpInstrumentation === 'stock');
  propagation.setGlobalPropagator(propagator);

  const loaded = loadInstrumentations(config.instrumentations, config.httpInstrumentation, config.requestData, !wantsEsmLoader(config));
  if (!report(loaded.errors, config.strict)) return undefined;
  registerInstrumentations({ instrumentations: loaded.instrumentations });
  installEsmCjsBridge();
  // A bundle built with a tracehook bundler plugin hands its instrumented modules over on a diagnostics channel.
  subscribeBundledModules(loaded.instrumentations);
  checkBundleForPlugin(config.instrumentations);
  // Patch node:http now, and node:https as it loads (with tls and crypto it is a large part of a start: bench/RESULTS.md, startup notes), through
  // require-in-the-middle, so an ES module's named imports of them (`import { get } from 'node:http'`)
  // are taken from, or synced to, the patched exports.
  if (config.instrumentations.includes('http')) {
    require('node:http');
    require('node:module').syncBuiltinESMExports();
  }
  whenHttpsLoaded(() => {
    require('node:https');
    require('node:module').syncBuiltinESMExports();
  });

  // A hook of the user's own may bring its own OpenTelemetry setup (NodeSDK); tracehook's steps aside where it does.
  const afterHook = config.startupHook ? makeRoomForStartupHook(loaded.instrumentations, propagator) : undefined;
  let hook: void | Promise<void>;
  try {
    hook = config.startupHook ? runStartupHook(config.startupHook, !awaited) : setupDefaultTracing(!awaited);
  } catch (err) {
    hook = Promise.reject(err);
  }
  let activated = false;
  const finish = () => {
    if (activated) return;
    activated = true;
    afterHook?.();
    activate(config, loaded.instrumentations);
  };
  const fail = (err: unknown) => failed(err, config, loaded.instrumentations);
  if (!(hook instanceof Promise)) {
    finish();
    state.ready = Promise.resolve();
    return state.ready;
  }
  // An async hook that registered its provider before its first await traces from the app's first
  // line, also under --require, where nothing waits for the promise.
  if (getRegisteredProvider()?.forceFlush) finish();
  state.ready = boundStartup(hook, config, awaited).then(finish, fail);
  return state.ready;
}

/**
 * `hook`, rejected with a ConfigError when it does not settle within `TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS`
 * (then the app starts untraced, or exits 1 under `TRACEHOOK_STRICT`). The timer keeps the event loop
 * alive only when the entry awaits the hook: a top-level await left pending would end the process
 * with status 13.
 */
function boundStartup(hook: Promise<void>, config: TracehookConfig, awaited: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const named = config.startupHook ? ['TRACEHOOK_STARTUP_HOOK', config.startupHook] : ['TRACEHOOK_EXPORTER_IMPORT_PATH', config.exporterImportPath ?? 'default'];
      reject(new ConfigError(named[0], named[1], 'a hook that settles in time', `it did not settle within ${config.startupHookTimeoutMs} ms, TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS`));
    }, config.startupHookTimeoutMs);
    if (!awaited) timer.unref();
    hook.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

function activate(config: TracehookConfig, instrumentations: Instrumentation[]): void {
  const provider = getRegisteredProvider();
  if (!provider?.forceFlush) {
    logWarn('startup-hook', `${config.startupHook ?? 'the default hook'} registered no TracerProvider (trace.setGlobalTracerProvider); the app runs untraced`);
    disable(instrumentations);
    return;
  }
  // The instrumentations took the API's proxy provider before the hook ran; a hook that registered
  // its provider through another copy of @opentelemetry/api (the app's own, or ours unbundled) only
  // delegated that copy's proxy. Hand them the registered provider itself.
  const registered = trace.getTracerProvider();
  for (const i of instrumentations) i.setTracerProvider(registered);
  installExitHandlers(provider as { forceFlush(): Promise<void> }, config.shutdownTimeoutMs);
  require('../workers/install.js').installWorkerPropagation(config);
}

function failed(err: unknown, config: TracehookConfig, instrumentations: Instrumentation[]): void {
  disable(instrumentations);
  const error = isConfigError(err) ? err : new ConfigError('TRACEHOOK_STARTUP_HOOK', config.startupHook ?? 'default', 'a hook that runs', String((err as Error)?.message ?? err));
  report([error], config.strict);
}

function disable(instrumentations: Instrumentation[]): void {
  for (const i of instrumentations) i.disable();
}

/**
 * Prints each error as one line. Under `TRACEHOOK_STRICT` any error exits with status 1.
 * @returns false when tracing cannot go on
 */
function report(errors: ConfigError[], strict: boolean): boolean {
  for (const err of errors) {
    const consequence = strict ? 'TRACEHOOK_STRICT is set: exiting with status 1' : err.disablesTracing ? 'the app runs untraced' : '';
    logError('config', consequence ? `${err.message}; ${consequence}` : err.message);
  }
  if (errors.length > 0 && strict) process.exit(1);
  return !errors.some((e) => e.disablesTracing);
}

function createPropagator(names: string[]): TextMapPropagator {
  const propagators: TextMapPropagator[] = [];
  if (names.includes('tracecontext')) propagators.push(new W3CTraceContextPropagator());
  if (names.includes('baggage')) propagators.push(new W3CBaggagePropagator());
  return new CompositePropagator({ propagators });
}
