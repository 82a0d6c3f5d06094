import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { warnOnce } from '../diag/logger.js';
import { jsonTraceSerializer } from './json-trace-serializer.js';

const NEWLINE = Buffer.from('\n');

/**
 * Writes spans to `<dir>/<pid>.jsonl` in the OTLP File Exporter format: JSON Lines, each line one
 * OTLP/JSON `ExportTraceServiceRequest` with hex trace and span ids, so the OpenTelemetry
 * Collector's `otlpjsonfile` receiver can replay the file into any backend.
 *
 * Each export is one synchronous `write` of whole lines to a file opened with `O_APPEND`: worker
 * threads of the process append to the same file without interleaving, and an export started from
 * the `exit` event completes before the process ends.
 *
 * Errors (unwritable directory, disk full) are logged once with a count and reported as a failed
 * export; they never throw.
 * @see OpenTelemetry specification, "OTLP File Exporter" (file format)
 */
export class FileSpanExporter implements SpanExporter {
  private fd: number | undefined;
  private closed = false;

  /**
   * @param dir - the spans directory, created on the first export (default of the default hook:
   *   `TRACEHOOK_SPANS_DIR` or `/tmp/spans`)
   * @param fileName - default `<pid>.jsonl`
   */
  constructor(
    readonly dir: string,
    readonly fileName = `${process.pid}.jsonl`,
  ) {}

  /** The file this exporter appends to. */
  get path(): string {
    return join(this.dir, this.fileName);
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.closed) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error('FileSpanExporter is shut down') });
      return;
    }
    try {
      if (this.fd === undefined) {
        mkdirSync(this.dir, { recursive: true });
        this.fd = openSync(this.path, 'a');
      }
      const body = jsonTraceSerializer().serializeRequest(spans);
      if (body) writeSync(this.fd, Buffer.concat([body, NEWLINE]));
      resultCallback({ code: ExportResultCode.SUCCESS });
    } catch (err) {
      const n = warnOnce('file-exporter', `write:${this.path}`, `cannot write spans to ${this.path}: ${(err as Error).message}; these spans are dropped`);
      if (n > 1 && (n & (n - 1)) === 0) warnOnce('file-exporter', `write:${this.path}:${n}`, `${n} exports to ${this.path} failed so far`);
      resultCallback({ code: ExportResultCode.FAILED, error: err as Error });
    }
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  /** Closes the file; later exports fail. */
  shutdown(): Promise<void> {
    this.closed = true;
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // already closed by the process ending: nothing to release.
      }
      this.fd = undefined;
    }
    return Promise.resolve();
  }
}
