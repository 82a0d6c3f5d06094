/**
 * Reads span files back: the OTLP File Exporter format that tracehook's embedded default writes
 * (JSON Lines; each line one OTLP/JSON `ExportTraceServiceRequest`, hex ids), into flat
 * {@link DecodedSpan} records.
 *
 * @see https://opentelemetry.io/docs/specs/otel/protocol/file-exporter/
 */
import { toAttributes } from './any-value';
import { readSpanFileLines, tooLongReason } from './line-reader';
import { arrayOrEmpty, type RawObject } from './raw-json';
import { findSpanFiles } from './span-files';
import type { DecodedEvent, DecodedLink, DecodedSpan, SkippedLine, SpanKindName, SpanReadResult, StatusCodeName } from './types';

export type * from './types';

const KINDS: readonly SpanKindName[] = ['INTERNAL', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
const STATUS_CODES: readonly StatusCodeName[] = ['UNSET', 'OK', 'ERROR'];

export { SPAN_FILE_EXTENSION } from './span-files';

/** The latest time a span may have: OTLP times are unsigned 64-bit nanoseconds (year 2554, a valid Date). */
const MAX_UNIX_NANO = (1n << 64n) - 1n;

/**
 * Decodes one line of a span file (one OTLP/JSON `ExportTraceServiceRequest`) into its spans, in
 * the order they appear.
 *
 * @param line - the JSON text; surrounding whitespace is ignored.
 * @param file - recorded as {@link DecodedSpan.file} on each span; default `''`.
 * @throws SyntaxError when the line is not JSON, and TypeError when it is JSON but not a trace
 *   export request (no `resourceSpans` array, or a span without a valid trace id, span id or name,
 *   or with a start or end time outside the unsigned 64-bit nanoseconds of OTLP). An end before the
 *   start is read as the start (duration 0); an event time out of range as the span's start.
 */
export function decodeSpanLine(line: string, file = '', options: DecodeOptions = {}): DecodedSpan[] {
  const request: unknown = JSON.parse(line);
  return decodeExportRequest(request, file, options);
}

/** What {@link decodeSpanLine} may leave out. */
export interface DecodeOptions {
  /**
   * Leave span events empty and keep only the attributes a trace list names a request by
   * ({@link LABEL_ATTRIBUTE_KEYS}): an index that only lists traces needs no more.
   */
  skipAttributesAndEvents?: boolean;
}

/**
 * Decodes a parsed OTLP/JSON `ExportTraceServiceRequest` (the object {@link decodeSpanLine} parses).
 * @throws TypeError as {@link decodeSpanLine}.
 */
export function decodeExportRequest(request: unknown, file = '', options: DecodeOptions = {}): DecodedSpan[] {
  const resourceSpans = (request as { resourceSpans?: unknown } | null)?.resourceSpans;
  if (!Array.isArray(resourceSpans)) {
    throw new TypeError('not an OTLP ExportTraceServiceRequest: no "resourceSpans" array');
  }
  const out: DecodedSpan[] = [];
  for (const rs of resourceSpans) {
    const resource = toAttributes(rs?.resource?.attributes);
    for (const ss of arrayOrEmpty(rs?.scopeSpans)) {
      const scope = decodeScope(ss?.scope as RawObject);
      for (const span of arrayOrEmpty(ss?.spans)) {
        out.push(decodeSpan(span, resource, scope, file, options.skipAttributesAndEvents === true));
      }
    }
  }
  return out;
}

/**
 * Reads every span of several span files and directories. A directory contributes its
 * `*.jsonl` files (not recursively); a path that does not exist contributes nothing. Lines that
 * are not valid OTLP/JSON (typically the last line of a process killed mid-write) are skipped and
 * reported in {@link SpanReadResult.skipped}, never thrown.
 *
 * @throws only for I/O errors other than a missing path (e.g. permission denied).
 */
export async function readSpans(paths: readonly string[]): Promise<SpanReadResult> {
  const files = new Set<string>();
  for (const p of paths) {
    for (const f of await listSpanFiles(p)) files.add(f);
  }
  const result: SpanReadResult = { spans: [], files: [...files].sort(), skipped: [] };
  for (const file of result.files) {
    try {
      for await (const line of readSpanFileLines(file)) {
        if (line.tooLong) result.skipped.push({ file, line: line.line, reason: tooLongReason(line.length), truncated: line.unterminated });
        else decodeLineInto(line.text, file, line.line, line.unterminated, result);
      }
    } catch (err) {
      // Removed between listing and reading: nothing to read, as for a missing path.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return result;
}

/**
 * Reads the spans of one span file, skipping lines that are not valid OTLP/JSON (use
 * {@link readSpans} to learn how many). A file that does not exist gives `[]`.
 */
export async function readSpanFile(path: string): Promise<DecodedSpan[]> {
  return (await readSpans([path])).spans;
}

/**
 * Reads the spans of every `*.jsonl` file in a directory (not recursively), files in name order,
 * skipping lines that are not valid OTLP/JSON (use {@link readSpans} to learn how many).
 * A directory that does not exist gives `[]`, so "no spans were written" needs no special case.
 */
export async function readSpanDir(dir: string): Promise<DecodedSpan[]> {
  return (await readSpans([dir])).spans;
}

// Blank lines are ignored; a line that does not decode is recorded, never thrown.
function decodeLineInto(line: string, file: string, lineNumber: number, unterminated: boolean, out: { spans: DecodedSpan[]; skipped: SkippedLine[] }): void {
  if (line.trim() === '') return;
  try {
    // A loop, not push(...spans): a big line has more spans than a call can take arguments.
    for (const span of decodeSpanLine(line, file)) out.spans.push(span);
  } catch (err) {
    // A line without its newline is still being written, or was cut by a kill.
    out.skipped.push({ file, line: lineNumber, reason: skipReason(err), truncated: unterminated });
  }
}

/**
 * Why a line was skipped, from what {@link decodeSpanLine} threw, without echoing the line:
 * JSON.parse's messages quote the input, so a syntax error is told by its position only.
 */
export function skipReason(err: unknown): string {
  if (err instanceof SyntaxError) {
    if (/end of JSON input|Unterminated/i.test(err.message)) return 'not JSON: it ends early';
    const at = /position (\d+)/.exec(err.message);
    return `not JSON${at ? ` (at character ${at[1]})` : ''}`;
  }
  const message = err instanceof Error ? err.message : String(err);
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}

/**
 * The span files a path stands for: a directory's `*.jsonl` regular files (not recursively), a file
 * itself, nothing for a path that does not exist. Absolute paths. See {@link findSpanFiles}, which
 * also says which entries it passed over.
 * @throws I/O errors other than ENOENT
 */
export async function listSpanFiles(path: string): Promise<string[]> {
  return (await findSpanFiles(path)).files;
}

function decodeSpan(raw: RawObject, resource: DecodedSpan['resource'], scope: DecodedSpan['scope'], file: string, light: boolean): DecodedSpan {
  if (raw === null || typeof raw !== 'object') throw new TypeError('span is not an object');
  const traceId = decodeId(raw.traceId, 16, 'traceId');
  const spanId = decodeId(raw.spanId, 8, 'spanId');
  if (typeof raw.name !== 'string') throw new TypeError(`span ${spanId} has no "name"`);
  // An all-zero parent id is the invalid span id: some producers write it for a root.
  const parentId = raw.parentSpanId ? decodeId(raw.parentSpanId, 8, 'parentSpanId') : undefined;
  const parentSpanId = parentId === '0000000000000000' ? undefined : parentId;
  const startTimeUnixNano = decodeNanos(raw.startTimeUnixNano);
  const end = decodeNanos(raw.endTimeUnixNano);
  if (startTimeUnixNano === undefined || end === undefined) {
    throw new TypeError(`span ${spanId} has ${startTimeUnixNano === undefined ? 'a start' : 'an end'} time outside 0 to 2^64-1 ns`);
  }
  const endTimeUnixNano = end < startTimeUnixNano ? startTimeUnixNano : end;
  // Optional keys are present only when set, so that deepEqual against a literal stays simple.
  return {
    traceId,
    spanId,
    ...(parentSpanId ? { parentSpanId } : {}),
    ...(typeof raw.traceState === 'string' && raw.traceState !== '' ? { traceState: raw.traceState } : {}),
    name: raw.name,
    kind: decodeKind(raw.kind),
    startTimeUnixNano,
    endTimeUnixNano,
    durationMs: Number(endTimeUnixNano - startTimeUnixNano) / 1e6,
    attributes: toAttributes(light ? labelKeyValues(raw.attributes) : raw.attributes),
    events: light ? [] : arrayOrEmpty(raw.events).map((e) => decodeEvent(e, startTimeUnixNano)),
    links: arrayOrEmpty(raw.links).map(decodeLink),
    status: decodeStatus(raw.status as RawObject),
    resource,
    scope,
    file,
  };
}

/** The attributes a light decode keeps (see {@link DecodeOptions.skipAttributesAndEvents}): what span-label.ts' `requestTarget` reads. */
export const LABEL_ATTRIBUTE_KEYS: ReadonlySet<string> = new Set(['http.route', 'url.path', 'http.target', 'url.full', 'http.url']);

// The KeyValue entries of LABEL_ATTRIBUTE_KEYS, before any value is unwrapped.
function labelKeyValues(keyValues: unknown): unknown[] {
  return Array.isArray(keyValues) ? keyValues.filter((kv) => LABEL_ATTRIBUTE_KEYS.has((kv as { key?: unknown } | null)?.key as string)) : [];
}

function decodeEvent(raw: RawObject, spanStart: bigint): DecodedEvent {
  return {
    name: typeof raw?.name === 'string' ? raw.name : '',
    timeUnixNano: decodeNanos(raw?.timeUnixNano) ?? spanStart,
    attributes: toAttributes(raw?.attributes),
  };
}

function decodeLink(raw: RawObject): DecodedLink {
  const link: DecodedLink = {
    traceId: decodeId(raw?.traceId, 16, 'links.traceId'),
    spanId: decodeId(raw?.spanId, 8, 'links.spanId'),
    attributes: toAttributes(raw?.attributes),
  };
  if (typeof raw?.traceState === 'string' && raw.traceState !== '') link.traceState = raw.traceState;
  return link;
}

function decodeScope(raw: RawObject): DecodedSpan['scope'] {
  const scope: DecodedSpan['scope'] = { name: typeof raw?.name === 'string' ? raw.name : '' };
  if (typeof raw?.version === 'string' && raw.version !== '') scope.version = raw.version;
  return scope;
}

function decodeStatus(raw: RawObject): DecodedSpan['status'] {
  const status: DecodedSpan['status'] = { code: decodeEnum(raw?.code, STATUS_CODES, 'STATUS_CODE_', 'UNSET') };
  if (typeof raw?.message === 'string' && raw.message !== '') status.message = raw.message;
  return status;
}

function decodeKind(raw: unknown): SpanKindName {
  return decodeEnum(raw, KINDS, 'SPAN_KIND_', 'INTERNAL');
}

// OTLP/JSON writes enums as numbers; the proto3 JSON mapping also allows their names
// (SPAN_KIND_SERVER, STATUS_CODE_ERROR), which some producers use.
function decodeEnum<T extends string>(raw: unknown, names: readonly T[], prefix: string, fallback: T): T {
  if (typeof raw === 'number') return names[raw] ?? fallback;
  if (typeof raw === 'string') {
    const name = raw.startsWith(prefix) ? raw.slice(prefix.length) : raw;
    return (names as readonly string[]).includes(name) ? (name as T) : fallback;
  }
  return fallback;
}

/**
 * A trace or span id as lowercase hex. OTLP/JSON requires hex ids; the generic proto3 JSON mapping
 * would give base64, so that is accepted too rather than show a trace that never links up.
 * @param bytes - 16 for a trace id, 8 for a span id
 * @throws TypeError naming `field` when `raw` is neither
 */
export function decodeId(raw: unknown, bytes: number, field: string): string {
  if (typeof raw === 'string') {
    if (raw.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(raw)) return raw.toLowerCase();
    const fromBase64 = Buffer.from(raw, 'base64');
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(raw) && fromBase64.length === bytes) return fromBase64.toString('hex');
  }
  throw new TypeError(`span "${field}" is not ${bytes * 2} hex chars: ${describeRaw(raw)}`);
}

// A bounded excerpt: the value may be a megabyte string or an object nested thousands deep.
function describeRaw(raw: unknown): string {
  if (typeof raw === 'string') return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
  if (raw === null || typeof raw !== 'object') return String(raw);
  return Array.isArray(raw) ? 'an array' : 'an object';
}

// Timestamps are fixed64 nanoseconds: a decimal string in OTLP/JSON, a number from some producers.
// Missing or unreadable gives 0 (as before); a number outside 0 to 2^64-1 gives undefined. Digits
// beyond 20 (2^64 has 20) are out of range before BigInt, whose parsing of a long string is slow.
function decodeNanos(raw: unknown): bigint | undefined {
  let nanos = 0n;
  if (typeof raw === 'string' && /^\d+$/.test(raw)) {
    const digits = /^0*(\d{0,20})$/.exec(raw);
    if (!digits) return undefined;
    nanos = BigInt(digits[1] || '0');
  } else if (typeof raw === 'number' && Number.isFinite(raw)) nanos = BigInt(Math.trunc(raw));
  return nanos >= 0n && nanos <= MAX_UNIX_NANO ? nanos : undefined;
}
