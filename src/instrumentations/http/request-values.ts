/**
 * Bounding and redaction of values a client controls, before they become span attributes.
 * Pure string work: this runs on every request.
 */

/** The value that replaces a sensitive query parameter's value, as the semantic conventions name it. */
export const REDACTED = 'REDACTED';

/**
 * `value` cut to at most `limit` UTF-16 code units (as the SDK's attribute length limit counts),
 * never between the two halves of a surrogate pair: a lone surrogate is not valid UTF-8, and a
 * strict OTLP/JSON reader rejects the whole line holding it.
 */
export function bound(value: string, limit: number): string {
  if (value.length <= limit) return value;
  const last = value.charCodeAt(limit - 1);
  return value.slice(0, last >= 0xd800 && last <= 0xdbff ? limit - 1 : limit);
}

/**
 * `query` (without the leading `?`) with the value of every parameter named in `names` replaced by
 * {@link REDACTED}; the key and every other byte are kept as sent. Names are compared after
 * percent-decoding (`%73ig` is `sig`), case-sensitively.
 * @see OpenTelemetry semantic conventions, attribute registry, `url.query`
 */
export function redactQuery(query: string, names: ReadonlySet<string>): string {
  let out: string | undefined;
  let start = 0;
  while (start <= query.length) {
    let end = query.indexOf('&', start);
    if (end < 0) end = query.length;
    const eq = query.indexOf('=', start);
    if (eq >= 0 && eq < end && names.has(decodeName(query.slice(start, eq)))) {
      out = (out ?? query.slice(0, start)) + query.slice(start, eq + 1) + REDACTED;
    } else if (out !== undefined) {
      out += query.slice(start, end);
    }
    if (end < query.length && out !== undefined) out += '&';
    start = end + 1;
  }
  return out ?? query;
}

function decodeName(name: string): string {
  if (name.indexOf('%') < 0 && name.indexOf('+') < 0) return name;
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** A TCP port from its decimal text: 1–5 digits, 0–65535; anything else is undefined. */
export function parsePort(text: string): number | undefined {
  if (text.length === 0 || text.length > 5) return undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return undefined;
  }
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

