import { httpAgentModule } from '../../compat/node-https.js';
import { logDebug } from '../../diag/logger.js';
import { isBuiltinLoaded, whenBuiltinLoaded } from '../../patch/builtin-loaded.js';
import type { PatchSite } from '../../patch/wrap.js';
import { unwrap, wrap } from '../../patch/wrap.js';

const SITE: PatchSite = {
  component: 'http',
  id: '_http_agent.Agent',
  otherwise: 'an https first loaded by an ES module import is patched only after the first turn of the event loop',
};
const callbacks: Array<() => void> = [];
let watching = false;

/** Whether node:https is loaded in this thread (true when Node.js does not say: the caller then acts at once). */
export function isHttpsLoaded(): boolean {
  return isBuiltinLoaded('https');
}

/**
 * Calls `callback` once node:https is loaded: now if it is, else as it loads. node:https with tls
 * and crypto adds to startup (bench: startup, spawn → first HTTP 200, tracehook-files row), so the preload no longer loads it for apps that never do.
 * Nothing is watched until node:http's parts load (see whenBuiltinLoaded), which node:https loads first.
 * A CommonJS `require('https')` is patched as it returns, by require-in-the-middle; an ES module's
 * `import 'node:https'` does not pass there. What every load of node:https does is construct its
 * global agent through `_http_agent`'s `Agent` (node:https reads that export as it loads, in
 * Node.js 20 to 26): that export is wrapped until then, and the first call queues `callback` as a
 * microtask, which runs before the importing module's body (module linking awaits between the load
 * and the evaluation), so the callback's patches and `syncBuiltinESMExports()` come first. As a net,
 * https found loaded after the first turn of the event loop without that call runs the callbacks
 * then. A callback that throws is written at DEBUG level.
 */
export function whenHttpsLoaded(callback: () => void): void {
  if (isHttpsLoaded()) return void callback();
  callbacks.push(callback);
  if (watching) return;
  watching = true;
  // node:https loads node:http's parts (_http_agent, _http_client) before its own: its agent is watched from then
  // on, so a process or worker thread that loads neither pays for neither (_http_agent loads node:net).
  whenBuiltinLoaded('http', watchAgent);
}

function watchAgent(): void {
  if (isHttpsLoaded()) return void runCallbacks();
  const found = httpAgentModule();
  if (found === undefined) {
    logDebug('http', '_http_agent.Agent is not found: node:https is patched now instead of as it loads');
    return void runCallbacks();
  }
  const agents = found;
  const watched = wrap(agents, 'Agent', SITE, (original) => {
    function Agent(this: unknown, ...args: unknown[]): unknown {
      if (agents.Agent === Agent) {
        unwrap(agents, 'Agent', SITE);
        queueMicrotask(runCallbacks);
      }
      return Reflect.apply(original, this, args);
    }
    // node:https's Agent inherits from this export: it must stay the same class.
    Agent.prototype = original.prototype;
    Object.setPrototypeOf(Agent, original);
    return Agent;
  });
  if (!watched) return void runCallbacks();
  setImmediate(() => {
    if (callbacks.length > 0 && isHttpsLoaded()) runCallbacks();
  }).unref();
}

function runCallbacks(): void {
  for (const callback of callbacks.splice(0)) {
    try {
      callback();
    } catch (err) {
      logDebug('http', `patching node:https failed: ${(err as Error)?.message}`);
    }
  }
}
