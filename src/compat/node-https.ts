/**
 * Node.js internal: node:https builds its global agent as it loads.
 * - Relies on: `require('_http_agent').Agent` (a deprecated-but-public alias of node:http's `Agent`) being read by
 *   lib/https.js at load, whose `globalAgent = new Agent(…)` calls it once through `FunctionPrototypeCall(HttpAgent…)`
 *   in its own `Agent` constructor; so wrapping that export sees every load of node:https, CommonJS or ES module.
 * - Since: Node.js 0.x (`_http_agent` since 0.11); the call at load holds in Node.js 20 to 26.
 * - When it is gone: with {@link httpAgentModule} undefined, node:https is loaded and patched at startup (a few ms
 *   more, said at DEBUG); when node:https stops calling it, node:https first loaded by an ES module `import` is
 *   patched after the first turn of the event loop (its first requests untraced); a `require('https')` is still
 *   patched as it returns.
 * Used by src/instrumentations/http/https-loaded.ts; test/unit/compat.test.mjs.
 */

/** `_http_agent`'s exports with the `Agent` function tracehook wraps. */
export interface HttpAgentModule {
  Agent: (this: unknown, ...args: unknown[]) => unknown;
}

/** `require('_http_agent')` when it has an `Agent` function, else undefined. Never throws. */
export function httpAgentModule(load: (id: string) => unknown = require): HttpAgentModule | undefined {
  try {
    const agents = load('_http_agent') as Partial<HttpAgentModule> | undefined;
    return typeof agents?.Agent === 'function' ? (agents as HttpAgentModule) : undefined;
  } catch {
    return undefined;
  }
}
