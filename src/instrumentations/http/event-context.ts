import { EventEmitter } from 'node:events';
import type { Context } from '@opentelemetry/api';
import * as api from '@opentelemetry/api';
import type { PatchSite } from '../../patch/wrap.js';
import { unwrap, wrap } from '../../patch/wrap.js';
import { stateKey } from '../../state-key.js';
import { contextStorage } from '../../context/context-storage.js';

const { context } = api;

// Shared by every copy of this build in one process (a versioned key): the first copy's wrapper serves them all.
const kContext = stateKey('http.eventContext');

type Emit = (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;
type WithContext = { [kContext]?: Context };
/** What is read of node:http's exports (loosely typed: the module object is loaded by name). */
export type MessageClasses = { IncomingMessage?: { prototype: { emit: Emit } }; ServerResponse?: { prototype: { emit: Emit } } };

const SITES: Record<'IncomingMessage' | 'ServerResponse', PatchSite> = {
  IncomingMessage: { component: 'http', id: 'http.IncomingMessage#emit', otherwise: "spans started in a request's 'data'/'end' listeners can start new traces" },
  ServerResponse: { component: 'http', id: 'http.ServerResponse#emit', otherwise: "spans started in a response's 'finish'/'close' listeners can start new traces" },
};

/**
 * Makes every event of `request` and `response` (`'data'`, `'end'`, `'finish'`, `'close'`, …) run
 * its listeners in `ctx`, as @opentelemetry/instrumentation-http's `context.bind` of both emitters
 * does, for one property store each. Without it a body's `'end'` runs where the socket's data
 * arrived (the connection's context, outside any trace), so spans started there become new root
 * traces and clients that need a parent record nothing.
 */
export function bindEventContext(request: object, response: object, ctx: Context): void {
  (request as WithContext)[kContext] = ctx;
  (response as WithContext)[kContext] = ctx;
}

// EventEmitter's own emit, when the prototype has no emit of its own: with no listener for an event (other than
// 'error', which also reaches the error monitors) it runs no code, so there is nothing to run in the context.
const plainEmit = EventEmitter.prototype.emit as Emit;

// The context is entered with the manager's AsyncLocalStorage directly (one frame, no rest arguments: see
// swapContext), and only where a listener runs that is not already in it; `context.with` otherwise.
function wrapEmit(original: Emit): Emit {
  const plain = original === plainEmit;
  return function emit(this: WithContext & { _events?: Record<string | symbol, unknown> }, event: string | symbol) {
    const ctx = this[kContext];
    if (ctx === undefined || (plain && event !== 'error' && this._events?.[event] === undefined)) return Reflect.apply(original, this, arguments);
    const storage = contextStorage();
    if (storage === undefined) return context.with(ctx, Reflect.apply, undefined, original, this, arguments) as boolean;
    const previous = storage.getStore();
    if (previous === ctx) return Reflect.apply(original, this, arguments);
    storage.enterWith(ctx);
    try {
      return Reflect.apply(original, this, arguments);
    } finally {
      storage.enterWith(previous as Context);
    }
  } as Emit;
}

/**
 * Wraps `emit` of `IncomingMessage.prototype` and `ServerResponse.prototype` (node:https uses the
 * same classes): a message without a bound context (a client's response, an untraced server)
 * passes straight through.
 */
export function patchEventContext(http: MessageClasses): void {
  wrap(http.IncomingMessage?.prototype, 'emit', SITES.IncomingMessage, wrapEmit);
  wrap(http.ServerResponse?.prototype, 'emit', SITES.ServerResponse, wrapEmit);
}

/** Undoes {@link patchEventContext}. */
export function unpatchEventContext(http: MessageClasses): void {
  unwrap(http.IncomingMessage?.prototype, 'emit', SITES.IncomingMessage);
  unwrap(http.ServerResponse?.prototype, 'emit', SITES.ServerResponse);
}
