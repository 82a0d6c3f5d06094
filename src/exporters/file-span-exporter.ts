import { closeSync, fstatSync, ftruncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { logDebug, logWarn, warnOnce } from '../diag/logger.js';
import { ByteLine } from '../encoding/byte-line.js';
import { monotonicMs } from '../provider/monotonic-clock.js';
import { getPreloadState } from '../state.js';
import { spansToOtlpJsonInto } from './json-trace-serializer.js';
import { DEFAULT_SPANS_MAX_BYTES } from '../config/spans-dir.js';
import { UnsafePathError, fileStateAt, openPrivateFile, preparePrivateDir } from './private-file.js';
import { SpanWriteError } from './span-write-error.js';

/** Spans per JSON line: the unit of encoding a caller can schedule writing in (bench/encode.mjs; RESULTS.md, "Encoding in place"). */
export const LINE_SPANS = 64;

/** How often, at most, the file is checked for deletion or rotation (two stat calls), ms. */
export const CHECK_INTERVAL_MS = 100;
/**
 * Lines closer together than this, ms, skip the check until {@link CHECK_INTERVAL_MS} has passed; the first line after
 * a pause checks first, so an app that writes now and then sees a rotation at once, as with a check per line.
 */
const CLOSE_LINES_MS = 10;
/** The lines kept for a rewrite since the last check, bytes, that make the next line check first (bounds the memory kept). */
const MAX_KEPT_BYTES = 256 * 1024;
const NEWLINE = 0x0a;

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
   * counted as lost. Worker threads append to the same file, and each learns the others' lines at its next check
   * of the file (at most 100 ms apart), so the file may pass the bound by what they wrote in that window.
   */
  maxBytes?: number;
}

/**
 * Writes spans to `<dir>/<pid>.jsonl` in the OTLP File Exporter format: JSON Lines, each line one
 * OTLP/JSON `ExportTraceServiceRequest` with hex trace and span ids, so the OpenTelemetry
 * Collector's `otlpjsonfile` receiver can replay the file into any backend.
 *
 * Each line (at most 64 spans) is encoded into a reused buffer and written with one synchronous `write` to a
 * file opened with `O_APPEND`, so worker threads of the process append to the same file without
 * interleaving; `export()` writes every line before it calls back. On a shared machine the file is private: the directory is created 0700 and
 * must be ours or root's and not writable by others unless sticky; the file is opened without
 * following symlinks, created 0600, and must be a regular file of ours with one link. Whether the file
 * was deleted or renamed away (rotated) is checked (two stat calls) before a line that follows a pause of
 * 10 ms, at most every 100 ms ({@link CHECK_INTERVAL_MS}) while lines follow closer, and at a flush,
 * shutdown or exit; then it is reopened, and the lines written into a deleted file since the
 * previous check are written again to the new one, so a deletion loses no span.
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
  /** The file's size as last checked, plus what this exporter wrote since, bytes. */
  private size = 0;
  /** {@link monotonicMs} of the last check that the file is still at its path. */
  private checkedAt = 0;
  /** {@link monotonicMs} of the last line written. */
  private wroteAt = 0;
  /** The lines written since that check, kept to write again should the file turn out deleted. */
  private readonly written = new ByteLine();

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
      const line = spans.length <= LINE_SPANS ? spans : spans.slice(i, i + LINE_SPANS);
      try {
        this.writeLine(line);
      } catch (err) {
        failed += line.length;
        firstError ??= err as Error;
        this.report(err as Error);
      }
    }
    // Leaving the process or the thread (exit, a worker's flush before terminate()): no later check would come.
    if (getPreloadState().synchronousExport) this.checkNow();
    resultCallback(firstError ? { code: ExportResultCode.FAILED, error: new SpanWriteError(failed, firstError) } : { code: ExportResultCode.SUCCESS });
  }

  /** Encodes `spans` as one line after the lines written since the last check, and writes it with one `write`. */
  private writeLine(spans: ReadableSpan[]): void {
    let fd = this.file();
    const out = this.written;
    const start = out.length;
    try {
      if (this.cutLine) out.byte(NEWLINE);
      spansToOtlpJsonInto(spans, out);
      out.byte(NEWLINE);
    } catch (err) {
      out.length = start;
      throw err;
    }
    const length = out.length - start;
    if (this.size + length > this.maxBytes) {
      // Rotated or deleted since the last check, the file may have room again: look now rather than refuse the line.
      this.checkedAt = -Infinity;
      try {
        fd = this.file(length);
      } catch (err) {
        out.length -= length;
        throw err;
      }
    }
    if (this.size + length > this.maxBytes) {
      out.length -= length;
      throw Object.assign(new Error(`it reached its bound of ${this.maxBytes} bytes (TRACEHOOK_SPANS_MAX_BYTES); writing resumes once it is rotated or deleted`), {
        code: 'ERR_TRACEHOOK_SPANS_MAX_BYTES',
      });
    }
    const begin = out.length - length;
    let written: number;
    try {
      written = writeSync(fd, out.buffer, begin, length);
    } catch (err) {
      out.length = begin;
      throw err;
    }
    this.cutLine = false;
    if (written === length) {
      this.size += length;
      this.wroteAt = monotonicMs();
      return;
    }
    out.length = begin;
    this.repair(fd, written);
    throw Object.assign(new Error(`short write, ${written} of ${length} bytes (disk full or file size limit)`), { code: 'ESHORTWRITE' });
  }

  /** Removes the cut line a short write left at the end of the file, or has the next line start anew. */
  private repair(fd: number, written: number): void {
    try {
      const size = fstatSync(fd).size - written;
      ftruncateSync(fd, size);
      this.size = size;
    } catch {
      this.cutLine = true;
      this.size += written;
    }
  }

  /**
   * The open file: opened on first use; checked before a line that follows a pause ({@link CLOSE_LINES_MS}), and
   * while lines follow each other closely at most every {@link CHECK_INTERVAL_MS} (or once the lines kept since the
   * last check reach {@link MAX_KEPT_BYTES}); reopened when it was deleted or rotated away.
   * @param unwritten - bytes at the end of the kept lines not written yet (the line about to be): kept through a check
   */
  private file(unwritten = 0): number {
    if (this.closed) throw new Error('FileSpanExporter is shut down');
    if (this.refused) throw this.refused;
    const now = monotonicMs();
    const due = now - this.checkedAt >= CHECK_INTERVAL_MS || now - this.wroteAt >= CLOSE_LINES_MS || this.written.length - unwritten >= MAX_KEPT_BYTES;
    if (this.fd === undefined || due) this.checkNow(unwritten);
    if (this.fd !== undefined) return this.fd;
    const opened = this.open();
    this.fd = opened.fd;
    this.size = opened.size;
    this.checkedAt = monotonicMs();
    return opened.fd;
  }

  /**
   * Checks that the file is still at its path. Deleted: the lines written since the last check are gone
   * with it, so they are written again to a new file. Renamed away (rotated): they are in the renamed file; later
   * lines go to a new one. Either way the kept lines are let go.
   */
  private checkNow(unwritten = 0): void {
    this.checkedAt = monotonicMs();
    if (this.fd === undefined) return;
    const state = fileStateAt(this.fd, this.path);
    const kept = this.written.length - unwritten;
    if (typeof state === 'object') {
      // Worker threads append to the same file: their lines count towards the bound too.
      this.size = state.size;
    } else {
      logDebug('span-file', `${this.path} was ${state === 'deleted' ? 'deleted' : 'moved'}: reopening it`);
      this.close();
      if (state === 'deleted' && kept > 0) this.rewriteKept(kept);
    }
    this.written.drop(kept);
  }

  /** Writes the lines kept since the last check to a new file (the one they went to was deleted). */
  private rewriteKept(kept: number): void {
    const out = this.written;
    try {
      const opened = this.open();
      this.fd = opened.fd;
      this.size = opened.size;
      const written = writeSync(opened.fd, out.buffer, 0, kept);
      this.size += written;
      if (written !== kept) this.repair(opened.fd, written);
      this.cutLine = false;
    } catch (err) {
      this.report(err as Error);
    }
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

  /** Checks the file at once (see {@link FileSpanExporter}): lines written just before it was deleted are written again. */
  forceFlush(): Promise<void> {
    if (!this.closed) this.checkNow();
    return Promise.resolve();
  }

  /** Checks the file as {@link forceFlush} does, then closes it; later exports fail. */
  shutdown(): Promise<void> {
    if (!this.closed) this.checkNow();
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
