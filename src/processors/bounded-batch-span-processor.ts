import { context } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode, suppressTracing } from '@opentelemetry/core';
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanQueueConfig } from '../config/span-queue.js';
import { DEFAULT_MAX_QUEUE_BYTES } from '../config/span-queue.js';
import { problemOf, warnOnce } from '../diag/logger.js';
import { isShutdownBoundError, tracingStats } from '../diag/tracing-stats.js';
import { getPreloadState } from '../state.js';
import { isSpanWriteError } from '../exporters/span-write-error.js';
import { printable, rejectedSpansOf } from '../exporters/partial-success.js';
import { monotonicMs } from '../provider/monotonic-clock.js';
import { estimateSpanBytes } from '../provider/span-size.js';
import type { RequestEncoding } from '../encoding/request-encoding.js';
import type { StepwiseEncoder } from '../exporters/encoded-request.js';
import { stepwiseEncoderOf, withEncodedRequest } from '../exporters/encoded-request.js';

/**
 * Options of {@link BoundedBatchSpanProcessor}: the queue configuration, by the SDK's BatchSpanProcessor names
 * (`maxQueueSize`, `scheduledDelayMillis`, `maxExportBatchSize`, `exportTimeoutMillis`; each defaults as there:
 * none (bytes only), 5000 ms, 512, 30000 ms; `maxQueueBytes` defaults to 16 MiB), plus how the exporter is fed.
 */
export interface BoundedBatchOptions extends Partial<SpanQueueConfig> {
  /** @deprecated Use `maxQueueSize`, the SDK's name; read when `maxQueueSize` is not given. */
  maxQueueSpans?: number;
  /** @deprecated Use `scheduledDelayMillis`, the SDK's name; read when `scheduledDelayMillis` is not given. */
  scheduledDelayMs?: number;
  /** @deprecated Use `exportTimeoutMillis`, the SDK's name; read when `exportTimeoutMillis` is not given. */
  exportTimeoutMs?: number;
  /**
   * @deprecated Use `maxExportBatchSize`, the SDK's name (spans per `export()` call, and the queue length that
   * starts an export). When given, only the spans per `export()` call; default `maxExportBatchSize`.
   */
  spansPerExport?: number;
  /** Names the destination in diagnostics, e.g. `OTLP http/protobuf http://collector:4318/v1/traces`. */
  destination: string;
  /**
   * Asynchronous exports in flight at once while the exporter succeeds; default 1. A second one
   * starts only for a full batch (`maxExportBatchSize` queued) or a flush; after a failed export, one at
   * a time until one succeeds. The exporter must accept as many (otlp-exporter-base's `concurrencyLimit`).
   */
  maxConcurrentExports?: number;
  /** @internal The time one turn of the event loop may spend exporting, ms; default 1. For tests (0: one step per turn). */
  sliceMillis?: number;
}

/** {@link BoundedBatchOptions} with the defaults and the deprecated names resolved. */
type ResolvedBatchOptions = SpanQueueConfig & { scheduledDelayMillis: number; sliceMillis: number } & Pick<BoundedBatchOptions, 'destination' | 'maxConcurrentExports'>;

function resolveOptions(o: BoundedBatchOptions): ResolvedBatchOptions {
  return {
    maxQueueBytes: o.maxQueueBytes ?? DEFAULT_MAX_QUEUE_BYTES,
    maxQueueSize: o.maxQueueSize ?? o.maxQueueSpans,
    scheduledDelayMillis: o.scheduledDelayMillis ?? o.scheduledDelayMs ?? 5000,
    maxExportBatchSize: o.maxExportBatchSize ?? 512,
    exportTimeoutMillis: o.exportTimeoutMillis ?? o.exportTimeoutMs ?? 30_000,
    destination: o.destination,
    maxConcurrentExports: o.maxConcurrentExports,
    sliceMillis: o.sliceMillis ?? SLICE_MS,
  };
}

/**
 * The time one turn of the event loop may spend exporting, ms: the drain goes on in the next turn
 * (`setImmediate`), so a request never waits behind more than this, whatever the load. One step is taken
 * at least, so a slice is this plus at most one batch of a synchronous exporter (a 64-span line is
 * ≈ 0.1–0.4 ms); an OTLP request's next {@link PIECE_SPANS} spans are encoded only while a piece as long as
 * the last still fits.
 */
const SLICE_MS = 1;
/** Spans of a request encoded between two looks at the clock (≈ 20–60 µs of protobuf or JSON). */
const PIECE_SPANS = 16;
/** The longest once the queue holds half its byte bound: losing spans is then the nearer harm. */
const MAX_SLICE_UNDER_PRESSURE_MS = 200;

/**
 * A batching SpanProcessor whose queue is bounded in bytes (estimated heap of the queued spans and
 * of those in unfinished exports, `TRACEHOOK_MAX_QUEUE_BYTES`, default 16 MiB), not only in spans: a burst of short spans is kept
 * whole, a flood of large ones cannot grow memory without bound. A span ending while the queue is
 * full is dropped and counted; nothing is held beyond the bound.
 *
 * Export starts when `maxExportBatchSize` spans are queued (or half the byte bound) or
 * `scheduledDelayMillis` after the first queued span, as the specification's Batch Span Processor does. An exporter that finishes
 * synchronously (span files) is fed batch after batch for up to 1 ms of one turn of the event loop, then
 * in the next turn, and so on: no request waits behind more than 1 ms of export. Only once the queue
 * holds half its bound may a turn write for twice the time since the previous one (up to 200 ms): near
 * the bound, dropping spans is the nearer harm than a slower request. An asynchronous exporter
 * (OTLP) gets one batch at a time, as with the stock processor, and while it succeeds up to
 * `maxConcurrentExports` full batches at once; a partial batch only once `scheduledDelayMillis` has
 * passed, for a flush, or near the byte bound, never merely because an earlier export has finished. When it
 * encodes requests stepwise (tracehook's
 * OTLP/HTTP exporters with the direct encoders: `setStepwiseEncoder`), the batch's request is encoded
 * here, {@link PIECE_SPANS} spans at a time within the same 1 ms slices (flushes included), and
 * `export()` gets the batch with its request ready: no turn encodes a whole 512-span request. A batch
 * being encoded counts as an export in flight (`maxConcurrentExports`, `maxQueueBytes`); at exit it is
 * exported at once, unencoded (the exit path encodes its own way).
 *
 * Every ended, sampled span is counted in {@link getTracingStats}: exported, or dropped with its
 * reason (queue full, export failed, write failed, rejected by the backend in an OTLP partial
 * success; what the exit flush leaves is counted as
 * shutdown bound reached). Exports run with tracing suppressed, so an exporter's own requests make
 * no spans.
 * @see OpenTelemetry specification, Tracing SDK, "Batching processor"
 */
export class BoundedBatchSpanProcessor implements SpanProcessor {
  private queue: ReadableSpan[] = [];
  /**
   * `sizes[i]` is the estimated bytes of `queue[i]`. A parallel array, not a WeakMap keyed by span:
   * an ephemeron per queued span cost every scavenge, and each lookup a hash (bench: throughput, main-thread CPU per request).
   */
  private sizes: number[] = [];
  /** Index of the first queued span in `queue` and `sizes` (both are compacted now and then). */
  private head = 0;
  private queuedBytes = 0;
  /** Estimated bytes of the spans in unfinished exports: they count towards `maxQueueBytes` too. */
  private exportingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private drainScheduled = false;
  private exporting = 0;
  private lastSliceEnd = monotonicMs();
  private flushWaiters: (() => void)[] = [];
  private closed = false;
  private spanEnded = false;
  private readonly spansPerExport: number;
  private readonly options: ResolvedBatchOptions;
  /** The last export failed: the backend is down or refusing; one export at a time until it answers. */
  private failing = false;
  /** The exporter's stepwise request encoder, if it has one. */
  private readonly encoder: StepwiseEncoder | undefined;
  /** The batch whose request is being encoded (already out of the queue, counted in `exporting` and `exportingBytes`). */
  private encoding: { batch: ReadableSpan[]; bytes: number; request: RequestEncoding } | undefined;

  /**
   * @param exporter - where batches go; called with at most `maxExportBatchSize` spans, up to
   *   `maxConcurrentExports` exports in flight at a time (default 1; any number inside the `exit`
   *   event, where exports are synchronous)
   * @param options - bounds (`maxQueueBytes` in bytes, optional `maxQueueSize`), batching
   *   (`scheduledDelayMillis`, `maxExportBatchSize`, `exportTimeoutMillis` in ms) and the destination's name
   */
  constructor(
    private readonly exporter: SpanExporter,
    options: BoundedBatchOptions,
  ) {
    this.options = resolveOptions(options);
    this.spansPerExport = options.spansPerExport ?? this.options.maxExportBatchSize;
    this.encoder = stepwiseEncoderOf(exporter);
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & 1) === 0) return;
    if (!this.spanEnded) this.firstSpanEnded();
    const stats = tracingStats();
    stats.ended++;
    if (this.closed) {
      stats.dropped.shutdownBound++;
      return;
    }
    const bytes = estimateSpanBytes(span);
    const count = this.queue.length - this.head;
    if (this.queuedBytes + this.exportingBytes + bytes > this.options.maxQueueBytes || count >= (this.options.maxQueueSize ?? Infinity)) {
      stats.dropped.queueFull++;
      const bound =
        count >= (this.options.maxQueueSize ?? Infinity) ? `${this.options.maxQueueSize} spans (OTEL_BSP_MAX_QUEUE_SIZE)` : `${this.options.maxQueueBytes} bytes (TRACEHOOK_MAX_QUEUE_BYTES)`;
      warnOnce('span-queue', 'queue-full', `the span queue is at its bound of ${bound}: ended spans are dropped and counted until the exporter catches up`);
      return;
    }
    this.queue.push(span);
    this.sizes.push(bytes);
    this.queuedBytes += bytes;
    stats.queued++;
    stats.queuedBytes += bytes;
    if (stats.queuedBytes > stats.queuedBytesPeak) stats.queuedBytesPeak = stats.queuedBytes;
    if (getPreloadState().synchronousExport) this.drain('all');
    else if (count + 1 >= this.options.maxExportBatchSize || this.queuedBytes * 2 >= this.options.maxQueueBytes) this.scheduleDrain();
    else this.armTimer();
  }

  /** Exports everything queued now (at exit, then flushes the exporter too); resolves when those exports have finished. Never rejects. */
  forceFlush(): Promise<void> {
    let done = Promise.resolve();
    if (this.queue.length > this.head || this.exporting > 0) {
      done = new Promise<void>((resolve) => this.flushWaiters.push(resolve));
      this.drain('all');
    }
    // At exit, or a worker's flush before it stops: no later turn comes, so the exporter's own flush now (span files
    // check their file there: lines written into it since its last check are written again if it was deleted).
    if (getPreloadState().synchronousExport) this.flushExporter();
    return done;
  }

  private flushExporter(): void {
    try {
      void this.exporter.forceFlush?.().catch(() => undefined);
    } catch {
      // An exporter whose flush throws loses nothing more than it would have.
    }
  }

  /** Flushes, then shuts the exporter down; spans ending later are dropped and counted. */
  async shutdown(): Promise<void> {
    await this.forceFlush();
    this.closed = true;
    await this.exporter.shutdown().catch(() => undefined);
  }

  private firstSpanEnded(): void {
    this.spanEnded = true;
    // Cheap, and it writes the code cache in a later turn itself.
    getPreloadState().codeReached?.('served');
  }

  private scheduleDrain(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      this.drain('full');
    });
  }

  /** Exports what is queued `scheduledDelayMillis` after the first span queued since the last export. */
  private armTimer(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.drain('due');
    }, this.options.scheduledDelayMillis).unref();
  }

  /**
   * Exports batches, or encodes the request of one, while the time slice lasts. `all`: until the queue is
   * empty (a flush; at the exit everything at once); `due`: the schedule's delay has passed, so a partial batch
   * goes too; `full`: a full batch is waiting or an export has finished, so an asynchronous exporter gets only
   * full batches and the rest waits for the schedule, as the specification's processor does. Continuing after
   * every answer with whatever was queued meanwhile sent one OTLP request per answer's round trip, ≈ 30 spans
   * each from a busy worker-messaging app (bench: workers, OTLP rows). An asynchronous export ends the slice
   * unless another may start, and its callback continues the drain.
   */
  private drain(mode: 'all' | 'due' | 'full'): void {
    const start = monotonicMs();
    const gap = start - this.lastSliceEnd;
    const pressure = this.queuedBytes * 2 >= this.options.maxQueueBytes;
    const sliceMs = this.options.sliceMillis;
    const slice = pressure ? Math.min(MAX_SLICE_UNDER_PRESSURE_MS, Math.max(sliceMs, 2 * gap)) : sliceMs;
    const sync = getPreloadState().synchronousExport === true;
    const all = mode === 'all';
    const partial = all || mode === 'due' || pressure;
    // A flush of an asynchronous exporter is answered later anyway: its encoding keeps to the slices too.
    const timed = !sync && (!all || this.encoder !== undefined);
    for (let stepStart = start; ;) {
      if (this.encoding) this.encodePiece(sync);
      else if (this.queue.length > this.head && (sync || (this.mayStartExport(all) && (partial || this.queue.length - this.head >= this.spansPerExport)))) this.exportBatch(sync);
      else break;
      const now = monotonicMs();
      // A request's next piece is taken only if one as long as the last still fits the slice.
      const next = this.encoding ? now - stepStart : 0;
      if (timed && now - start + next >= slice) break;
      stepStart = now;
    }
    this.lastSliceEnd = monotonicMs();
    const queued = this.queue.length - this.head;
    if (queued === 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.encoding) this.scheduleDrain();
    else if (queued > 0) {
      if (this.exporting === 0 && (sync || partial || queued >= this.spansPerExport)) this.scheduleDrain();
      else this.armTimer();
    }
    if (queued === 0 && this.exporting === 0) for (const resolve of this.flushWaiters.splice(0)) resolve();
  }

  /**
   * Whether another asynchronous export may start now: the first always; more (up to
   * `maxConcurrentExports`, while exports succeed) only for a full batch or a flush, so a backend
   * far away, or an event loop slow to run the answers' callbacks, does not cap the spans exported
   * per round trip at one batch while the app makes more.
   */
  private mayStartExport(all: boolean): boolean {
    if (this.exporting === 0) return true;
    if (this.failing || this.exporting >= (this.options.maxConcurrentExports ?? 1)) return false;
    return all || this.queue.length - this.head >= this.spansPerExport;
  }

  /** Takes the next batch out of the queue and exports it, or starts encoding its request (`sync`: never). */
  private exportBatch(sync: boolean): void {
    const end = Math.min(this.queue.length, this.head + this.spansPerExport);
    const batch = this.queue.slice(this.head, end);
    let bytes = 0;
    for (let i = this.head; i < end; i++) bytes += this.sizes[i];
    this.head = end;
    if (end === this.queue.length) {
      // Drained: let go of the exported spans now, so they die young rather than be copied by scavenges.
      this.queue = [];
      this.sizes = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
    this.queuedBytes -= bytes;
    const stats = tracingStats();
    stats.queued -= batch.length;
    stats.queuedBytes -= bytes;
    stats.exporting += batch.length;
    this.exporting++;
    this.exportingBytes += bytes;
    if (this.encoder && !sync) this.encoding = { batch, bytes, request: this.encoder(batch) };
    else this.send(batch, bytes);
  }

  /** Encodes the next piece of the pending request, and exports the batch once it is whole (`sync`: at once, as it is). */
  private encodePiece(sync: boolean): void {
    const { batch, bytes, request } = this.encoding!;
    let encoded: Uint8Array | undefined;
    if (!sync) {
      try {
        encoded = request.next(PIECE_SPANS);
        if (encoded === undefined) return;
      } catch {
        // Sent unencoded: the exporter's own encoding fails again inside export(), which counts the spans as failed and says why.
      }
    }
    this.encoding = undefined;
    this.send(encoded ? withEncodedRequest(batch, encoded) : batch, bytes);
  }

  /** Hands a batch taken out of the queue (`bytes`: its estimated size) to the exporter; counts the result. */
  private send(batch: ReadableSpan[], bytes: number): void {
    let settled = false;
    const timer = setTimeout(
      () => done({ code: ExportResultCode.FAILED, error: new Error(`export timed out after ${this.options.exportTimeoutMillis} ms (OTEL_BSP_EXPORT_TIMEOUT)`) }),
      this.options.exportTimeoutMillis,
    ).unref();
    const done = (result: ExportResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      this.exporting--;
      this.exportingBytes -= bytes;
      this.settle(batch.length, result);
      // Synchronous results continue in the drain loop; an asynchronous one continues the drain here.
      if (!inExport) this.drain(this.flushWaiters.length > 0 ? 'all' : 'full');
    };
    let inExport = true;
    try {
      context.with(suppressTracing(context.active()), () => this.exporter.export(batch, done));
    } catch (err) {
      done({ code: ExportResultCode.FAILED, error: err as Error });
    }
    inExport = false;
  }

  /** Counts a finished export: exported, or dropped as write or export failures. */
  private settle(spans: number, result: ExportResult): void {
    const stats = tracingStats();
    stats.exporting -= spans;
    this.failing = result.code !== ExportResultCode.SUCCESS;
    if (result.code === ExportResultCode.SUCCESS) {
      const rejected = Math.min(spans, rejectedSpansOf(result.error)?.rejectedSpans ?? 0);
      stats.exported += spans - rejected;
      if (rejected > 0) this.countRejected(rejected, spans, rejectedSpansOf(result.error)!.errorMessage);
      return;
    }
    const error = result.error;
    if (isSpanWriteError(error)) {
      // The span-file exporter has reported the write failure itself, with its path and cause.
      stats.exported += spans - error.failedSpans;
      stats.dropped.writeFailed += error.failedSpans;
      return;
    }
    if (isShutdownBoundError(error)) {
      stats.dropped.shutdownBound += spans;
      return;
    }
    stats.dropped.exportFailed += spans;
    const cause = describeExportError(error);
    warnOnce('exporter', `export:${this.options.destination}:${problemOf(cause)}`, `export to ${this.options.destination} failed: ${cause}; those spans are dropped and counted`);
  }

  /** Counts spans the backend rejected in an export it accepted (OTLP partial success), with one line per distinct message. */
  private countRejected(rejected: number, spans: number, errorMessage: string): void {
    tracingStats().dropped.rejected += rejected;
    const why = errorMessage ? printable(errorMessage) : 'no reason given';
    warnOnce(
      'exporter',
      `rejected:${this.options.destination}:${problemOf(why)}`,
      `${this.options.destination} rejected ${rejected} of ${spans} spans (OTLP partial success): ${why}; those spans are dropped and counted`,
    );
  }
}

/** One line for an exporter's error: the HTTP status or the error code and message, no stack, no body. */
function describeExportError(error: Error | undefined): string {
  if (!error) return 'the exporter reported a failure';
  const { code } = error as Error & { code?: unknown };
  const message = (error.message || error.name).split('\n')[0].slice(0, 200);
  if (typeof code === 'number') return `HTTP status ${code}${message ? ` (${message})` : ''}`;
  return message;
}
