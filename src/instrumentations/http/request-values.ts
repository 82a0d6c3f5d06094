/**
 * Bounding and redaction of values a client controls, before they become span attributes.
 * Pure string work: this runs on every request.
 */

/** The value that replaces a sensitive query parameter's value, as the semantic conventions name it. */
export const REDACTED = 'REDACTED';

/**
 * `value` cut to at most `limit` UTF-16 code units (as the SDK's attribute length limit counts),
 * never between the two halves of a surrogate pair: a lone surrogate is not valid UTF-8, and a
 * strict OTLP/JSON reader rejects the whole line holding it. A cut value is a copy of its own
 * (see {@link detached}): a queued span must not keep the whole request line or header alive.
 */
export function bound(value: string, limit: number): string {
  if (value.length <= limit) return value;
  const last = value.charCodeAt(limit - 1);
  return detached(value.slice(0, last >= 0xd800 && last <= 0xdbff ? limit - 1 : limit));
}

/**
 * `part` (a slice of a longer string) as a string that does not retain that longer one. V8 makes a
 * slice of 13 or more characters a "sliced string" pointing into its parent, which then lives as
 * long as the slice: a 2,048-character `url.path` cut from a 7,000-character request line held all
 * 7,000. Prepending a character makes a cons string; slicing that flattens it into a new string of
 * `part.length + 1` characters, and the result points into that copy only. Measured on Node.js 20,
 * 22 and 24 (heap retained per 2,048-character cut of a 7,000-character string: 7,100 bytes as a
 * slice, 2,150 this way; `Buffer` and `structuredClone` round trips detach too, at more cost).
 */
export function detached(part: string): string {
  return part.length < 13 ? part : (` ${part}`).slice(1);
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

