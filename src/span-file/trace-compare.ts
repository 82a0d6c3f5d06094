/**
 * Comparing two traces span by span (a slow request against a fast one of the same route), for
 * `tracehook view --compare`, `tracehook mcp` and the trace page.
 *
 * Self-contained like trace-filter.ts: no imports, no module-level values, only exported function
 * declarations that call each other by name, because the page inlines their compiled text.
 * Times are plain numbers in whatever unit the caller uses; nothing here reads a bigint.
 */

/** What the comparison reads of a span. `start` and `dur` share one unit (any). */
export interface ComparableSpan {
  /** Span id, unique in its trace. */
  id: string;
  /** Parent span id; absent (or naming no span given) for a root. */
  parent?: string;
  name: string;
  /** `service.name` of the span's resource. */
  service: string;
  start: number;
  dur: number;
}

/** A span found in both traces under one path key. */
export interface MatchedSpan {
  /** See {@link spanPathKeys}. */
  key: string;
  name: string;
  service: string;
  /** Levels below the root (0 for a root). */
  depth: number;
  spanIdA: string;
  spanIdB: string;
  durationA: number;
  durationB: number;
  /** `durationB - durationA`: positive when the span grew in B. */
  delta: number;
  /** `durationB / durationA`; `null` when `durationA` is 0. */
  ratio: number | null;
}

/** A span found in one trace only. */
export interface UnmatchedSpan {
  key: string;
  name: string;
  service: string;
  depth: number;
  spanId: string;
  duration: number;
}

/** The comparison of trace A with trace B. */
export interface TraceComparison {
  /** Largest absolute delta first (ties: key order). */
  matched: MatchedSpan[];
  /** Spans of A with no span of B under their key, longest first. */
  onlyA: UnmatchedSpan[];
  /** Spans of B with no span of A under their key, longest first. */
  onlyB: UnmatchedSpan[];
}

/**
 * Compares trace A with trace B: spans are matched by their path key (see {@link spanPathKeys}),
 * so the second `SELECT` under `GET /users` in A meets the second one in B.
 */
export function compareTraces(a: readonly ComparableSpan[], b: readonly ComparableSpan[]): TraceComparison {
  const keysA = spanPathKeys(a);
  const keysB = spanPathKeys(b);
  const byKeyB = new Map<string, { span: ComparableSpan; depth: number }>();
  for (const entry of keysB.values()) byKeyB.set(entry.key, { span: entry.span, depth: entry.depth });
  const matched: MatchedSpan[] = [];
  const onlyA: UnmatchedSpan[] = [];
  const seenB = new Set<string>();
  for (const entry of keysA.values()) {
    const other = byKeyB.get(entry.key);
    const durationA = Math.max(0, entry.span.dur);
    if (!other) {
      onlyA.push({ key: entry.key, name: entry.span.name, service: entry.span.service, depth: entry.depth, spanId: entry.span.id, duration: durationA });
      continue;
    }
    seenB.add(entry.key);
    const durationB = Math.max(0, other.span.dur);
    matched.push({
      key: entry.key,
      name: entry.span.name,
      service: entry.span.service,
      depth: entry.depth,
      spanIdA: entry.span.id,
      spanIdB: other.span.id,
      durationA,
      durationB,
      delta: durationB - durationA,
      ratio: durationA === 0 ? null : durationB / durationA,
    });
  }
  const onlyB: UnmatchedSpan[] = [];
  for (const [key, other] of byKeyB) {
    if (!seenB.has(key)) onlyB.push({ key, name: other.span.name, service: other.span.service, depth: other.depth, spanId: other.span.id, duration: Math.max(0, other.span.dur) });
  }
  matched.sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta) || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  const longest = (x: UnmatchedSpan, y: UnmatchedSpan) => y.duration - x.duration || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);
  onlyA.sort(longest);
  onlyB.sort(longest);
  return { matched, onlyA, onlyB };
}

/**
 * A stable key per span that names the same place in two runs of one request: the chain of
 * `service: name` from the root down to the span, joined by ` > `, where a span that repeats among
 * its siblings (same service and name) gets `#2`, `#3`, ... in start order (the first none).
 * Spans whose parent is not in `spans` are roots. Keys are unique within one trace (a clash from
 * names that contain ` > ` gets a further `#n`); parent cycles in corrupt data are broken.
 * @returns span id → key, the span and its depth, parents before children
 */
export function spanPathKeys(spans: readonly ComparableSpan[]): Map<string, { key: string; span: ComparableSpan; depth: number }> {
  const byId = new Map<string, ComparableSpan>();
  for (const s of spans) if (!byId.has(s.id)) byId.set(s.id, s);
  const children = new Map<string, ComparableSpan[]>();
  const roots: ComparableSpan[] = [];
  for (const s of byId.values()) {
    if (s.parent === undefined || s.parent === s.id || !byId.has(s.parent)) {
      roots.push(s);
      continue;
    }
    const list = children.get(s.parent);
    if (list) list.push(s);
    else children.set(s.parent, [s]);
  }
  const result = new Map<string, { key: string; span: ComparableSpan; depth: number }>();
  const used = new Set<string>();
  const queue: { spans: ComparableSpan[]; prefix: string; depth: number }[] = [{ spans: roots, prefix: '', depth: 0 }];
  // Spans in a cycle have no root above them: they are keyed as roots after the rest.
  for (let pass = 0; pass < 2; pass++) {
    for (let q = 0; q < queue.length; q++) {
      const { spans: siblings, prefix, depth } = queue[q];
      const ordered = siblings.filter((s) => !result.has(s.id)).sort((x, y) => x.start - y.start || (x.id < y.id ? -1 : 1));
      const counts = new Map<string, number>();
      for (const s of ordered) {
        const label = `${s.service}: ${s.name}`;
        const n = (counts.get(label) ?? 0) + 1;
        counts.set(label, n);
        let key = `${prefix}${label}${n > 1 ? ` #${n}` : ''}`;
        for (let extra = 2; used.has(key); extra++) key = `${prefix}${label} #${n}.${extra}`;
        used.add(key);
        result.set(s.id, { key, span: s, depth });
        const kids = children.get(s.id);
        if (kids) queue.push({ spans: kids, prefix: `${key} > `, depth: depth + 1 });
      }
    }
    if (result.size === byId.size) break;
    queue.length = 0;
    queue.push({ spans: [...byId.values()].filter((s) => !result.has(s.id)), prefix: '', depth: 0 });
  }
  return result;
}
