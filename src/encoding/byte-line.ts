/** A process or thread that never exports allocates nothing. */
const EMPTY = Buffer.alloc(0);
/** Bytes a buffer starts with (a 64-span line of HTTP spans is ≈ 40–70 KiB). */
const INITIAL_BYTES = 64 * 1024;
/** The size up to which a buffer is kept across resets, bytes. */
const KEEP_BYTES = 1024 * 1024;

/**
 * A growable byte buffer, reused from line to line, that an encoder appends UTF-8 to. A string goes in
 * with one `Buffer#write` (the string is flattened and encoded once, straight into place): one
 * call per span rather than one per piece, since each call into the encoder costs more than the
 * concatenation of a span's few dozen pieces (bench/RESULTS.md, "The export path at its floor").
 */
export class ByteLine {
  /** The bytes; valid from 0 to {@link length}. Replaced (not resized) when it grows; none until the first write. */
  buffer: Buffer = EMPTY;
  /** Bytes written so far. */
  length = 0;

  /** Appends `text` as UTF-8 (a well-formed string: lone surrogates would become U+FFFD). */
  text(text: string): void {
    // At most 3 bytes per UTF-16 code unit (a surrogate pair: 4 bytes for 2 units).
    if (this.length + text.length * 3 > this.buffer.length) this.grow(text.length * 3);
    this.length += this.buffer.write(text, this.length);
  }

  /** Appends bytes encoded before (a constant piece of a request). */
  bytes(bytes: Uint8Array): void {
    if (this.length + bytes.length > this.buffer.length) this.grow(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Appends one byte (an ASCII character code). */
  byte(code: number): void {
    if (this.length + 1 > this.buffer.length) this.grow(1);
    this.buffer[this.length++] = code;
  }

  /**
   * Forgets the content; a buffer that grew past `keepBytes` is let go (one huge line does not stay allocated).
   * Below it the buffer is kept: the span-file exporter keeps up to 256 KiB of lines between its checks of the file,
   * and letting go of the buffer at that size would allocate it again, grown by doubling, every few lines.
   */
  reset(keepBytes = KEEP_BYTES): void {
    this.length = 0;
    if (this.buffer.length > keepBytes) this.buffer = EMPTY;
  }

  /** Forgets the first `count` bytes, keeping the rest at the start; a buffer that grew large is let go when nothing is left. */
  drop(count: number): void {
    if (count >= this.length) {
      this.reset();
      return;
    }
    this.buffer.copyWithin(0, count, this.length);
    this.length -= count;
  }

  private grow(more: number): void {
    const next = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + more, INITIAL_BYTES));
    this.buffer.copy(next, 0, 0, this.length);
    this.buffer = next;
  }
}
