/**
 * The tools of `tracehook mcp`: what each takes (a JSON Schema) and answers (a JSON-safe object),
 * on a {@link SpanIndex} of span files. Read-only, and every answer bounded: lists by `limit`
 * (at most {@link MAX_LIST}), a trace's spans by `max_spans` (at most {@link MAX_SPANS}) and
 * {@link MAX_TRACE_BYTES}, strings cut at {@link MAX_TEXT} characters, attributes per span at
 * {@link MAX_ATTRIBUTES}. No SDK here: mcp.ts serves these over the Model Context Protocol.
 */
import { toJsonSafe } from '../span-file/json-safe';
import type { SpanIndex, TraceSummary } from '../span-file/span-index';
import { processLabel, requestTarget, rootLabel } from '../span-file/span-label';
import { compareDecoded, filterByQueries, findTrace, parseQueries, traceCriticalPath } from '../span-file/trace-analysis';
import { globToRegExp, matchesTraceFilter, parseTimeMs, type TraceFilter } from '../span-file/trace-filter';
import { buildTraces } from '../span-file/tree';
import type { DecodedSpan } from '../span-file/types';

/** Most traces (or rows) a list answers with. */
export const MAX_LIST = 100;
/** Most spans `get_trace` answers with. */
export const MAX_SPANS = 500;
/** `get_trace` stops adding spans once its answer is about this long, in characters of JSON. */
export const MAX_TRACE_BYTES = 256 * 1024;
/** Longest string in an answer (names, values, messages); longer ones end with `…`. */
export const MAX_TEXT = 300;
/** Most attributes per span in `get_trace` (the rest counted). */
export const MAX_ATTRIBUTES = 40;
/** Most error spans described per trace in `failing_traces`. */
export const MAX_ERRORS_PER_TRACE = 5;

/** A bad argument, said to the client as a tool error naming it. */
export class ToolArgumentError extends Error {}

/** One tool: its name, description, JSON Schema of arguments, and what it does. */
export interface TraceTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, object>; required?: string[] };
  run(index: SpanIndex, args: Record<string, unknown>): Promise<object>;
}

const LIMIT = (def: number) => ({ type: 'integer', minimum: 1, maximum: MAX_LIST, description: `most traces answered (default ${def}, at most ${MAX_LIST})` });
const TRACE_ID = { type: 'string', description: 'a trace id (32 hex chars) or a prefix of one that only one trace has' };
const FILTERS = {
  service: { type: 'string', description: 'a span of this service.name' },
  route: { type: 'string', description: 'the root request route or URL path, e.g. /users/:id; * matches any characters' },
  errors: { type: 'boolean', description: 'only traces with a span of status ERROR' },
  min_duration_ms: { type: 'number', minimum: 0, description: 'only traces at least this long, milliseconds' },
  since: { type: 'string', description: 'only traces started at or after this: ISO 8601, or a time ago such as 15m, 2h' },
  where: {
    type: 'array',
    items: { type: 'string' },
    description: 'attribute search terms, all must match (each by some span): key=value, key=prefix*, a key, or text in a span name or attribute value',
  },
};

/** The tools, in the order listed to clients. */
export const TRACE_TOOLS: TraceTool[] = [
  {
    name: 'list_traces',
    description: 'List the traces in the span files, newest first, with optional filters. Each entry: trace id, start, duration, span and error counts, root span (name, route, service), services.',
    inputSchema: { type: 'object', properties: { ...FILTERS, limit: LIMIT(20) } },
    run: async (index, args) => listAnswer(await selectTraces(index, args, 'time'), number(args, 'limit', 20, 1, MAX_LIST)),
  },
  {
    name: 'slowest_traces',
    description: 'The longest traces first, with optional filters (same as list_traces).',
    inputSchema: { type: 'object', properties: { ...FILTERS, limit: LIMIT(10) } },
    run: async (index, args) => listAnswer(await selectTraces(index, args, 'duration'), number(args, 'limit', 10, 1, MAX_LIST)),
  },
  {
    name: 'failing_traces',
    description: 'Traces with a span of status ERROR, newest first, each with its failing spans: name, service, status message, and the recorded exception type and message when there is one.',
    inputSchema: { type: 'object', properties: { ...FILTERS, limit: LIMIT(10) } },
    run: async (index, args) => failingAnswer(index, await selectTraces(index, { ...args, errors: true }, 'time'), number(args, 'limit', 10, 1, MAX_LIST)),
  },
  {
    name: 'get_trace',
    description:
      'One trace as a tree: its spans parent-first with depth, parent, name, kind, service and process, start offset and duration (ms), status, attributes and events (values cut), at most max_spans spans.',
    inputSchema: {
      type: 'object',
      properties: { trace_id: TRACE_ID, max_spans: { type: 'integer', minimum: 1, maximum: MAX_SPANS, description: `most spans answered (default 100, at most ${MAX_SPANS})` } },
      required: ['trace_id'],
    },
    run: async (index, args) => traceAnswer(index, args),
  },
  {
    name: 'critical_path',
    description:
      "The critical path of a trace: the chain of spans, across processes and threads, that decided its duration. Answers the spans on it with their time on the path, share of the trace and self time (time in no child span), and the path's segments in time order.",
    inputSchema: { type: 'object', properties: { trace_id: TRACE_ID }, required: ['trace_id'] },
    run: async (index, args) => criticalPathAnswer(index, args),
  },
  {
    name: 'compare_traces',
    description:
      'Compare trace A with trace B (say a fast and a slow request of one route) span by span, matched by service and name from the root down: durations in A and B, delta and ratio, largest change first; and the spans found in one trace only.',
    inputSchema: {
      type: 'object',
      properties: { trace_a: TRACE_ID, trace_b: TRACE_ID, limit: { type: 'integer', minimum: 1, maximum: MAX_LIST, description: `most rows per part (default 30, at most ${MAX_LIST})` } },
      required: ['trace_a', 'trace_b'],
    },
    run: async (index, args) => compareAnswer(index, args),
  },
];

/** The traces matching the filter arguments, newest or longest first. */
async function selectTraces(index: SpanIndex, args: Record<string, unknown>, sort: 'time' | 'duration'): Promise<TraceSummary[]> {
  const filter: TraceFilter = {};
  const service = text(args, 'service');
  if (service !== undefined) filter.services = [service];
  if (bool(args, 'errors')) filter.errors = true;
  const min = args.min_duration_ms;
  if (min !== undefined) {
    if (typeof min !== 'number' || !(min >= 0)) throw new ToolArgumentError(`min_duration_ms: expected a number ≥ 0, got ${JSON.stringify(min)}`);
    filter.minDurationMs = min;
  }
  const since = text(args, 'since');
  if (since !== undefined) {
    const ms = parseTimeMs(since, Date.now());
    if (ms === undefined) throw new ToolArgumentError(`since: expected an ISO 8601 time or a time ago (15m, 2h), got ${JSON.stringify(since)}`);
    filter.sinceMs = ms;
  }
  const route = text(args, 'route');
  const routePattern = route === undefined ? undefined : globToRegExp(route);
  const where = args.where === undefined ? [] : args.where;
  if (!Array.isArray(where) || where.some((w) => typeof w !== 'string')) throw new ToolArgumentError('where: expected an array of strings');
  let queries;
  try {
    queries = parseQueries(where as string[], 'where');
  } catch (err) {
    throw new ToolArgumentError((err as Error).message);
  }
  const matching = index
    .summaries()
    .filter((s) => matchesTraceFilter(s, filter) && (!routePattern || routePattern.test(s.root.target ?? '') || routePattern.test(s.root.name)))
    .sort(sort === 'time' ? (a, b) => b.startMs - a.startMs || cmp(a.traceId, b.traceId) : (a, b) => b.durationMs - a.durationMs || cmp(a.traceId, b.traceId));
  return filterByQueries(index, matching, queries);
}

function listAnswer(traces: TraceSummary[], limit: number): object {
  return { matching: traces.length, shown: Math.min(limit, traces.length), traces: traces.slice(0, limit).map(traceEntry) };
}

function traceEntry(s: TraceSummary): object {
  return {
    trace_id: s.traceId,
    start: isoTime(s.startMs),
    duration_ms: round(s.durationMs),
    span_count: s.spanCount,
    error_count: s.errorCount,
    root: {
      name: cut(rootLabel(s.root)),
      ...(s.root.target === undefined ? {} : { route: cut(s.root.target) }),
      service: cut(s.root.service),
      ...(s.root.hasParent ? { parent_outside_files: true } : {}),
    },
    services: s.services.slice(0, 20).map(cut),
    processes: s.processes.length,
  };
}

async function failingAnswer(index: SpanIndex, traces: TraceSummary[], limit: number): Promise<object> {
  const shown = traces.slice(0, limit);
  const loaded = await index.loadSpans(shown.map((s) => s.traceId));
  return {
    matching: traces.length,
    shown: shown.length,
    traces: shown.map((s) => {
      const failed = (loaded.get(s.traceId) ?? []).filter((span) => span.status.code === 'ERROR');
      return {
        ...traceEntry(s),
        errors: failed.slice(0, MAX_ERRORS_PER_TRACE).map(errorEntry),
        ...(failed.length > MAX_ERRORS_PER_TRACE ? { more_errors: failed.length - MAX_ERRORS_PER_TRACE } : {}),
      };
    }),
  };
}

/** A failing span: what it is, its status message, and its first recorded exception. */
function errorEntry(span: DecodedSpan): object {
  const exception = span.events.find((e) => e.name === 'exception');
  const attr = (key: string) => (exception && typeof exception.attributes[key] === 'string' ? cut(exception.attributes[key] as string) : undefined);
  const target = requestTarget(span.attributes);
  return {
    span_id: span.spanId,
    name: cut(span.name),
    ...(target === undefined ? {} : { route: cut(target) }),
    kind: span.kind,
    service: cut(String(span.resource['service.name'] ?? 'unknown_service')),
    ...(span.status.message === undefined ? {} : { status_message: cut(span.status.message) }),
    ...(exception ? { exception: { type: attr('exception.type'), message: attr('exception.message') } } : {}),
  };
}

async function loadTrace(index: SpanIndex, args: Record<string, unknown>, key: string): Promise<{ summary: TraceSummary; spans: DecodedSpan[] }> {
  const id = text(args, key);
  if (id === undefined) throw new ToolArgumentError(`${key}: expected a trace id`);
  const found = findTrace(index.summaries(), id);
  if (typeof found === 'string') throw new ToolArgumentError(`${key}: ${found}`);
  const spans = (await index.loadSpans([found.traceId])).get(found.traceId) ?? [];
  return { summary: found, spans };
}

async function traceAnswer(index: SpanIndex, args: Record<string, unknown>): Promise<object> {
  const { summary, spans } = await loadTrace(index, args, 'trace_id');
  const maxSpans = number(args, 'max_spans', 100, 1, MAX_SPANS);
  const [trace] = buildTraces(spans);
  const out: object[] = [];
  let size = 0;
  for (const node of trace?.spans ?? []) {
    if (out.length >= maxSpans || size > MAX_TRACE_BYTES) break;
    const s = node.span;
    const attributes = Object.entries(s.attributes);
    const entry = {
      span_id: s.spanId,
      ...(s.parentSpanId === undefined ? {} : { parent_span_id: s.parentSpanId }),
      depth: node.depth,
      name: cut(s.name),
      kind: s.kind,
      service: cut(String(s.resource['service.name'] ?? 'unknown_service')),
      process: cut(processLabel(s)),
      start_offset_ms: round(Number(s.startTimeUnixNano - (trace?.startTimeUnixNano ?? 0n)) / 1e6),
      duration_ms: round(s.durationMs),
      status: s.status.code,
      ...(s.status.message === undefined ? {} : { status_message: cut(s.status.message) }),
      attributes: Object.fromEntries(attributes.slice(0, MAX_ATTRIBUTES).map(([k, v]) => [cut(k), cutValue(v)])),
      ...(attributes.length > MAX_ATTRIBUTES ? { attributes_omitted: attributes.length - MAX_ATTRIBUTES } : {}),
      ...(s.events.length
        ? {
            events: s.events.slice(0, 8).map((e) => ({
              name: cut(e.name),
              attributes: Object.fromEntries(
                Object.entries(e.attributes)
                  .slice(0, MAX_ATTRIBUTES)
                  .map(([k, v]) => [cut(k), cutValue(v)]),
              ),
            })),
          }
        : {}),
      ...(node.missingParentSpanId ? { parent_outside_files: true } : {}),
    };
    size += JSON.stringify(entry).length;
    out.push(entry);
  }
  return { ...traceEntry(summary), spans_shown: out.length, ...(out.length < spans.length ? { spans_omitted: spans.length - out.length } : {}), spans: out };
}

async function criticalPathAnswer(index: SpanIndex, args: Record<string, unknown>): Promise<object> {
  const { summary, spans } = await loadTrace(index, args, 'trace_id');
  const path = traceCriticalPath(spans);
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const total = path.segments.reduce((n, s) => n + s.end - s.start, 0);
  const describe = (id: string) => {
    const s = byId.get(id) as DecodedSpan;
    return { span_id: id, name: cut(rootLabel({ name: s.name, target: requestTarget(s.attributes) })), kind: s.kind, process: cut(processLabel(s)) };
  };
  const ranked = [...path.onPath].sort((a, b) => b[1] - a[1]);
  return {
    ...traceEntry(summary),
    path_ms: round(total / 1000),
    spans_on_path: ranked.length,
    by_time_on_path: ranked
      .slice(0, MAX_LIST)
      .map(([id, us]) => ({ ...describe(id), on_path_ms: round(us / 1000), share: round(total > 0 ? us / total : 0), self_ms: round((path.selfTime.get(id) ?? 0) / 1000) })),
    segments: path.segments
      .slice(0, MAX_LIST * 2)
      .map((seg) => ({ span_id: seg.spanId, name: cut((byId.get(seg.spanId) as DecodedSpan).name), start_offset_ms: round(seg.start / 1000), end_offset_ms: round(seg.end / 1000) })),
    ...(path.segments.length > MAX_LIST * 2 ? { segments_omitted: path.segments.length - MAX_LIST * 2 } : {}),
  };
}

async function compareAnswer(index: SpanIndex, args: Record<string, unknown>): Promise<object> {
  const a = await loadTrace(index, args, 'trace_a');
  const b = await loadTrace(index, args, 'trace_b');
  const limit = number(args, 'limit', 30, 1, MAX_LIST);
  const c = compareDecoded(a.spans, b.spans);
  const changed = c.matched.filter((m) => m.delta !== 0);
  const unmatched = (list: typeof c.onlyA) => list.slice(0, limit).map((u) => ({ path: cut(u.key), span_id: u.spanId, duration_ms: round(u.duration / 1000) }));
  return {
    a: traceEntry(a.summary),
    b: traceEntry(b.summary),
    delta_ms: round(b.summary.durationMs - a.summary.durationMs),
    matched: c.matched.length,
    unchanged: c.matched.length - changed.length,
    changed: changed.slice(0, limit).map((m) => ({
      path: cut(m.key),
      span_id_a: m.spanIdA,
      span_id_b: m.spanIdB,
      a_ms: round(m.durationA / 1000),
      b_ms: round(m.durationB / 1000),
      delta_ms: round(m.delta / 1000),
      ...(m.ratio === null ? {} : { ratio: round(m.ratio) }),
    })),
    ...(changed.length > limit ? { changed_omitted: changed.length - limit } : {}),
    only_in_a: unmatched(c.onlyA),
    only_in_b: unmatched(c.onlyB),
    ...(c.onlyA.length > limit || c.onlyB.length > limit ? { only_omitted: Math.max(0, c.onlyA.length - limit) + Math.max(0, c.onlyB.length - limit) } : {}),
  };
}

/** A string cut to {@link MAX_TEXT} characters. */
function cut(value: string): string {
  return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
}

/** An attribute value JSON-safe and bounded: strings cut, arrays to 20 items, nested values as cut JSON text. */
function cutValue(value: unknown): unknown {
  const safe = toJsonSafe(value);
  if (typeof safe === 'string') return cut(safe);
  if (Array.isArray(safe)) return safe.slice(0, 20).map((v) => (typeof v === 'string' ? cut(v) : v !== null && typeof v === 'object' ? cut(JSON.stringify(v)) : v));
  if (safe !== null && typeof safe === 'object') return cut(JSON.stringify(safe));
  return safe;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function isoTime(ms: number): string {
  return Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function text(args: Record<string, unknown>, key: string): string | undefined {
  const v = args[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') throw new ToolArgumentError(`${key}: expected a non-empty string, got ${JSON.stringify(v)}`);
  return v;
}

function bool(args: Record<string, unknown>, key: string): boolean {
  const v = args[key];
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw new ToolArgumentError(`${key}: expected true or false, got ${JSON.stringify(v)}`);
  return v;
}

function number(args: Record<string, unknown>, key: string, def: number, min: number, max: number): number {
  const v = args[key];
  if (v === undefined) return def;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw new ToolArgumentError(`${key}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(v)}`);
  return v;
}
