/**
 * Search by attribute: `tracehook view --where`, `tracehook mcp` and the trace page's search box.
 *
 * Self-contained like trace-filter.ts: no imports, no module-level values, only exported function
 * declarations that call each other by name, because the page inlines their compiled text.
 *
 * A query term is one of:
 * - `key=value`: an attribute `key` (of the span or its resource) whose value reads exactly `value`
 *   (a number as written in JSON, `true`/`false`; an array when one element does);
 * - `key=prefix*`: the same, the value starting with `prefix`;
 * - bare text: a span that has an attribute `text` (so `db.statement` finds spans with one), or
 *   whose name or an attribute value contains `text`, ignoring case.
 * A value in double quotes (`key="a b"`) is read without them; `*` ends a prefix only at the end.
 */

/** A parsed query term (see the module doc). */
export type SpanQuery = { kind: 'equals' | 'prefix'; key: string; value: string } | { kind: 'text'; text: string };

/** What the search reads of a span: its name, attributes and resource attributes (values as decoded or JSON-safe). */
export interface SearchableSpan {
  name: string;
  attributes: Record<string, unknown>;
  resource?: Record<string, unknown>;
}

/**
 * Parses one query term.
 * @returns the term, or `undefined` for blank text or a `=` with no key before it (`=x`)
 */
export function parseSpanQuery(text: string): SpanQuery | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const eq = trimmed.indexOf('=');
  if (eq < 0) return { kind: 'text', text: unquote(trimmed) };
  const key = trimmed.slice(0, eq).trim();
  if (key === '') return undefined;
  const raw = trimmed.slice(eq + 1).trim();
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) return { kind: 'equals', key, value: raw.slice(1, -1) };
  if (raw.endsWith('*')) return { kind: 'prefix', key, value: raw.slice(0, -1) };
  return { kind: 'equals', key, value: raw };
}

/** `text` without one pair of surrounding double quotes. */
export function unquote(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}

/** Whether one span matches one term; span attributes are looked up first, then resource attributes. */
export function spanMatchesQuery(span: SearchableSpan, query: SpanQuery): boolean {
  if (query.kind === 'text') {
    const needle = query.text.toLowerCase();
    if (Object.prototype.hasOwnProperty.call(span.attributes, query.text)) return true;
    if (span.resource && Object.prototype.hasOwnProperty.call(span.resource, query.text)) return true;
    if (span.name.toLowerCase().includes(needle)) return true;
    for (const bag of [span.attributes, span.resource ?? {}]) {
      for (const key of Object.keys(bag)) {
        for (const text of attributeTexts(bag[key])) if (text.toLowerCase().includes(needle)) return true;
      }
    }
    return false;
  }
  for (const bag of [span.attributes, span.resource ?? {}]) {
    if (!Object.prototype.hasOwnProperty.call(bag, query.key)) continue;
    for (const text of attributeTexts(bag[query.key])) {
      if (query.kind === 'equals' ? text === query.value : text.startsWith(query.value)) return true;
    }
  }
  return false;
}

/** Whether a trace matches every term, each by some span (not necessarily the same one). No terms: true. */
export function traceMatchesQueries(spans: readonly SearchableSpan[], queries: readonly SpanQuery[]): boolean {
  for (const query of queries) {
    let found = false;
    for (const span of spans) {
      if (spanMatchesQuery(span, query)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

/**
 * The texts an attribute value is compared as: a string itself; a number, boolean or bigint as
 * `String()` gives it; an array its elements' texts; an object its JSON (bigints
 * as strings); bytes and empty values none.
 */
export function attributeTexts(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return [String(value)];
  if (Array.isArray(value)) {
    const texts: string[] = [];
    for (const v of value) for (const t of attributeTexts(v)) texts.push(t);
    return texts;
  }
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    try {
      return [JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? String(v) : v))];
    } catch {
      return [];
    }
  }
  return [];
}
