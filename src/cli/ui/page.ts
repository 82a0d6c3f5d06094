/**
 * The trace page of `tracehook view --html` and `tracehook ui`: page-template.html, page-style.css and page-script.js
 * (copied next to this module by the build) with the data inlined. Everything the page needs is
 * in the one file: no network, no CDN. The page's filters, attribute search, critical path and
 * comparison are this repository's own (trace-filter.ts, span-search.ts, critical-path.ts,
 * trace-compare.ts, and span-label.ts' rootLabel), inlined as compiled text so the terminal and the
 * browser agree.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toJsonSafe } from '../../span-file/json-safe';
import type { SpanIndex, TraceSummary } from '../../span-file/span-index';
import { processLabel, rootLabel } from '../../span-file/span-label';
import * as criticalPath from '../../span-file/critical-path';
import * as spanSearch from '../../span-file/span-search';
import * as traceCompare from '../../span-file/trace-compare';
import * as traceFilter from '../../span-file/trace-filter';
import type { DecodedSpan } from '../../span-file/types';

/** A trace list entry as the page reads it (JSON-safe: no bigint). */
export type PageSummary = Omit<TraceSummary, 'startTimeUnixNano' | 'endTimeUnixNano'>;

/** The page's initial data. */
export interface PageData {
  /** `static`: traces embedded in the page; `live`: fetched from `api/trace/<id>` of the `ui` server. */
  mode: 'static' | 'live';
  /** Every `service.name`, sorted; gives each service its colour. */
  services: string[];
  traces: PageSummary[];
  /** Spans indexed (live mode: lets the page see that files grew). */
  spanCount: number;
}

/** One span as the page reads it. Times are µs from the trace's start. */
export interface PageSpan {
  id: string;
  parent?: string;
  name: string;
  kind: string;
  start: number;
  dur: number;
  status: { code: string; message?: string };
  /** Index into {@link PageTrace.resources}. */
  res: number;
  scope: string;
  attributes: unknown;
  events: { name: string; t: number; attributes: unknown }[];
  links: { traceId: string; spanId: string; attributes: unknown }[];
}

/** The spans of one trace as the page reads them. */
export interface PageTrace {
  traceId: string;
  /** Distinct resources; `label` is the process as `service[pid]` / `service[pid:tN]`. */
  resources: { label: string; service: string; attributes: unknown }[];
  spans: PageSpan[];
  /** Links from spans of other traces to spans of this one. */
  incoming: { fromTraceId: string; fromSpanId: string; toSpanId: string }[];
}

/** The summaries as page data. */
export function pageData(mode: PageData['mode'], summaries: readonly TraceSummary[], spanCount: number): PageData {
  const traces = summaries.map(({ startTimeUnixNano: _s, endTimeUnixNano: _e, ...rest }) => rest);
  const services = [...new Set(traces.flatMap((t) => t.services))].sort();
  return { mode, services, traces, spanCount };
}

/** The spans of one trace as page data. */
export function pageTrace(traceId: string, spans: readonly DecodedSpan[], index: SpanIndex): PageTrace {
  let start = spans[0]?.startTimeUnixNano ?? 0n;
  for (const s of spans) if (s.startTimeUnixNano < start) start = s.startTimeUnixNano;
  const resources: PageTrace['resources'] = [];
  const resourceIds = new Map<string, number>();
  const us = (nanos: bigint) => Number((nanos - start) / 1000n);
  return {
    traceId,
    resources,
    incoming: index.incomingLinks(traceId),
    spans: spans.map((s) => {
      const label = processLabel(s);
      const key = `${label}\n${JSON.stringify(toJsonSafe(s.resource))}`;
      let res = resourceIds.get(key);
      if (res === undefined) {
        res = resources.push({ label, service: String(s.resource['service.name'] ?? 'unknown_service'), attributes: toJsonSafe(s.resource) }) - 1;
        resourceIds.set(key, res);
      }
      return {
        id: s.spanId,
        ...(s.parentSpanId ? { parent: s.parentSpanId } : {}),
        name: s.name,
        kind: s.kind,
        start: us(s.startTimeUnixNano),
        dur: Number((s.endTimeUnixNano - s.startTimeUnixNano) / 1000n),
        status: s.status,
        res,
        scope: s.scope.version ? `${s.scope.name} ${s.scope.version}` : s.scope.name,
        attributes: toJsonSafe(s.attributes),
        events: s.events.map((e) => ({ name: e.name, t: us(e.timeUnixNano), attributes: toJsonSafe(e.attributes) })),
        links: s.links.map((l) => ({ traceId: l.traceId, spanId: l.spanId, attributes: toJsonSafe(l.attributes) })),
      };
    }),
  };
}

/**
 * The page for `tracehook view --html`, in pieces to write one after the other: the summaries of
 * `summaries` and, one script element per trace, their spans (parsed by the page only when the
 * trace is opened). Spans are read back a bounded chunk of traces at a time.
 */
export async function* buildStaticPage(index: SpanIndex, summaries: readonly TraceSummary[]): AsyncGenerator<string> {
  const [head, tail] = renderPage(pageData('static', summaries, index.spanCount), '/*TRACES*/').split('/*TRACES*/');
  yield head;
  const ids = summaries.map((s) => s.traceId);
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const loaded = await index.loadSpans(chunk);
    yield chunk.map((id) => `<script type="application/json" data-trace="${id}">${scriptJson(pageTrace(id, loaded.get(id) ?? [], index))}</script>\n`).join('');
  }
  yield tail;
}

/** The page for `tracehook ui`: summaries inlined, spans fetched from the server. */
export function buildLivePage(data: PageData): string {
  return renderPage(data, '');
}

function renderPage(data: PageData, traces: string): string {
  const { html, css, js } = assets();
  // Function replacers: the inserted text may contain `$&` and friends.
  return html
    .replace('/*CSS*/', () => css)
    .replace('/*DATA*/', () => scriptJson(data))
    .replace('/*TRACES*/', () => traces)
    .replace('/*JS*/', () => js.replace(/<\/script/gi, '<\\/script'));
}

let cached: { html: string; css: string; js: string } | undefined;
function assets(): { html: string; css: string; js: string } {
  if (!cached) {
    const read = (name: string) => readFileSync(join(__dirname, name), 'utf8');
    // Every function of each shared module (they are self-contained by design: see their headers).
    const shared = [traceFilter, spanSearch, criticalPath, traceCompare]
      .flatMap((m) => Object.values(m).filter((f): f is (...args: never[]) => unknown => typeof f === 'function'))
      .concat(rootLabel)
      .map((f) => f.toString())
      .join('\n');
    cached = { html: read('page-template.html'), css: read('page-style.css'), js: `${shared}\n${read('page-script.js')}` };
  }
  return cached;
}

// JSON inside <script>: `<` escaped so no `</script>` or `<!--` can end or change the element.
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
