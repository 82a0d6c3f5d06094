import type { AsyncLocalStorage } from 'node:async_hooks';
import { tracingChannel } from 'node:diagnostics_channel';
import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import { asyncLocalStorageOf, contextManagerOf } from '../../compat/otel-context.js';
import { logDebug } from '../../diag/logger.js';

/** The message a TracingChannel publishes: the library's context object, with `error` set when the call failed. */
export type ChannelMessage = Record<string, unknown> & { error?: unknown };

/** What one TracingChannel's spans are made of. */
export interface ChannelSpans {
  /** `name` of `tracingChannel(name)`, as the library publishes it (`ioredis:command`). */
  channel: string;
  /** Starts the span of one call; `parent` is the caller's context (the active context at `start`); undefined: none. */
  start(message: ChannelMessage, parent: Context): Span | undefined;
  /** Records the call's error on its span (status, and an exception event where the patch-based one adds it). */
  fail(span: Span, error: unknown): void;
  /** Called at `start` and at `end` (synchronous part), for state kept between the two (an ioredis MULTI). */
  window?(open: boolean): void;
  /**
   * The call opens something that outlives it and acts later on its own (ioredis's connection: its socket, the
   * commands queued while it connects, every reconnect): the call runs under the root context, so nothing it does
   * later inherits the caller's trace (a queued command of another request would otherwise be parented to the
   * request that happened to open the connection). Its own span still has the caller's context as parent.
   */
  detached?: boolean;
}

type Handlers = Parameters<ReturnType<typeof tracingChannel>['subscribe']>[0];

/**
 * Subscribes to the TracingChannel of `spans`: a span starts at `start` and ends at `asyncEnd` (the library's
 * promise settled or its callback returned), or at `end` when the call threw synchronously (no `asyncEnd` follows).
 * A subscriber's exception would reach the app as an uncaught exception (diagnostics_channel rethrows it on the next
 * tick): each handler catches and logs at DEBUG. Subscribing costs nothing while the library is absent: the channel
 * is a name in Node's registry, which the library, bundled or not, looks up when it loads.
 * @returns the function that unsubscribes
 * @see Node.js documentation, "diagnostics_channel", "Class: TracingChannel"
 */
export function subscribeChannelSpans(spans: ChannelSpans): () => void {
  const open = new WeakMap<object, Span>();
  const guard =
    (what: string, fn: (message: ChannelMessage) => void) =>
    (message: unknown): void => {
      if (message === null || typeof message !== 'object') return;
      try {
        fn(message as ChannelMessage);
      } catch (err) {
        logDebug('instrumentations', `${spans.channel} ${what}: ${(err as Error)?.message}`);
      }
    };
  const finish = (message: ChannelMessage) => {
    const span = open.get(message);
    if (span === undefined) return;
    open.delete(message);
    span.end();
  };
  // The caller's context of a detached call, taken before its store is entered (start's subscribers run inside it).
  const callers = new WeakMap<object, Context>();
  const handlers: Handlers = {
    start: guard('start', (message) => {
      spans.window?.(true);
      const parent = callers.get(message) ?? context.active();
      callers.delete(message);
      const span = spans.start(message, parent);
      if (span !== undefined) open.set(message, span);
    }),
    end: guard('end', (message) => {
      spans.window?.(false);
      if (message.error !== undefined) finish(message);
    }),
    asyncStart: () => undefined,
    asyncEnd: guard('asyncEnd', finish),
    error: guard('error', (message) => {
      const span = open.get(message);
      if (span !== undefined) spans.fail(span, message.error);
    }),
  };
  const channel = tracingChannel(spans.channel);
  channel.subscribe(handlers);
  const storage = spans.detached ? (asyncLocalStorageOf(contextManagerOf(context)) as AsyncLocalStorage<Context> | undefined) : undefined;
  if (storage) {
    channel.start.bindStore(storage, (message) => {
      if (message !== null && typeof message === 'object') callers.set(message, context.active());
      return ROOT_CONTEXT;
    });
  }
  return () => {
    channel.unsubscribe(handlers);
    if (storage) channel.start.unbindStore(storage);
  };
}

/** The message of `error`, for a span's status; `String(error)` for what is not an Error. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
