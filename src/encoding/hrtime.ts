import type { HrTime } from '@opentelemetry/api';

const NANOS_PER_SECOND = BigInt(1_000_000_000);

/**
 * An `HrTime` (`[seconds, nanoseconds]`) as the decimal string of its nanoseconds since the epoch,
 * as @opentelemetry/otlp-transformer's JSON encoder writes `*UnixNano` fields: both parts truncated
 * to integers, then `seconds × 10⁹ + nanoseconds` exactly (beyond 2⁵³). Without BigInt for the
 * usual case (whole non-negative parts, nanoseconds below 10⁹); a value BigInt cannot take (NaN)
 * throws the same RangeError as otlp-transformer.
 */
export function hrTimeToNanoString(time: HrTime): string {
  const s = time[0];
  const ns = time[1];
  if (Number.isSafeInteger(s) && Number.isInteger(ns) && s >= 0 && ns >= 0 && ns < 1_000_000_000) {
    return s === 0 ? `${ns}` : `${s}${`${ns}`.padStart(9, '0')}`;
  }
  return (BigInt(Math.trunc(s)) * NANOS_PER_SECOND + BigInt(Math.trunc(ns))).toString();
}

/**
 * An `HrTime` as the low and high 32 bits of its nanoseconds, as otlp-transformer's protobuf
 * encoder writes `fixed64` times (its arithmetic, so the same bits for any input: the seconds split
 * at bit 16 to stay below 2⁵³; nanoseconds are not truncated first; beyond uint64 the value wraps).
 * @returns `[low, high]`, each an unsigned 32-bit integer
 */
export function hrTimeToFixed64(time: HrTime, out: [number, number]): [number, number] {
  const seconds = time[0];
  const nanos = time[1];
  const lowerSeconds = seconds & 0xffff;
  const upperSeconds = (seconds / 0x10000) >>> 0;
  const fromLower = lowerSeconds * 1_000_000_000;
  const fromUpper = upperSeconds * 1_000_000_000;
  const low = (fromLower >>> 0) + (((fromUpper & 0xffff) * 0x10000) >>> 0) + nanos;
  out[0] = low >>> 0;
  out[1] = (Math.floor(fromLower / 0x100000000) + ((fromUpper / 0x10000) >>> 0) + Math.floor(low / 0x100000000)) >>> 0;
  return out;
}
