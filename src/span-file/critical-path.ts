/**
 * The critical path of a trace and each span's self time, for `tracehook view --critical-path`,
 * `tracehook mcp` and the trace page.
 *
 * Self-contained like trace-filter.ts: no imports, no module-level values, only exported function
 * declarations that call each other by name, because the page inlines their compiled text
 * (`Object.values(module)`). Times are plain numbers in whatever unit the caller uses (the page
 * gives µs; the CLI converts bigint ns to µs): nothing here reads a bigint.
 *
 * @see https://github.com/jaegertracing/jaeger-ui/tree/main/packages/jaeger-ui/src/components/TracePage/CriticalPath
 *   (the algorithm: Jaeger UI's critical path)
 */

/** What the critical path reads of a span. `start` and `dur` share one unit (any). */
export interface TimedSpan {
  /** Span id, unique in the trace. */
  id: string;
  /** Parent span id; absent (or naming no span given) for a root. */
  parent?: string;
  start: number;
  /** Duration, ≥ 0 (a negative one reads as 0). */
  dur: number;
}

/** One stretch of time the trace's end-to-end duration waited on `spanId` itself (none of its children). */
export interface CriticalSegment {
  spanId: string;
  start: number;
  end: number;
}

/** The critical path of one trace. */
export interface CriticalPath {
  /** The span the path was walked from (see {@link criticalPath}); `undefined` for no spans. */
  rootId: string | undefined;
  /** In time order, non-overlapping, within the root; adjacent segments may belong to one span. */
  segments: CriticalSegment[];
  /** Per span on the path: the sum of its segments. */
  onPath: Map<string, number>;
  /** Per span of the trace: {@link selfTimes}. */
  selfTime: Map<string, number>;
}

/**
 * Walks the critical path of a trace: the chain of spans that determined its end-to-end
 * duration, across processes and threads (a worker's spans are children of the span that handed
 * work to it, like any other child).
 *
 * Jaeger UI's algorithm, with one change for hand-offs: below the root, a span's interval is first
 * extended to the latest end among its descendants, so a PRODUCER span that ended as soon as its
 * message was posted leads into the worker's, child process's or pool's spans that did the work
 * (Jaeger clips those away); the time between the hand-off and the consumer's first span is the
 * PRODUCER's own on the path (the message in transit, a child process starting). Then children
 * are clipped to their parent's interval (a child that outlives the root counts only up to the
 * root's end; one wholly outside is left out). Then,
 * from the root's end walking back in time, at each span the last-finishing child that ends at or
 * before the current point is followed; the time between that child's end and the current point
 * is the span's own (a segment). When a span has no such child left, the time from its start to
 * the current point is its own and the walk returns to its parent at the span's start.
 *
 * The root walked from is `rootId` when given, else the span with no parent among `spans` that
 * starts first (the longest of those on a tie). With clipping, the segments cover the root's
 * interval exactly: their total is the root's duration. Parent cycles in corrupt data are broken
 * (a span is entered at most once). Runs in O(n log n).
 */
export function criticalPath(spans: readonly TimedSpan[], rootId?: string): CriticalPath {
  const byId = new Map<string, TimedSpan>();
  for (const s of spans) if (!byId.has(s.id)) byId.set(s.id, s);
  const selfTime = selfTimes(spans);
  const root = rootId !== undefined ? byId.get(rootId) : pickRoot(spans, byId);
  const segments: CriticalSegment[] = [];
  const onPath = new Map<string, number>();
  if (!root) return { rootId: undefined, segments, onPath, selfTime };

  // Clipped intervals and children sorted by clipped end, latest first, from the root down.
  const children = childrenOf(spans, byId);
  const extended = extendedEnds(root, children);
  const clipped = new Map<string, { start: number; end: number }>();
  const sorted = new Map<string, TimedSpan[]>();
  const rootEnd = root.start + Math.max(0, root.dur);
  clipped.set(root.id, { start: root.start, end: rootEnd });
  const stack = [root];
  while (stack.length > 0) {
    const span = stack.pop() as TimedSpan;
    const box = clipped.get(span.id) as { start: number; end: number };
    const kept: TimedSpan[] = [];
    for (const child of children.get(span.id) ?? []) {
      if (clipped.has(child.id)) continue; // a cycle or a duplicate id
      const childEnd = extended.get(child.id) ?? child.start + Math.max(0, child.dur);
      const start = Math.max(child.start, box.start);
      const end = Math.min(childEnd, box.end);
      if (start > end || childEnd < box.start) continue;
      clipped.set(child.id, { start, end });
      kept.push(child);
      stack.push(child);
    }
    const ends = (s: TimedSpan) => (clipped.get(s.id) as { end: number }).end;
    kept.sort((x, y) => ends(y) - ends(x));
    sorted.set(span.id, kept);
  }

  // The walk, iterative (deep traces); `next` is each span's first child not yet passed over.
  const next = new Map<string, number>();
  const parentOf = new Map<string, string>();
  let current: TimedSpan = root;
  let point = rootEnd;
  const backwards: CriticalSegment[] = [];
  for (;;) {
    const kids = sorted.get(current.id) ?? [];
    let i = next.get(current.id) ?? 0;
    while (i < kids.length && (clipped.get(kids[i].id) as { end: number }).end > point) i++;
    const box = clipped.get(current.id) as { start: number; end: number };
    if (i < kids.length) {
      const child = kids[i];
      next.set(current.id, i + 1);
      const childBox = clipped.get(child.id) as { start: number; end: number };
      if (childBox.end < point) backwards.push({ spanId: current.id, start: childBox.end, end: point });
      parentOf.set(child.id, current.id);
      current = child;
      point = childBox.end;
      continue;
    }
    next.set(current.id, kids.length);
    if (box.start < point) backwards.push({ spanId: current.id, start: box.start, end: point });
    point = box.start;
    const up = parentOf.get(current.id);
    if (up === undefined) break;
    current = byId.get(up) as TimedSpan;
  }
  for (let i = backwards.length - 1; i >= 0; i--) {
    const seg = backwards[i];
    const last = segments[segments.length - 1];
    // Two stretches of one span that meet (a zero-length child between them) read as one.
    if (last && last.spanId === seg.spanId && last.end === seg.start) last.end = seg.end;
    else segments.push({ spanId: seg.spanId, start: seg.start, end: seg.end });
    onPath.set(seg.spanId, (onPath.get(seg.spanId) ?? 0) + seg.end - seg.start);
  }
  return { rootId: root.id, segments, onPath, selfTime };
}

/**
 * Each span's self time: its duration minus the union of its children's intervals, each child
 * clipped to the span (time spent in no child; overlapping children count once).
 * @returns span id → self time, in the unit of the input, ≥ 0 and ≤ the span's duration
 */
export function selfTimes(spans: readonly TimedSpan[]): Map<string, number> {
  const byId = new Map<string, TimedSpan>();
  for (const s of spans) if (!byId.has(s.id)) byId.set(s.id, s);
  const children = childrenOf(spans, byId);
  const result = new Map<string, number>();
  for (const span of byId.values()) {
    const start = span.start;
    const end = span.start + Math.max(0, span.dur);
    const parts: number[][] = [];
    for (const c of children.get(span.id) ?? []) {
      const s = Math.max(c.start, start);
      const e = Math.min(c.start + Math.max(0, c.dur), end);
      if (e > s) parts.push([s, e]);
    }
    parts.sort((x, y) => x[0] - y[0]);
    let covered = 0;
    let reach = start;
    for (const [s, e] of parts) {
      if (e <= reach) continue;
      covered += e - Math.max(s, reach);
      reach = e;
    }
    result.set(span.id, Math.max(0, end - start - covered));
  }
  return result;
}

/**
 * The end of each span reachable from `root`, extended to the latest end below it: a hand-off span
 * (a PRODUCER that ends once its message is posted) reaches to the end of the work it handed off.
 * @returns span id → extended end (≥ its own end)
 */
export function extendedEnds(root: TimedSpan, children: Map<string, TimedSpan[]>): Map<string, number> {
  const order: TimedSpan[] = [];
  const seen = new Set<string>([root.id]);
  const stack = [root];
  while (stack.length > 0) {
    const span = stack.pop() as TimedSpan;
    order.push(span);
    for (const child of children.get(span.id) ?? []) {
      if (seen.has(child.id)) continue;
      seen.add(child.id);
      stack.push(child);
    }
  }
  // Pre-order reversed: every child before its parent.
  const ends = new Map<string, number>();
  for (let i = order.length - 1; i >= 0; i--) {
    const span = order[i];
    let end = span.start + Math.max(0, span.dur);
    for (const child of children.get(span.id) ?? []) end = Math.max(end, ends.get(child.id) ?? end);
    ends.set(span.id, end);
  }
  return ends;
}

/** Children by parent id (spans whose parent is among `byId`, itself excluded), in input order. */
export function childrenOf(spans: readonly TimedSpan[], byId: Map<string, TimedSpan>): Map<string, TimedSpan[]> {
  const children = new Map<string, TimedSpan[]>();
  for (const s of spans) {
    if (s.parent === undefined || s.parent === s.id || !byId.has(s.parent) || byId.get(s.id) !== s) continue;
    const list = children.get(s.parent);
    if (list) list.push(s);
    else children.set(s.parent, [s]);
  }
  return children;
}

/** The first-starting span without a parent among `byId` (the longest on a tie; of a duplicate id the first); any span when every one has a parent (a cycle). */
export function pickRoot(spans: readonly TimedSpan[], byId: Map<string, TimedSpan>): TimedSpan | undefined {
  let best: TimedSpan | undefined;
  for (const s of spans) {
    if (byId.get(s.id) !== s || (s.parent !== undefined && s.parent !== s.id && byId.has(s.parent))) continue;
    if (!best || s.start < best.start || (s.start === best.start && s.dur > best.dur)) best = s;
  }
  return best ?? spans[0];
}
