import { context, propagation, trace } from '@opentelemetry/api';
import type { TextMapPropagator } from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ConfigError, isConfigError } from '../config/config-error.js';
import type { TracehookConfig } from '../config/environment.js';
import { readConfig, wantsEsmLoader } from '../config/environment.js';
import { installDiagLogger } from '../diag/diag-logger.js';
import { logError, logWarn } from '../diag/logger.js';
import { setupDefaultTracing } from '../hooks/default-hook.js';
import { installEsmCjsBridge } from '../instrumentations/esm-cjs-bridge.js';
import { loadInstrumentations } from '../instrumentations/load-instrumentations.js';
import { makeRoomForStartupHook } from '../instrumentations/step-aside.js';
import { getRegisteredProvider } from '../provider/tracer-provider.js';
import { runStartupHook } from '../startup-hook/run-startup-hook.js';
import { getPreloadState } from '../state.js';
import { installExitHandlers } from './exit.js';

/**
 * Starts tracing in this thread, once: context manager, propagators, instrumentations, then the
 * tracing startup hook, then exit handling. Configuration errors are printed as one line each;
 * the app then runs untraced, or, with `TRACEHOOK_STRICT=true`, the process exits with status 1
 * before the app starts. Never throws.
 * @returns a promise the ESM entry awaits before the app's first line (resolved at once when
 *   everything was synchronous), or undefined when tracing is disabled or already started
 */
export function start(): Promise<void> | undefined {
  const state = getPreloadState();
  if (state.started) return state.ready;
  state.started = true;
  try {
    return startOnce();
  } catch (err) {
    // A defect of ours (or an instrumentation's) must cost the app its traces, never its start.
    logError('preload', `could not start: ${(err as Error)?.stack ?? err}; the app runs untraced`);
    return undefined;
  }
}

function startOnce(): Promise<void> | undefined {
  const state = getPreloadState();
  const config = readConfig();
  if (config.disabled) return undefined;
  if (!report(config.errors, config.strict)) return undefined;

  installDiagLogger();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const propagator = createPropagator(config.propagators);
  propagation.setGlobalPropagator(propagator);

  const loaded = loadInstrumentations(config.instrumentations, config.httpInstrumentation, !wantsEsmLoader(config));
  if (!report(loaded.errors, config.strict)) return undefined;
  registerInstrumentations({ instrumentations: loaded.instrumentations });
  installEsmCjsBridge();
  // Patch node:http/https now, so an ES module's named imports of them (`import { get } from
  // 'node:http'`) are taken from the patched exports.
  if (config.instrumentations.includes('http')) {
    require('node:http');
    require('node:https');
    require('node:module').syncBuiltinESMExports();
  }

  // A hook of the user's own may bring its own OpenTelemetry setup (NodeSDK); tracehook's steps aside where it does.
  const afterHook = config.startupHook ? makeRoomForStartupHook(loaded.instrumentations, propagator) : undefined;
  let hook: void | Promise<void>;
  try {
    hook = config.startupHook ? runStartupHook(config.startupHook) : setupDefaultTracing();
  } catch (err) {
    hook = Promise.reject(err);
  }
  const finish = () => {
    afterHook?.();
    activate(config, loaded.instrumentations);
  };
  const fail = (err: unknown) => failed(err, config, loaded.instrumentations);
  state.ready = hook instanceof Promise ? hook.then(finish, fail) : (finish(), Promise.resolve());
  return state.ready;
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
