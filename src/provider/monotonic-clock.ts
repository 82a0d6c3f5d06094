// Taken once: fake timers that replace `process.hrtime` later (@sinonjs/fake-timers) must not bend span durations.
const hrtime = process.hrtime;

/**
 * A monotonic time in ms (fractional, ns resolution) from an arbitrary origin: `process.hrtime()`, the clock
 * `performance.now()` reads too (libuv's `uv_hrtime`), without its origin. Spans and span processors use this
 * instead of the global `performance`, whose first use loads Node.js's perf_hooks implementation (startup
 * in every process and thread: bench: startup, spawn → first HTTP 200) that an app not using it would not load. Per call, both cost the same.
 */
export function monotonicMs(): number {
  const t = hrtime();
  return t[0] * 1e3 + t[1] / 1e6;
}
