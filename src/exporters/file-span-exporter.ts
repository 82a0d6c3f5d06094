import { closeSync, fstatSync, ftruncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { logDebug, logWarn, warnOnce } from '../diag/logger.js';
import { spansToOtlpJson } from './json-trace-serializer.js';
import { DEFAULT_SPANS_MAX_BYTES } from '../config/spans-dir.js';
import { UnsafePathError, openPrivateFile, preparePrivateDir, sizeIfStillAt } from './private-file.js';
import { SpanWriteError } from './span-write-error.js';

/** Spans per JSON line: the unit of encoding a caller can schedule writing in (bench/encode.mjs; RESULTS.md, "Encoding in place"). */
export const LINE_SPANS = 64;

/** Errors that make the default directory unusable for this user, as an unsafe one is: use the fallback. */
const FALLBACK_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR']);

/** Options of {@link FileSpanExporter}. */
export interface FileSpanExporterOptions {
  /** Default `<pid>.jsonl`. */
  fileName?: string;
  /**
   * Where to write instead when `dir` is unsafe (another user's, writable by others without the
   * sticky bit, a symlink of another user's). Without it an unsafe `dir` means no span files.
   */
  fallbackDir?: string;
  /**
   * The size the file may reach, bytes (default 256 MiB, the default of `TRACEHOOK_SPANS_MAX_BYTES`, which the
   * default hook passes). A line that would take the file past it is not written: its spans fail the export,
   * counted as lost. Worker threads append to the same file, each checking before its own line, so the file
   * may pass the bound by at most one line per thread.
   */
  maxBytes?: number;
}

/**
 * Writes spans to `<dir>/<pid>.jsonl` in the OTLP File Exporter format: JSON Lines, each line one
 * OTLP/JSON `ExportTraceServiceRequest` with hex trace and span ids, so the OpenTelemetry
 * Collector's `otlpjsonfile` receiver can replay the file into any backend.
 *
 * Each line (at most 64 spans) is one synchronous `write` to a file opened with `O_APPEND`, so worker
 * threads of the process append to the same file without interleaving; `export()` writes every line
 * before it calls back. On a shared machine the file is private: the directory is created 0700 and
 * must be ours or root's and not writable by others unless sticky; the file is opened without
 * following symlinks, created 0600, and must be a regular file of ours with one link. A file that
 * was deleted or renamed away (rotated) is reopened at the next export.
 *
 * A line is written whole or not at all: after a short write (disk full, file size limit) the file
 * is truncated back to the end of the last whole line. The file never grows past `maxBytes` (default
 * 256 MiB): once a line would take it past, lines are refused until the file is rotated or deleted.
 * Lines that could not be written fail the export with a {@link SpanWriteError} giving how many spans
 * were lost; each distinct cause is one stderr line with a running count. Never throws.
 * @see OpenTelemetry specification, "OTLP File Exporter" (file format)
 */
export class FileSpanExporter implements SpanExporter {
  private fd: number | undefined;
  private closed = false;
  /** Set when the directory was found unsafe: never write there, fail every export at once. */
  private refused: Error | undefined;
  /** The damage of a short write could not be truncated away: start the next line on a new line. */
  private cutLine = false;
  private activeDir: string;
  readonly fileName: string;
  private readonly fallbackDir: string | undefined;
  private readonly maxBytes: number;

  /**
   * @param dir - the spans directory, created (0700) on the first export (the default hook's is
   *   `TRACEHOOK_SPANS_DIR` or `/tmp/spans`)
   * @param options - file name (default `<pid>.jsonl`) and the directory to fall back to; a string
   *   is taken as the file name, as in earlier versions
   */
  constructor(
    readonly dir: string,
    options: FileSpanExporterOptions | string = {},
  ) {
    const opts = typeof options === 'string' ? { fileName: options } : options;
    this.fileName = opts.fileName ?? `${process.pid}.jsonl`;
    this.fallbackDir = opts.fallbackDir;
    this.maxBytes = opts.maxBytes ?? DEFAULT_SPANS_MAX_BYTES;
    this.activeDir = dir;
  }

  /** The file this exporter appends to (in the fallback directory once it had to use it). */
  get path(): string {
    return join(this.activeDir, this.fileName);
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    let failed = 0;
    let firstError: Error | undefined;
    for (let i = 0; i < spans.length; i += LINE_SPANS) {
      const line = spans.slice(i, i + LINE_SPANS);
      try {
        this.writeLine(`${spansToOtlpJson(line)}\n`);
      } catch (err) {
        failed += line.length;
        firstError ??= err as Error;
        this.report(err as Error);
      }
    }
    resultCallback(firstError ? { code: ExportResultCode.FAILED, error: new SpanWriteError(failed, firstError) } : { code: ExportResultCode.SUCCESS });
  }

  private writeLine(text: string): void {
    const { fd, size } = this.file();
    if (this.cutLine) text = `\n${text}`;
    const length = Buffer.byteLength(text);
    if (size + length > this.maxBytes) {
      throw Object.assign(new Error(`it reached its bound of ${this.maxBytes} bytes (TRACEHOOK_SPANS_MAX_BYTES); writing resumes once it is rotated or deleted`), {
        code: 'ERR_TRACEHOOK_SPANS_MAX_BYTES',
      });
    }
    const written = writeSync(fd, text);
    this.cutLine = false;
    if (written === length) return;
    this.repair(fd, written);
    throw Object.assign(new Error(`short write, ${written} of ${length} bytes (disk full or file size limit)`), { code: 'ESHORTWRITE' });
  }

  /** Removes the cut line a short write left at the end of the file, or has the next line start anew. */
  private repair(fd: number, written: number): void {
    try {
      ftruncateSync(fd, fstatSync(fd).size - written);
    } catch {
      this.cutLine = true;
    }
  }

  /** The open file and its size now, bytes: opened on first use, reopened when it was deleted or rotated away. */
  private file(): { fd: number; size: number } {
    if (this.closed) throw new Error('FileSpanExporter is shut down');
    if (this.refused) throw this.refused;
    if (this.fd !== undefined) {
      const size = sizeIfStillAt(this.fd, this.path);
      if (size !== undefined) return { fd: this.fd, size };
      logDebug('span-file', `${this.path} was deleted or moved: reopening it`);
      this.close();
    }
    const opened = this.open();
    this.fd = opened.fd;
    return opened;
  }

  /**
   * Opens the file in the spans directory, or in the fallback directory when that one is unsafe or
   * not ours to write (a `/tmp/spans` that root or another user created 0700 first).
   */
  private open(): { fd: number; size: number } {
    try {
      preparePrivateDir(this.activeDir);
      return openPrivateFile(this.path);
    } catch (err) {
      const unsafe = err instanceof UnsafePathError;
      if (!unsafe && !FALLBACK_CODES.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
      if (this.fallbackDir === undefined || this.activeDir === this.fallbackDir) {
        if (unsafe) this.refused = err;
        throw err;
      }
      const why = unsafe ? `${err.message}: not safe for span files` : `cannot write span files in ${this.activeDir} (${(err as NodeJS.ErrnoException).code})`;
      logWarn('span-file', `${why}; writing them to ${this.fallbackDir} instead`);
      this.activeDir = this.fallbackDir;
      return this.open();
    }
  }

  private report(err: Error): void {
    const code = (err as NodeJS.ErrnoException).code ?? err.name;
    const what = err instanceof UnsafePathError ? `${err.message}: not safe for span files; spans are not written` : `cannot write spans to ${this.path}: ${err.message}`;
    warnOnce('span-file', `write:${code}:${this.activeDir}`, `${what}; those spans are dropped and counted`);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  /** Closes the file; later exports fail. */
  shutdown(): Promise<void> {
    this.close();
    this.closed = true;
    return Promise.resolve();
  }

  private close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // already closed by the process ending: nothing to release.
    }
    this.fd = undefined;
  }
}
