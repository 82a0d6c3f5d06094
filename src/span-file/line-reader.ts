/**
 * Reads span files line by line with bounded memory: a fixed-size read buffer plus the longest
 * line (one exported batch), whatever the file's size. Each line comes with its byte position,
 * so an index can read it again later without keeping it.
 */
import { open } from 'node:fs/promises';

/** One line of a span file. */
export interface SpanFileLine {
  /** The line without its newline. */
  text: string;
  /** 1-based line number, counted from `startLine`. */
  line: number;
  /** Byte offset of the line's first byte in the file. */
  offset: number;
  /** Length in bytes, without the newline. */
  length: number;
  /** True for a last line without a newline: still being written, or cut by a kill. */
  unterminated: boolean;
}

const CHUNK_BYTES = 1 << 20;

/**
 * Yields the lines of `file` from byte `start` (default 0) to its current end.
 * @param startLine - the line number of the line at `start` (default 1)
 * @throws the file system's error (ENOENT, EACCES…) when the file cannot be opened
 */
export async function* readSpanFileLines(file: string, start = 0, startLine = 1): AsyncGenerator<SpanFileLine> {
  const handle = await open(file, 'r');
  try {
    let carry: Buffer = Buffer.alloc(0);
    let carryOffset = start;
    let position = start;
    let line = startLine;
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const data = carry.length ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      let from = 0;
      for (let nl = data.indexOf(0x0a, from); nl !== -1; nl = data.indexOf(0x0a, from)) {
        yield { text: data.toString('utf8', from, nl), line: line++, offset: carryOffset + from, length: nl - from, unterminated: false };
        from = nl + 1;
      }
      // Copy the rest: `chunk` is reused by the next read.
      carry = Buffer.from(data.subarray(from));
      carryOffset += from;
    }
    if (carry.length > 0) {
      yield { text: carry.toString('utf8'), line, offset: carryOffset, length: carry.length, unterminated: true };
    }
  } finally {
    await handle.close();
  }
}

/**
 * Reads the bytes of given lines again (positions from {@link readSpanFileLines}), in the order
 * given, opening the file once.
 */
export async function readLinesAt(file: string, lines: readonly { offset: number; length: number }[]): Promise<string[]> {
  const handle = await open(file, 'r');
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
