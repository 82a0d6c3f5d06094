import type { HrTime } from '@opentelemetry/api';
import { stateKey } from '../state-key.js';

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

/**
 * The epoch anchor of span times: epoch time minus the monotonic clock, as whole seconds and nanoseconds
 * (`[s, ns]`, ns in [0, 1e9)). Made once per process from `Date.now()` (so it is within 1 ms of the wall
 * clock) and never changed: every span time is the monotonic clock plus this offset, so start times have ns
 * resolution and never go backwards. The monotonic clock is the same in every thread of a process: the
 * parent hands its anchor to the workers it starts ({@link adoptEpochAnchor}), so all threads order alike.
 * Kept under a `globalThis` key: every copy of this module in a thread (bundle, API files) shares it.
 */
export type EpochAnchor = readonly [seconds: number, nanos: number];

const ANCHOR_KEY = stateKey('epochAnchor');
type AnchorHolder = typeof globalThis & { [ANCHOR_KEY]?: EpochAnchor };

let anchor: EpochAnchor | undefined;

/** This thread's anchor, made on first use (see {@link EpochAnchor}). */
export function epochAnchor(): EpochAnchor {
  if (anchor !== undefined) return anchor;
  const g = globalThis as AnchorHolder;
  return (anchor = g[ANCHOR_KEY] ??= makeAnchor());
}

/**
 * Uses `given` (the parent thread's {@link epochAnchor}, through the worker's environment data) as this
 * thread's anchor, unless this thread has already made one (its times would then go backwards). Ignores
 * anything but two finite numbers.
 */
export function adoptEpochAnchor(given: unknown): void {
  if (!Array.isArray(given) || given.length !== 2 || !Number.isFinite(given[0]) || !Number.isFinite(given[1])) return;
  const g = globalThis as AnchorHolder;
  if (g[ANCHOR_KEY] === undefined) g[ANCHOR_KEY] = [given[0], given[1]];
  anchor = g[ANCHOR_KEY];
}

function makeAnchor(): EpochAnchor {
  const t = hrtime();
  const now = Date.now();
  let seconds = Math.floor(now / 1000) - t[0];
  let nanos = (now % 1000) * 1e6 - t[1];
  if (nanos < 0) {
    nanos += 1e9;
    seconds -= 1;
  }
  return [seconds, nanos];
}

/**
 * The epoch time of the monotonic reading `t` (`process.hrtime()`, default now) as an OpenTelemetry `HrTime`:
 * ns resolution, never earlier than a previous reading's within a process.
 */
export function epochHrTime(t: [number, number] = hrtime()): HrTime {
  const a = anchor ?? epochAnchor();
  let seconds = t[0] + a[0];
  let nanos = t[1] + a[1];
  if (nanos >= 1e9) {
    nanos -= 1e9;
    seconds += 1;
  }
  return [seconds, nanos];
}

/** A `process.hrtime()` reading (the clock {@link monotonicMs} and {@link epochHrTime} read). */
export function monotonicNow(): [number, number] {
  return hrtime();
}

/** `t` (a {@link monotonicNow} reading) in ms, as {@link monotonicMs} counts. */
export function toMonotonicMs(t: [number, number]): number {
  return t[0] * 1e3 + t[1] / 1e6;
}
