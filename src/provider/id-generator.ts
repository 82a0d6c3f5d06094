import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import { fillRandom } from './random-bytes.js';

/** Random bytes drawn per refill: one read of the CSPRNG and one hex encoding serve ≈ 170 spans. */
const POOL_BYTES = 4096;
const ALL_ZERO_TRACE_ID = '00000000000000000000000000000000';
const ALL_ZERO_SPAN_ID = '0000000000000000';

/**
 * Trace and span ids from a pooled random buffer: {@link POOL_BYTES} bytes from the operating
 * system's CSPRNG (see {@link fillRandom}) are hex-encoded at once, and each id is a substring of
 * that text, so an id costs a substring instead of a native call and a buffer write per id. Ids
 * are never all zero (W3C Trace Context makes such ids invalid): one is drawn again.
 * The SDK's `RandomIdGenerator` uses `Math.random()`; the CSPRNG here is stronger, not weaker.
 * V8 makes each id a slice of the pool's text, which that text outlives only while an id of it is
 * referenced: ≈ 8 KiB per 170 spans still queued, about the size of the ids as copies.
 * @see W3C Trace Context, "trace-id" and "parent-id" (https://www.w3.org/TR/trace-context/#trace-id)
 */
export class PooledIdGenerator implements IdGenerator {
  private readonly bytes = Buffer.allocUnsafe(POOL_BYTES);
  private hex = '';
  /** Next unused offset in {@link hex}, in hex characters; starts past the end so the first id fills the pool. */
  private offset = POOL_BYTES * 2;

  /** 32 lowercase hex characters (16 random bytes), never all zero. */
  generateTraceId(): string {
    const id = this.next(32);
    return id === ALL_ZERO_TRACE_ID ? this.generateTraceId() : id;
  }

  /** 16 lowercase hex characters (8 random bytes), never all zero. */
  generateSpanId(): string {
    const id = this.next(16);
    return id === ALL_ZERO_SPAN_ID ? this.generateSpanId() : id;
  }

  private next(chars: number): string {
    let start = this.offset;
    if (start + chars > POOL_BYTES * 2) {
      fillRandom(this.bytes);
      this.hex = this.bytes.toString('hex');
      start = 0;
    }
    this.offset = start + chars;
    return this.hex.substring(start, start + chars);
  }
}
