const utf8 = new TextEncoder();
/** The buffer's first size; it doubles while a request needs more. */
const INITIAL_BYTES = 16 * 1024;
/** Larger buffers are dropped after use rather than kept for the process's life. */
const KEEP_BYTES = 1024 * 1024;

/**
 * A protobuf wire-format writer into one growing buffer that is kept between requests (only the
 * finished bytes are copied out). Each length-delimited field reserves one byte for its length and
 * moves its content when the length needs more, so the output is the canonical encoding with no
 * sizing pass. Varints, fixed and double fields follow @opentelemetry/otlp-transformer's
 * `ProtobufWriter` exactly (negative varints as 10-byte two's complement); strings are UTF-8 with
 * lone surrogates as U+FFFD, as `TextEncoder` writes them.
 * @see Protocol Buffers documentation, "Encoding"
 */
export class ProtobufWriter {
  buf = new Uint8Array(INITIAL_BYTES);
  private view = new DataView(this.buf.buffer);
  pos = 0;

  /** Starts a request; the buffer is reused, unless an unusually large request grew it past 1 MiB. */
  reset(): void {
    this.pos = 0;
    if (this.buf.length > KEEP_BYTES) {
      this.buf = new Uint8Array(INITIAL_BYTES);
      this.view = new DataView(this.buf.buffer);
    }
  }

  /** A copy of what was written since {@link reset}. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  private ensure(extra: number): void {
    const needed = this.pos + extra;
    if (needed <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < needed) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
    this.view = new DataView(grown.buffer);
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** Opens a length-delimited field; pass the result to {@link end}. */
  begin(): number {
    this.ensure(1);
    return this.pos++;
  }

  end(at: number): void {
    const length = (this.pos - at - 1) >>> 0;
    const size = length < 0x80 ? 1 : length < 0x4000 ? 2 : length < 0x200000 ? 3 : length < 0x10000000 ? 4 : 5;
    if (size > 1) {
      this.ensure(size - 1);
      this.buf.copyWithin(at + size, at + 1, this.pos);
      this.pos += size - 1;
    }
    let v = length;
    let p = at;
    while (v > 0x7f) {
      this.buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[p] = v;
  }

  varint(value: number): void {
    this.ensure(10);
    const b = this.buf;
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0;
      while (v > 0x7f) {
        b[this.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      b[this.pos++] = v;
      return;
    }
    const abs = Math.abs(value);
    let low = abs >>> 0;
    let high = (abs / 0x100000000) >>> 0;
    if (value < 0) {
      low = ~low >>> 0;
      high = ~high >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    while (high > 0 || low > 0x7f) {
      b[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    b[this.pos++] = low & 0x7f;
  }

  fixed32(value: number): void {
    this.ensure(4);
    this.view.setUint32(this.pos, value >>> 0, true);
    this.pos += 4;
  }

  fixed64(low: number, high: number): void {
    this.ensure(8);
    this.view.setUint32(this.pos, low >>> 0, true);
    this.view.setUint32(this.pos + 4, high >>> 0, true);
    this.pos += 8;
  }

  double(value: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, value, true);
    this.pos += 8;
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** A hex id (trace or span id) as its bytes, with otlp-transformer's `hexToBinary` digit rules. */
  hexBytes(hex: string): void {
    const n = hex.length / 2;
    if (!Number.isInteger(n)) throw new RangeError(`Invalid typed array length: ${n}`);
    this.varint(n);
    this.ensure(n);
    const b = this.buf;
    for (let i = 0; i < hex.length; i += 2) b[this.pos++] = (hexDigit(hex.charCodeAt(i)) << 4) | hexDigit(hex.charCodeAt(i + 1));
  }

  string(value: string): void {
    const len = value.length;
    let ascii = true;
    for (let i = 0; i < len; i++) {
      if (value.charCodeAt(i) > 127) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      this.varint(len);
      this.ensure(len);
      const b = this.buf;
      for (let i = 0; i < len; i++) b[this.pos++] = value.charCodeAt(i);
      return;
    }
    // At most 3 bytes per UTF-16 unit; the length varint is written after, moved into place.
    const at = this.begin();
    this.ensure(len * 3);
    this.pos += utf8.encodeInto(value, this.buf.subarray(this.pos)).written;
    this.end(at);
  }
}

function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return code - 55;
}
