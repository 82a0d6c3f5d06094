import type { Attributes, Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { getRequestId, REQUEST_ID_ATTRIBUTE } from '../context/request-id.js';
import { threadId } from '../workers/thread.js';

/** Ours: the cluster worker id (`cluster.worker.id`); the semantic conventions have none. */
export const CLUSTER_WORKER_ID_ATTRIBUTE = 'tracehook.cluster.worker.id';

/**
 * Stamps the runtime context on every span as it starts (the "SpanProcessor that stamps runtime
 * context" of the Anyscale Datadog recipe), so spans stay attributable when several processes and
 * threads export to one backend:
 * - `process.pid` (semantic conventions);
 * - `thread.id` (semantic conventions): the worker_threads `threadId`, 0 on the main thread;
 * - `tracehook.cluster.worker.id`: the `cluster` worker id, in cluster workers only;
 * - `tracehook.request.id`: the request id of the span's parent context, when one was set with
 *   `withRequestId()` (context key `REQUEST_ID_KEY`).
 * It exports nothing: put it before the exporting processors. Never throws.
 * @see Anyscale docs, "Tracing guide" for Ray Serve (https://docs.anyscale.com/monitoring/tracing), https://opentelemetry.io/docs/specs/semconv/registry/attributes/
 */
export class RuntimeContextSpanProcessor implements SpanProcessor {
  private readonly attributes: Attributes;

  constructor() {
    this.attributes = { 'process.pid': process.pid, 'thread.id': threadId };
    const workerId = clusterWorkerId();
    if (workerId !== undefined) this.attributes[CLUSTER_WORKER_ID_ATTRIBUTE] = workerId;
  }

  /** Sets the runtime attributes, and the request id of `parentContext` if any. */
  onStart(span: Span, parentContext: Context): void {
    span.setAttributes(this.attributes);
    const requestId = getRequestId(parentContext);
    if (requestId !== undefined) span.setAttribute(REQUEST_ID_ATTRIBUTE, requestId);
  }

  /** Nothing to do: the attributes were set at start. */
  onEnd(_span: ReadableSpan): void {}

  /** Resolves at once: nothing is buffered. */
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  /** Resolves at once: nothing to release. */
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

// Loaded only when this process is a cluster worker (node:cluster is already loaded there), to
// keep its import cost out of every other process.
function clusterWorkerId(): number | undefined {
  if (typeof process.send !== 'function') return undefined;
  try {
    return (require('node:cluster') as typeof import('node:cluster').default).worker?.id;
  } catch {
    return undefined;
  }
}
