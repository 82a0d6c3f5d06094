import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { logDebug, warnOnce } from '../diag/logger.js';
import { packageRoot } from '../package-root.js';
import { getPreloadState } from '../state.js';
import { spansToOtlpJson } from './json-trace-serializer.js';

/** Where and how the spans of the `exit` event are sent: an OTLP/HTTP traces URL and its headers. */
export interface ExitSendTarget {
  url: string;
  headers: Record<string, string>;
  /** The bound on the whole hand-over, ms (`TRACEHOOK_SHUTDOWN_TIMEOUT_MS`). */
  timeoutMs: number;
}

/**
 * Wraps an OTLP exporter so that spans still queued when the app calls `process.exit()` reach the
 * backend. In the `exit` event no socket can complete, so there the spans are encoded as OTLP/JSON
 * and sent by a short-lived child process that this process waits for synchronously, bounded by
 * `timeoutMs` (OTLP/HTTP receivers accept JSON on the same URL as protobuf). At any other time
 * exports go to the wrapped exporter unchanged.
 */
export class ExitSafeSpanExporter implements SpanExporter {
  constructor(
    private readonly exporter: SpanExporter,
    private readonly target: ExitSendTarget,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (!getPreloadState().synchronousExport) {
      this.exporter.export(spans, resultCallback);
      return;
    }
    const started = Date.now();
    try {
      const body = spansToOtlpJson(spans);
      const sender = spawnSync(process.execPath, [join(packageRoot(), 'dist', 'exporters', 'exit-sender.js')], {
        input: JSON.stringify({ url: this.target.url, headers: this.target.headers, body }),
        timeout: this.target.timeoutMs,
        // A clean environment: the sender must not load the preload (NODE_OPTIONS) or anything else.
        env: { PATH: process.env.PATH ?? '' },
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      logDebug('exit', `sent ${spans.length} spans at exit in ${Date.now() - started} ms (status ${sender.status})`);
      resultCallback({ code: sender.status === 0 ? ExportResultCode.SUCCESS : ExportResultCode.FAILED });
    } catch (err) {
      warnOnce('exit', 'exit-send', `cannot send spans at exit: ${(err as Error).message}`);
      resultCallback({ code: ExportResultCode.FAILED, error: err as Error });
    }
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }
}
