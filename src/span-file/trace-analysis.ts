/**
 * Decoded spans (bigint nanoseconds since the epoch) handed to the page-shared analyses
 * (critical-path.ts, trace-compare.ts, span-search.ts), which read plain numbers: times become µs
 * from the trace's start. Used by `tracehook view` and `tracehook mcp`.
 */
import { criticalPath, type CriticalPath } from './critical-path';
import type { SpanIndex, TraceSummary } from './span-index';
import { parseSpanQuery, traceMatchesQueries, type SpanQuery } from './span-search';
import { compareTraces, type ComparableSpan, type TraceComparison } from './trace-compare';
import type { DecodedSpan } from './types';

/** The earliest start among `spans` (0n for none), nanoseconds since the epoch. */
export function traceOrigin(spans: readonly DecodedSpan[]): bigint {
  let start = spans[0]?.startTimeUnixNano ?? 0n;
  for (const s of spans) if (s.startTimeUnixNano < start) start = s.startTimeUnixNano;
  return start;
}

/** The spans with times as µs from `origin` (default: the trace's start), for the shared analyses. */
export function comparableSpans(spans: readonly DecodedSpan[], origin = traceOrigin(spans)): ComparableSpan[] {
  return spans.map((s) => ({
    id: s.spanId,
    ...(s.parentSpanId === undefined ? {} : { parent: s.parentSpanId }),
    name: s.name,
    service: String(s.resource['service.name'] ?? 'unknown_service'),
    start: Number((s.startTimeUnixNano - origin) / 1000n),
    dur: Number((s.endTimeUnixNano - s.startTimeUnixNano) / 1000n),
  }));
}

/** The critical path and self times of one trace's spans ({@link criticalPath}); times in µs from the trace's start. */
export function traceCriticalPath(spans: readonly DecodedSpan[]): CriticalPath {
  return criticalPath(comparableSpans(spans));
}

/** Trace A compared with trace B ({@link compareTraces}); durations in µs. */
export function compareDecoded(a: readonly DecodedSpan[], b: readonly DecodedSpan[]): TraceComparison {
  return compareTraces(comparableSpans(a), comparableSpans(b));
}

/**
 * Parses `key=value` query terms (see span-search.ts).
 * @throws Error naming the term and the accepted forms, for a blank term or one with no key before `=`
 */
export function parseQueries(terms: readonly string[], flag: string): SpanQuery[] {
  return terms.map((term) => {
    const query = parseSpanQuery(term);
    if (!query) throw new Error(`${flag}: expected key=value, key=prefix*, a key or some text, got ${JSON.stringify(term)}`);
    return query;
  });
}

/** Spans of traces read back per chunk: about this many spans at once. */
const SEARCH_CHUNK_SPANS = 20_000;

/**
 * The summaries whose traces match every query (each by some span: its name, attributes or resource
 * attributes), reading the spans back a bounded chunk of traces at a time; order kept.
 */
export async function filterByQueries(index: SpanIndex, summaries: readonly TraceSummary[], queries: readonly SpanQuery[]): Promise<TraceSummary[]> {
  if (queries.length === 0) return [...summaries];
  const kept: TraceSummary[] = [];
  for (const chunk of chunksOfSpans(summaries, SEARCH_CHUNK_SPANS)) {
    const loaded = await index.loadSpans(chunk.map((s) => s.traceId));
    for (const s of chunk) if (traceMatchesQueries(loaded.get(s.traceId) ?? [], queries)) kept.push(s);
  }
  return kept;
}

/** The summaries in order, cut into runs of about `maxSpans` spans (a bigger trace alone), to read back one run at a time. */
export function* chunksOfSpans(summaries: readonly TraceSummary[], maxSpans: number): Generator<TraceSummary[]> {
  for (let i = 0; i < summaries.length;) {
    const chunk: TraceSummary[] = [];
    for (let spans = 0; i < summaries.length && (chunk.length === 0 || spans + summaries[i].spanCount <= maxSpans); i++) {
      chunk.push(summaries[i]);
      spans += summaries[i].spanCount;
    }
    yield chunk;
  }
}

/**
 * The one trace whose id starts with `prefix` (lowercase hex).
 * @returns it, or a message saying none or how many match
 */
export function findTrace(summaries: readonly TraceSummary[], prefix: string): TraceSummary | string {
  const id = prefix.toLowerCase();
  if (!/^[0-9a-f]{1,32}$/.test(id)) return `expected a trace id (32 hex chars, or a prefix of one), got ${JSON.stringify(prefix)}`;
  const found = summaries.filter((s) => s.traceId.startsWith(id));
  if (found.length === 1) return found[0];
  return found.length === 0 ? `no trace id starts with ${id}` : `${found.length} trace ids start with ${id}: give more of the id`;
}
