import { join } from 'node:path';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { logDebug, warnOnce } from '../diag/logger.js';
import { shutdownBoundError } from '../diag/tracing-stats.js';
import { packageRoot } from '../package-root.js';
import { withUnrefTimers } from '../preload/unref-timers.js';
import { getPreloadState } from '../state.js';
import { spansToOtlpJson } from './json-trace-serializer.js';
import { setStepwiseEncoder, stepwiseEncoderOf } from './encoded-request.js';
import { keepPartialSuccess, partialSuccessOf, withRejection } from './partial-success.js';
import { stateKey } from '../state-key.js';

/** Where and how the spans of the `exit` event are sent. */
export interface ExitSendTarget {
  /** `http`: OTLP/HTTP with a JSON body; `grpc`: the OTLP/gRPC `TraceService/Export` call. */
  protocol: 'http' | 'grpc';
  /** The OTLP/HTTP traces URL, or the gRPC endpoint (`http://host:port`, `https://` for TLS). */
  url: string;
  headers: Record<string, string>;
  /** The bound on the hand-over when the exit path set no deadline, ms (`TRACEHOOK_SHUTDOWN_TIMEOUT_MS`). */
  timeoutMs: number;
}

/** What the exit path needs of each ExitSafeSpanExporter of this thread. */
export interface ExitSafeExport {
  /** Resolves when every export in flight has called back. Never rejects. */
  settled(): Promise<void>;
  /** Sends the batches still in flight before returning (the process is ending: their requests cannot complete). */
  sendInFlightNow(): void;
}

const REGISTRY_KEY = stateKey('exitSafeExporters');

/** The ExitSafeSpanExporters of this thread (shared by every copy of this module). */
export function exitSafeExporters(): Set<ExitSafeExport> {
  const g = globalThis as typeof globalThis & { [REGISTRY_KEY]?: Set<ExitSafeExport> };
  return (g[REGISTRY_KEY] ??= new Set());
}

interface Batch {
  spans: ReadableSpan[];
  done: (result: ExportResult) => void;
  settled: Promise<void>;
}

/**
 * Wraps an OTLP exporter so that no ended span is lost to the end of the process, and no export
 * keeps the process alive:
 * - exports in flight are tracked: the exit path waits for them (bounded), and when the process
 *   ends with some still in flight (the app's `process.exit()`, a signal), their spans are sent
 *   again synchronously (at least once: the backend may have received a request whose answer never
 *   came);
 * - in the `exit` event no socket can complete, so there spans are sent by a short-lived child
 *   process that this process waits for synchronously, bounded by the exit deadline: as OTLP/JSON
 *   over HTTP (receivers accept JSON on the protobuf URL), or as the protobuf request over gRPC;
 * - an `export()` that throws calls back FAILED instead; timers it arms synchronously are unref'd;
 * - spans the backend rejects in an accepted export (an OTLP partial success) are named in the
 *   SUCCESS result ({@link withRejection}), so the span processor counts them as dropped;
 * - the wrapped exporter's stepwise encoder is its own (the exit path ignores a batch's ready request).
 * At any other time exports go to the wrapped exporter unchanged.
 */
export class ExitSafeSpanExporter implements SpanExporter, ExitSafeExport {
  private readonly inFlight = new Set<Batch>();
  /** The backend's partial success in the answer read last (see {@link keepPartialSuccess}). */
  private readonly takeRejected: () => ReturnType<typeof partialSuccessOf>;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly target: ExitSendTarget,
  ) {
    exitSafeExporters().add(this);
    this.takeRejected = keepPartialSuccess(exporter);
    // The batch goes to the wrapped exporter as it is, with the request a span processor encoded for it.
    const encoder = stepwiseEncoderOf(exporter);
    if (encoder) setStepwiseEncoder(this, encoder);
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (getPreloadState().synchronousExport) {
      resultCallback(this.sendNow(spans));
      return;
    }
    let resolve!: () => void;
    const batch: Batch = {
      spans,
      settled: new Promise<void>((r) => (resolve = r)),
      done: (result) => {
        const rejected = this.takeRejected();
        if (!this.inFlight.delete(batch)) return;
        resolve();
        resultCallback(withRejection(result, rejected));
      },
    };
    this.inFlight.add(batch);
    try {
      withUnrefTimers(() => this.exporter.export(spans, batch.done));
    } catch (err) {
      batch.done({ code: ExportResultCode.FAILED, error: err as Error });
    }
  }

  settled(): Promise<void> {
    return Promise.all([...this.inFlight].map((b) => b.settled)).then(() => undefined);
  }

  sendInFlightNow(): void {
    const batches = [...this.inFlight];
    if (batches.length === 0) return;
    const result = this.sendNow(batches.flatMap((b) => b.spans));
    for (const b of batches) b.done(result);
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    exitSafeExporters().delete(this);
    return this.exporter.shutdown();
  }

  /** Sends `spans` through the exit sender, waiting for it up to the exit deadline. */
  private sendNow(spans: ReadableSpan[]): ExportResult {
    const deadline = getPreloadState().exitDeadline;
    const timeout = deadline === undefined ? this.target.timeoutMs : Math.floor(deadline - Date.now());
    if (timeout <= 0) {
      logDebug('exit', `${spans.length} spans not sent: the exit bound was reached`);
      return { code: ExportResultCode.FAILED, error: shutdownBoundError('the exit bound (TRACEHOOK_SHUTDOWN_TIMEOUT_MS) was reached') };
    }
    const started = Date.now();
    try {
      const body = this.target.protocol === 'grpc' ? Buffer.from(protobufRequest(spans)).toString('base64') : spansToOtlpJson(spans);
      // Loaded here, at exit, not in every process at startup (bench: startup, spawn → first HTTP 200, tracehook-files row).
      const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
      const sender = spawnSync(process.execPath, [join(packageRoot(), 'dist', 'exporters', 'exit-sender.js')], {
        input: JSON.stringify({ protocol: this.target.protocol, url: this.target.url, headers: this.target.headers, body }),
        timeout,
        // A clean environment: the sender must not load the preload (NODE_OPTIONS) or anything else.
        env: { PATH: process.env.PATH ?? '' },
        stdio: ['pipe', 'pipe', 'ignore'],
        // The backend's answer: an OTLP/JSON ExportTraceServiceResponse is a few hundred bytes.
        maxBuffer: 64 * 1024,
      });
      logDebug('exit', `sent ${spans.length} spans at exit in ${Date.now() - started} ms (status ${sender.status})`);
      if (sender.status === 0) return withRejection({ code: ExportResultCode.SUCCESS }, partialSuccessOf(this.target.protocol === 'grpc' ? protobufResponse(sender.stdout) : sender.stdout));
      // Killed at the deadline: the bound, not the backend, ended the send.
      if (sender.signal) return { code: ExportResultCode.FAILED, error: shutdownBoundError(`the exit sender was stopped at the exit bound after ${Date.now() - started} ms`) };
      return { code: ExportResultCode.FAILED };
    } catch (err) {
      warnOnce('exit', 'exit-send', `cannot send spans at exit: ${(err as Error).message}`);
      return { code: ExportResultCode.FAILED, error: err as Error };
    }
  }
}

/** An OTLP `ExportTraceServiceResponse` from its protobuf bytes (undefined when they do not decode). */
function protobufResponse(bytes: Uint8Array): unknown {
  if (bytes.length === 0) return undefined;
  const { ProtobufTraceSerializer } = require('@opentelemetry/otlp-transformer') as typeof import('@opentelemetry/otlp-transformer');
  try {
    return ProtobufTraceSerializer.deserializeResponse(bytes);
  } catch {
    return undefined;
  }
}

/** The OTLP `ExportTraceServiceRequest` of `spans` as protobuf (otlp-transformer is loaded by the gRPC exporter already). */
function protobufRequest(spans: ReadableSpan[]): Uint8Array {
  const { ProtobufTraceSerializer } = require('@opentelemetry/otlp-transformer') as typeof import('@opentelemetry/otlp-transformer');
  return ProtobufTraceSerializer.serializeRequest(spans) ?? new Uint8Array();
}
