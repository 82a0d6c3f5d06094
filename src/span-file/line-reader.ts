/**
 * Reads span files line by line with bounded memory and time linear in the file's size: a
 * fixed-size read buffer plus at most one line of up to {@link MAX_LINE_BYTES}; a longer line is
 * passed over (reported, never accumulated). Each line comes with its byte position, so an index
 * can read it again later without keeping it. Files are opened by {@link openSpanFile}: what is read
 * of a file ends at its size when opened.
 */
import type { FileHandle } from 'node:fs/promises';
import { openSpanFile, type SpanFileOptions } from './span-files';

/** One line of a span file. */
export interface SpanFileLine {
  /** The line without its newline; `''` for a line that is {@link SpanFileLine.tooLong}. */
  text: string;
  /** 1-based line number, counted from `startLine`. */
  line: number;
  /** Byte offset of the line's first byte in the file. */
  offset: number;
  /** Length in bytes, without the newline. */
  length: number;
  /** True for a last line without a newline: still being written, or cut by a kill. */
  unterminated: boolean;
  /** True when the line is longer than the reader's bound: its text was not kept, skip it. */
  tooLong?: boolean;
}

/**
 * Lines longer than this are skipped, bytes: 64 MiB. The preload writes at most 64 spans a line, out
 * of a queue bounded by `TRACEHOOK_MAX_QUEUE_BYTES` (default 16 MiB of estimated heap, so ≈ 16 MiB of
 * JSON for ASCII text): four times that leaves room for escaping and multi-byte text, and keeps one
 * line's JSON.parse within a few hundred MiB.
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

const CHUNK_BYTES = 1 << 20;

/** Where {@link readLines} reads. */
export interface LineRange {
  /** Byte offset of the first line. */
  start: number;
  /** Byte offset to stop at: the file's size when it was opened. */
  end: number;
  /** The line number of the line at `start`; default 1. */
  startLine?: number;
  /** Default {@link MAX_LINE_BYTES}. */
  maxLineBytes?: number;
  /**
   * `start` is inside a line already found too long (a follower read its first part earlier): the
   * bytes up to the next newline are yielded as a `tooLong` line of that many bytes, never kept.
   */
  insideLongLine?: boolean;
}

/**
 * Yields the lines of an open file between `start` and `end`. Each byte is read and searched once,
 * whatever the lines' lengths; a line longer than `maxLineBytes` is yielded with `tooLong` and no text.
 */
export async function* readLines(handle: FileHandle, range: LineRange): AsyncGenerator<SpanFileLine> {
  const maxLineBytes = range.maxLineBytes ?? MAX_LINE_BYTES;
  let line = range.startLine ?? 1;
  // The start of the current line so far, in pieces (copied: `chunk` is reused), and its length.
  let pieces: Buffer[] = [];
  let pending = 0;
  let skipping = range.insideLongLine === true;
  let lineOffset = range.start;
  let position = range.start;
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  while (position < range.end) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(CHUNK_BYTES, range.end - position), position);
    if (bytesRead === 0) break;
    const data = chunk.subarray(0, bytesRead);
    let from = 0;
    for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a, from)) {
      const length = pending + nl - from;
      if (skipping || length > maxLineBytes) {
        yield { text: '', line: line++, offset: lineOffset, length, unterminated: false, tooLong: true };
      } else {
        const text = pending === 0 ? data.toString('utf8', from, nl) : Buffer.concat([...pieces, data.subarray(from, nl)], length).toString('utf8');
        yield { text, line: line++, offset: lineOffset, length, unterminated: false };
      }
      pieces = [];
      pending = 0;
      skipping = false;
      from = nl + 1;
      lineOffset = position + from;
    }
    const rest = bytesRead - from;
    if (rest > 0) {
      pending += rest;
      if (skipping || pending > maxLineBytes) pieces = [];
      else pieces.push(Buffer.from(data.subarray(from)));
    }
    position += bytesRead;
  }
  if (pending > 0) {
    const tooLong = skipping || pending > maxLineBytes;
    const text = tooLong ? '' : Buffer.concat(pieces, pending).toString('utf8');
    yield { text, line, offset: lineOffset, length: pending, unterminated: true, ...(tooLong ? { tooLong } : {}) };
  }
}

/**
 * Yields the lines of `file` from byte `start` (default 0) to its size when opened.
 * @param startLine - the line number of the line at `start` (default 1)
 * @throws UnsafePathError when `file` is not a regular file of ours or root's (see {@link openSpanFile}),
 *   the file system's error (ENOENT, EACCES…) when it cannot be opened
 */
export async function* readSpanFileLines(file: string, start = 0, startLine = 1, options: SpanFileOptions = {}): AsyncGenerator<SpanFileLine> {
  const { handle, size } = await openSpanFile(file, options);
  try {
    yield* readLines(handle, { start, end: size, startLine });
  } finally {
    await handle.close();
  }
}

/** The message for a line skipped as {@link SpanFileLine.tooLong}. */
export function tooLongReason(length: number): string {
  return `line of ${length} bytes, longer than the ${MAX_LINE_BYTES / 1024 / 1024} MiB bound: skipped`;
}

/**
 * Reads the bytes of given lines again (positions from {@link readSpanFileLines}), in the order
 * given, opening the file once, as {@link openSpanFile} does.
 */
export async function readLinesAt(file: string, lines: readonly { offset: number; length: number }[], options: SpanFileOptions = {}): Promise<string[]> {
  const { handle } = await openSpanFile(file, options);
  try {
    const out: string[] = [];
    for (const { offset, length } of lines) {
      const buffer = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      out.push(buffer.toString('utf8', 0, bytesRead));
    }
    return out;
  } finally {
    await handle.close();
  }
}
