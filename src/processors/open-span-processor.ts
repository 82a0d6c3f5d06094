import type { Span as ApiSpan } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { markSpanError } from '../context/span-error.js';
import { logDebug } from '../diag/logger.js';
import { onProcessEvent } from '../preload/signals.js';
import { getPreloadState } from '../state.js';
import { stateKey } from '../state-key.js';

/** Set on spans that were still open when the process ended and were ended by tracehook. Ours: the semantic conventions have none. */
export const INCOMPLETE_ATTRIBUTE = 'tracehook.incomplete';

/**
 * Most open spans tracked per thread. Past it, further spans are not tracked (they are exported as
 * usual when they end, but lost if still open at exit) and counted; the bound keeps spans an app
 * leaks (starts and never ends) from holding memory without end: at ≈ 1–2 KiB a span, 8–16 MiB at most.
 */
export const MAX_TRACKED_OPEN_SPANS = 8192;

interface OpenSpans {
  spans: Set<Span>;
  /** Spans not tracked because the set was full. */
  untracked: number;
  /** The uncaught-exception listener is installed in this thread. */
  listening: boolean;
  /** Hands the ended spans to the exporters (the provider's forceFlush), so a batch queue never overflows. */
  flush?: () => Promise<void>;
}

/** Spans ended between two flushes by {@link endOpenSpans}: a quarter of the BatchSpanProcessor's default queue. */
const END_CHUNK = 512;

// One set per thread, shared by every copy of this module (the preload bundle and the API's files).
const KEY = stateKey('openSpans');

const MARK = stateKey('openSpanProcessor');

let cached: OpenSpans | undefined;

function openSpans(): OpenSpans {
  if (cached) return cached;
  const g = globalThis as typeof globalThis & { [KEY]?: OpenSpans };
  return (cached = g[KEY] ??= { spans: new Set(), untracked: 0, listening: false });
}

/**
 * Keeps the spans that have started and not ended (a Set: add on start, delete on end), so that
 * the spans in flight when the process ends can be ended and exported by {@link endOpenSpans}:
 * a crash's trace then shows what the process was doing. Put it first among the span processors.
 * The preload's exit steps call {@link endOpenSpans} before the final export (`exit`, a signal, or the
 * app signalling itself). Creating one installs, once per thread, an `'uncaughtExceptionMonitor'`
 * handler (not a listener the app could count) that records the exception on the span active where it was thrown (status ERROR); it does
 * not change how the process ends. Never throws.
 */
export class OpenSpanProcessor implements SpanProcessor {
  /** Marks an instance for {@link isOpenSpanProcessor}, across the copies of this module (bundle, API files). */
  readonly [MARK] = true;

  constructor() {
    listenOnce();
  }

  /** Tracks `span`, unless {@link MAX_TRACKED_OPEN_SPANS} are already tracked or its end is certain (`LeanSpan#_endCertain`). */
  onStart(span: Span): void {
    if ((span as { _endCertain?: boolean })._endCertain === true) return;
    const open = openSpans();
    if (open.spans.size < MAX_TRACKED_OPEN_SPANS) open.spans.add(span);
    else open.untracked++;
  }

  /** Forgets `span`. */
  onEnd(span: ReadableSpan): void {
    openSpans().spans.delete(span as Span);
  }

  /** Resolves at once: nothing is buffered. */
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  /** Resolves at once: nothing to release. */
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Whether `processor` is an {@link OpenSpanProcessor} of this tracehook version (any copy of this module). */
export function isOpenSpanProcessor(processor: unknown): boolean {
  return (processor as { [MARK]?: unknown } | null | undefined)?.[MARK] === true;
}

/**
 * Ends every tracked span still open, each marked `tracehook.incomplete=true`, so the span
 * processors export them with the final flush; call it on the way out, before that flush. In the
 * exit steps (exports synchronous) the provider is flushed every 512 spans (see
 * {@link flushOpenSpansWith}), so a batch queue cannot overflow; elsewhere the batch queue's bound
 * applies.
 * @param reason - for the debug line, e.g. `exit`, `SIGTERM`
 * @returns how many spans were ended
 */
export function endOpenSpans(reason: string): number {
  const open = openSpans();
  const spans = [...open.spans];
  open.spans.clear();
  // When exports are synchronous (the exit steps), flushing between chunks drains the queue as it
  // fills; elsewhere an export started early would not be awaited by the final flush.
  const flush = getPreloadState().synchronousExport ? open.flush : undefined;
  spans.forEach((span, i) => {
    try {
      span.setAttribute(INCOMPLETE_ATTRIBUTE, true);
      span.end();
      if ((i + 1) % END_CHUNK === 0) void flush?.().catch(() => undefined);
    } catch {
      // A span processor that throws must not keep the others' spans from ending.
    }
  });
  if (spans.length > 0 || open.untracked > 0) {
    logDebug('exit', `${reason}: ended ${spans.length} open span(s) as incomplete; ${open.untracked} started past the bound of ${MAX_TRACKED_OPEN_SPANS} were not tracked`);
  }
  return spans.length;
}

/**
 * Sets how {@link endOpenSpans} hands ended spans over between chunks: the provider's `forceFlush`
 * (a batch span processor's queue, 2048 spans by default, would drop the rest of thousands ended at once).
 */
export function flushOpenSpansWith(flush: () => Promise<void>): void {
  openSpans().flush = flush;
}

function listenOnce(): void {
  const open = openSpans();
  if (open.listening) return;
  open.listening = true;
  onProcessEvent('uncaughtExceptionMonitor', recordUncaught);
}

// The context active in the monitor is that of the callback that threw (AsyncLocalStorage keeps it).
function recordUncaught(err: unknown): void {
  const span: ApiSpan | undefined = trace.getActiveSpan();
  if (span?.isRecording()) markSpanError(span, err);
}
