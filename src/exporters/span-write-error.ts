/**
 * The error a span-file export fails with when some of its lines could not be written: how many of
 * its spans were lost, so the span processor counts them as write failures, not export failures.
 */
export class SpanWriteError extends Error {
  override readonly name = 'SpanWriteError';

  /**
   * @param failedSpans - spans of the export that are not in the file
   * @param cause - the first error of the export (ENOSPC, EFBIG, EBADF, an unsafe path…)
   */
  constructor(
    readonly failedSpans: number,
    cause: Error,
  ) {
    super(`${failedSpans} spans not written: ${cause.message}`);
  }
}

/** True for a SpanWriteError from any copy of this package (bundle and API are separate copies). */
export function isSpanWriteError(err: unknown): err is SpanWriteError {
  return (err as Error | undefined)?.name === 'SpanWriteError' && typeof (err as SpanWriteError).failedSpans === 'number';
}
