import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { warnOnce } from '../diag/logger.js';
import { getPreloadState } from '../state.js';
import { spansToOtlpJson } from './json-trace-serializer.js';

/** Spans per JSON line: ≈ 0.6 ms of encoding, the longest the exporter holds the event loop. */
const LINE_SPANS = 64;

/**
 * Writes spans to `<dir>/<pid>.jsonl` in the OTLP File Exporter format: JSON Lines, each line one
 * OTLP/JSON `ExportTraceServiceRequest` with hex trace and span ids, so the OpenTelemetry
 * Collector's `otlpjsonfile` receiver can replay the file into any backend.
 *
 * Each line (at most 64 spans) is one synchronous `write` to a file opened with `O_APPEND`, so worker
 * threads of the process append to the same file without interleaving. A batch is written a line
 * per turn of the event loop, so no request waits behind a whole batch; whatever is still queued
 * when the process exits is written in the `exit` event, before the process ends.
 *
 * Errors (unwritable directory, disk full) are logged once with a count and reported as a failed
 * export; they never throw.
 * @see OpenTelemetry specification, "OTLP File Exporter" (file format)
 */
export class FileSpanExporter implements SpanExporter {
  private fd: number | undefined;
  private closed = false;
  /** Lines still to write, each at most LINE_SPANS spans, and the exports waiting on them. */
  private readonly queue: ReadableSpan[][] = [];
  private readonly callbacks: ((result: ExportResult) => void)[] = [];
  private draining = false;
  private failure: Error | undefined;

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
    for (let i = 0; i < spans.length; i += LINE_SPANS) this.queue.push(spans.slice(i, i + LINE_SPANS));
    this.callbacks.push(resultCallback);
    if (getPreloadState().synchronousExport) this.writeAll();
    else if (!this.draining) {
      this.draining = true;
      process.once('exit', this.writeAll);
      this.drain();
    }
  }

  /**
   * Writes one line per turn of the event loop: a full batch (512 spans, ≈ 5 ms of encoding) written
   * at once would stall every request waiting behind it.
   */
  private readonly drain = (): void => {
    const spans = this.queue.shift();
    if (spans) this.writeLine(spans);
    if (this.queue.length > 0) setImmediate(this.drain);
    else this.finish();
  };

  /** Writes everything queued now: at exit, when no later turn of the event loop will come. */
  private readonly writeAll = (): void => {
    for (let spans = this.queue.shift(); spans; spans = this.queue.shift()) this.writeLine(spans);
    this.finish();
  };

  private finish(): void {
    if (this.draining) process.removeListener('exit', this.writeAll);
    this.draining = false;
    const result = this.failure ? { code: ExportResultCode.FAILED, error: this.failure } : { code: ExportResultCode.SUCCESS };
    this.failure = undefined;
    for (const callback of this.callbacks.splice(0)) callback(result);
  }

  private writeLine(spans: ReadableSpan[]): void {
    try {
      if (this.fd === undefined) {
        mkdirSync(this.dir, { recursive: true });
        this.fd = openSync(this.path, 'a');
      }
      writeSync(this.fd, `${spansToOtlpJson(spans)}\n`);
    } catch (err) {
      this.failure = err as Error;
      const n = warnOnce('file-exporter', `write:${this.path}`, `cannot write spans to ${this.path}: ${(err as Error).message}; these spans are dropped`);
      if (n > 1 && (n & (n - 1)) === 0) warnOnce('file-exporter', `write:${this.path}:${n}`, `${n} exports to ${this.path} failed so far`);
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
