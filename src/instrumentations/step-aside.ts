import { hasSubscribers } from 'node:diagnostics_channel';
import type { TextMapPropagator } from '@opentelemetry/api';
import { context, diag, propagation } from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { RITM_SINGLETON_FILE, moduleNameTrieOf } from '../compat/otel-instrumentation.js';
import type { ModuleNameTrie } from '../compat/otel-instrumentation.js';
import { TracehookContextManager } from '../context/context-manager.js';
import { installDiagLogger } from '../diag/diag-logger.js';
import { getConfig } from '../config/current.js';
import { logDebug } from '../diag/logger.js';
import { isHttpsLoaded } from './http/https-loaded.js';
import { ChannelInstrumentation } from './channels/channel-instrumentation.js';
import { LazyInstrumentations } from './lazy-instrumentations.js';
import { INSTRUMENTATION_TARGETS } from './targets.js';

// The registry of @opentelemetry/api 1.x, shared by every copy of the API in the process.
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');
const FAST_HTTP_SERVER = '@tracehook/register/http-server';
const HTTP = '@opentelemetry/instrumentation-http';
const UNDICI = '@opentelemetry/instrumentation-undici';
const INSTRUMENTATION_PREFIX = '@opentelemetry/instrumentation-';

type Wrapped = { __wrapped?: boolean };

/**
 * Makes room for a startup hook that sets up OpenTelemetry itself (NodeSDK: context manager,
 * propagator, TracerProvider and its own instrumentations), so that the hook's instrumentations win
 * and tracehook's step aside: no "Attempted duplicate registration of API" errors, no doubled spans.
 *
 * Before the hook: tracehook's context manager, propagator and diag logger are unregistered (and the
 * API's emptied global registry dropped, so a hook on a newer @opentelemetry/api 1.x can register), and its
 * instrumentations that patch at once (HTTP, fetch) are taken off their patch points, so the
 * hook's wrap the originals. Call the returned function after the hook: it registers tracehook's
 * context manager and propagator where the hook registered none, and puts back each instrumentation
 * the hook did not bring its own of, judged by shimmer's `__wrapped` marker on node:http, subscribers
 * of `undici:request:create`, and the module names the hook's @opentelemetry/instrumentation copies
 * (those loaded so far) registered with require-in-the-middle (also for the libraries tracehook traces from their
 * channels: the hook's instrumentation-ioredis patches ioredis 6 too).
 */
export function makeRoomForStartupHook(instrumentations: readonly Instrumentation[], propagator: TextMapPropagator): () => void {
  const immediate = instrumentations.filter((i) => [FAST_HTTP_SERVER, HTTP, UNDICI].includes(i.instrumentationName));
  for (const i of immediate) i.disable();
  context.disable();
  propagation.disable();
  // An empty registry keeps the version that created it, and every @opentelemetry/api refuses to
  // register into another version's: emptied, it is dropped, so a hook on a newer API (1.10 with
  // OpenTelemetry JS SDK 3) registers its own, which tracehook's 1.x reads as compatible.
  diag.disable();
  const globals = globalThis as Record<symbol, Record<string, unknown> | undefined>;
  const ours = globals[API_GLOBAL]?.version;
  if (Object.keys(globals[API_GLOBAL] ?? {}).every((key) => key === 'version')) delete globals[API_GLOBAL];

  return () => {
    const registry = globals[API_GLOBAL];
    // Ours can register only into a registry of its own version (or none).
    if (registry && registry.version !== ours) logDebug('instrumentations', `the startup hook registered @opentelemetry/api ${registry.version}; tracehook's ${ours} reads it`);
    else installDiagLogger(getConfig().logLevel);
    if (!registry?.context) context.setGlobalContextManager(new TracehookContextManager().enable());
    if (!registry?.propagation) propagation.setGlobalPropagator(propagator);
    const hooked = hookRegisteredModules();
    const covered = (name: string) => (INSTRUMENTATION_TARGETS[name] ?? []).some((m) => hooked(m));
    // The hook's instrumentation-http may be registered and not yet applied: node:http was loaded
    // before it. Requiring it again, through require-in-the-middle, applies it now.
    const httpRegistered = hooked('http') || hooked('https');
    if (httpRegistered) {
      require('node:http');
      // node:https not loaded yet gets the hook's patches as it loads (see whenHttpsLoaded).
      if (isHttpsLoaded()) require('node:https');
    }
    const httpTaken = httpRegistered || wrapped(require('node:http').request) || wrapped(require('node:http').Server.prototype.emit);
    for (const i of immediate) {
      const taken = i.instrumentationName === UNDICI ? hasSubscribers('undici:request:create') : httpTaken;
      if (taken) logDebug('instrumentations', `${i.instrumentationName} steps aside for the startup hook's own`);
      else i.enable();
    }
    // ES modules' named imports of node:http/https take the exports as they are now.
    require('node:module').syncBuiltinESMExports();
    for (const i of instrumentations) {
      if (i instanceof LazyInstrumentations) i.skip(Object.keys(INSTRUMENTATION_TARGETS).filter(covered));
      else if (i instanceof ChannelInstrumentation && covered(i.name)) {
        // The hook's instrumentation of the same library (patch or channels) makes its spans: ours would double them.
        logDebug('instrumentations', `${i.instrumentationName} steps aside for the startup hook's own ${i.name} instrumentation`);
        i.disable();
      } else if (!immediate.includes(i) && i.instrumentationName.startsWith(INSTRUMENTATION_PREFIX) && covered(i.instrumentationName.slice(INSTRUMENTATION_PREFIX.length))) {
        logDebug('instrumentations', `${i.instrumentationName} steps aside for the startup hook's own`);
        i.disable();
      }
    }
  };
}

function wrapped(fn: unknown): boolean {
  return typeof fn === 'function' && (fn as Wrapped).__wrapped === true;
}

/**
 * Whether a module name is registered with the require-in-the-middle hook of an @opentelemetry/instrumentation copy
 * the hook loaded: found among the modules already loaded (`require.cache`), never resolved or loaded here, so no
 * code runs that the hook did not load itself (a copy resolved from the working directory could be anyone's).
 */
function hookRegisteredModules(): (module: string) => boolean {
  const tries: ModuleNameTrie[] = [];
  for (const [file, loaded] of Object.entries(require.cache)) {
    if (!file.endsWith(RITM_SINGLETON_FILE)) continue;
    // `_instance` exists only once an instrumentation of that copy was created: never create one here.
    const trie = moduleNameTrieOf(loaded?.exports);
    if (trie && !tries.includes(trie)) tries.push(trie);
    else if (!trie) logDebug('instrumentations', `no require-in-the-middle registry in ${file}`);
  }
  return (module) => tries.some((trie) => trie.search(module).length > 0);
}
