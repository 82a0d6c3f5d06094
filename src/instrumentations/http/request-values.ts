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
  return part.length < 13 ? part : ` ${part}`.slice(1);
}

/** True for a query parameter name (percent-decoded) whose value is redacted; built by {@link queryNameMatcher}. */
export type QueryNameMatcher = (name: string) => boolean;

/**
 * The one matcher of sensitive query parameter names, for SERVER `url.query` and CLIENT `url.full` /
 * `url.query` alike. A name matches one of `names` when they are equal once both are lower-cased and
 * stripped of `-`, `_` and `.` (`Token`, `TOKEN`, `api-key`, `apiKey`, `x-amz-signature` match `token`,
 * `api_key`, `X-Amz-Signature`), also when the name carries a bracketed part, as PHP, Rails and `qs`
 * spell arrays and fields: `token[]` and `token[0]` match by their base, `user[password]` by the part.
 * The semantic conventions compare names as given; a server that takes `?Token=` takes the secret all
 * the same, so tracehook matches every spelling of the name.
 * @param names - names as configured, any spelling
 */
export function queryNameMatcher(names: Iterable<string>): QueryNameMatcher {
  const folded = new Set<string>();
  for (const name of names) folded.add(foldName(name));
  folded.delete('');
  return (name) => {
    const open = name.indexOf('[');
    if (open < 0) return folded.has(foldName(name));
    if (folded.has(foldName(name.slice(0, open)))) return true;
    for (const part of name.slice(open).split(BRACKETS)) if (part && folded.has(foldName(part))) return true;
    return false;
  };
}

const SEPARATORS = /[-_.]/g;
const BRACKETS = /[[\]]+/;

function foldName(name: string): string {
  return name.toLowerCase().replace(SEPARATORS, '');
}

/**
 * `query` (without the leading `?`) with the value of every parameter whose name `isSensitive`
 * matches replaced by {@link REDACTED}; the key and every other byte are kept as sent. Names are
 * matched after percent-decoding (`%73ig` is `sig`).
 * @see OpenTelemetry semantic conventions, attribute registry, `url.query`
 */
export function redactQuery(query: string, isSensitive: QueryNameMatcher): string {
  let out: string | undefined;
  let start = 0;
  while (start <= query.length) {
    let end = query.indexOf('&', start);
    if (end < 0) end = query.length;
    const eq = query.indexOf('=', start);
    if (eq >= 0 && eq < end && isSensitive(decodeName(query.slice(start, eq)))) {
      out = (out ?? query.slice(0, start)) + query.slice(start, eq + 1) + REDACTED;
    } else if (out !== undefined) {
      out += query.slice(start, end);
    }
    if (end < query.length && out !== undefined) out += '&';
    start = end + 1;
  }
  return out ?? query;
}

/** `url` with {@link redactQuery} applied to its query (after the first `?`, before a `#`); `url` itself when nothing is redacted. */
export function redactUrlQuery(url: string, isSensitive: QueryNameMatcher): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  let end = url.indexOf('#', q);
  if (end < 0) end = url.length;
  const query = url.slice(q + 1, end);
  const redacted = redactQuery(query, isSensitive);
  return redacted === query ? url : url.slice(0, q + 1) + redacted + url.slice(end);
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
