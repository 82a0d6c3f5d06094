/**
 * An OTLP request being encoded a few spans at a time, so that a span processor can spread a large
 * request over several turns of the event loop (each within its time budget) rather than encode it
 * in the turn that sends it.
 */
export interface RequestEncoding {
  /**
   * Encodes up to `spans` more spans (≥ 1).
   * @returns the whole request's bytes (a buffer the caller owns) once every span is encoded, else undefined
   */
  next(spans: number): Uint8Array | undefined;
}

/**
 * A {@link RequestEncoding} driving `steps` (a generator that writes into its writer and pauses after
 * each span). The writer comes from `pool` and goes back to it once `finish` has copied the bytes out;
 * an encoding given up before its end keeps its writer (the garbage collector takes both).
 */
export function stepwise<W extends { reset(): void }>(pool: W[], create: () => W, steps: (w: W) => Iterator<void>, finish: (w: W) => Uint8Array): RequestEncoding {
  const w = pool.pop() ?? create();
  w.reset();
  const it = steps(w);
  return {
    next(spans) {
      for (let i = 0; i < spans; i++) {
        if (!it.next().done) continue;
        const bytes = finish(w);
        w.reset();
        pool.push(w);
        return bytes;
      }
      return undefined;
    },
  };
}

/** Runs `steps` to its end (a one-shot encoding). */
export function complete(steps: Iterator<void>): void {
  while (!steps.next().done);
}
