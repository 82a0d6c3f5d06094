/**
 * `tracehook export [DIR|FILE...] --endpoint URL [--protocol http/json|http/protobuf]`: replays
 * span files into an OTLP/HTTP endpoint (a Collector, Jaeger, Tempo…), in bounded batches.
 *
 * http/json sends the files' own OTLP/JSON: a batch of one line is sent byte for byte, several
 * lines are joined by concatenating their `resourceSpans`. http/protobuf decodes the lines and
 * re-encodes them with @opentelemetry/otlp-transformer's ProtobufTraceSerializer.
 *
 * @see https://opentelemetry.io/docs/specs/otlp/#otlphttp
 */
import { parseArgs } from 'node:util';
import { escapeControlChars as printable } from '../diag/control-chars';
import { decodeExportRequest } from '../span-file/decode';
import { readSpanFileLines, type SpanFileLine } from '../span-file/line-reader';
import { toReadableSpans } from '../span-file/readable-span';
import { findAllSpanFiles, skippedFileReason } from '../span-file/span-files';
import type { DecodedSpan } from '../span-file/types';
import { argumentError, firstMissing, PATHS_HELP, READ_OPTIONS, skippedFilesNote, spanPaths } from './view-options';
import { redactUrl } from '../config/otlp';
import type { ViewIO } from './view';

const PROTOCOLS = ['http/json', 'http/protobuf'] as const;
type Protocol = (typeof PROTOCOLS)[number];

/** Batches are cut at this many spans (default) or this many bytes of OTLP/JSON, whichever first. */
const DEFAULT_BATCH_SPANS = 512;
const MAX_BATCH_BYTES = 4 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 10_000;
/** Retries of a request answered 429/502/503/504 or not answered at all (the OTLP spec's retryable cases). */
const RETRIES = 2;

/** The text `tracehook export --help` prints. */
export const EXPORT_HELP = `Usage: tracehook export [DIR|FILE...] --endpoint URL [--protocol P] [--header K=V]... [--any-owner]

Sends the spans in span files to an OTLP/HTTP endpoint (an OpenTelemetry Collector, Jaeger,
Grafana Tempo, a vendor), in batches of at most --batch-spans spans.

${PATHS_HELP}

Options:
  --endpoint <url>      http(s) URL; a URL without a path gets /v1/traces (http://localhost:4318
                        → http://localhost:4318/v1/traces), a URL with one is used as it is;
                        user:password@ is sent as Basic authorization. Shown with user, password
                        and query values as REDACTED
  --protocol <p>        http/json (default: the files' own OTLP/JSON) or http/protobuf
  --header <k=v>        a request header, e.g. authorization=Bearer… (repeatable)
  --batch-spans <n>     spans per request, at most (default ${DEFAULT_BATCH_SPANS})
  -h, --help            print this help

Exit status: 0 when every span was accepted, 1 when a request failed (the message says which and
how many spans were sent before it), 2 for a wrong argument.
`;

interface Batch {
  lines: string[];
  requests: unknown[];
  spans: DecodedSpan[];
  spanCount: number;
  bytes: number;
}

/**
 * Runs `tracehook export` with `argv` (the arguments after `export`).
 * @returns the exit code (see {@link EXPORT_HELP})
 */
export async function runExport(argv: string[], io: ViewIO = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  // Escaped: a backend's reason phrase and body are in some messages.
  const say = (stream: ViewIO['stdout'], text: string) => new Promise<void>((r) => stream.write(`tracehook export: ${printable(text)}\n`, () => r()));
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        endpoint: { type: 'string' },
        protocol: { type: 'string' },
        header: { type: 'string', multiple: true },
        'batch-spans': { type: 'string' },
        ...READ_OPTIONS,
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    await say(io.stderr, argumentError(err, 'export'));
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(EXPORT_HELP);
    return 0;
  }
  const usage = async (message: string) => {
    await say(io.stderr, message);
    return 2;
  };
  if (values.endpoint === undefined) return usage('--endpoint is required, e.g. --endpoint http://localhost:4318');
  let url: URL;
  try {
    url = new URL(values.endpoint);
  } catch {
    // The parser could not tell a password from the rest: nothing of it is shown.
    return usage('--endpoint: expected an http:// or https:// URL (it is not a URL; the value is not shown, as it may hold a secret)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return usage(`--endpoint: expected an http:// or https:// URL, got ${JSON.stringify(redactUrl(values.endpoint))}`);
  if (url.pathname === '/') url.pathname = '/v1/traces';
  const shown = redactUrl(url.href);
  const protocol = (values.protocol ?? 'http/json') as Protocol;
  if (!PROTOCOLS.includes(protocol)) return usage(`--protocol: expected http/json or http/protobuf, got ${JSON.stringify(values.protocol)}`);
  const batchSpans = values['batch-spans'] === undefined ? DEFAULT_BATCH_SPANS : Number(values['batch-spans']);
  if (!Number.isInteger(batchSpans) || batchSpans < 1) return usage(`--batch-spans: expected a whole number ≥ 1, got ${JSON.stringify(values['batch-spans'])}`);
  const headers: Record<string, string> = { 'content-type': protocol === 'http/json' ? 'application/json' : 'application/x-protobuf' };
  for (const h of values.header ?? []) {
    const eq = h.indexOf('=');
    // The value may be a secret: name only the key.
    if (eq < 1) return usage(`--header: expected key=value, got a value without "=" or without a key`);
    headers[h.slice(0, eq).trim().toLowerCase()] = h.slice(eq + 1).trim();
  }
  // fetch refuses a URL with credentials: they go as Basic authorization, as node:http and the OTLP exporters send them.
  if (url.username || url.password) {
    headers.authorization ??= `Basic ${Buffer.from(`${decodeUserinfo(url.username)}:${decodeUserinfo(url.password)}`).toString('base64')}`;
    url.username = url.password = '';
  }
  const { paths, notes } = await spanPaths(positionals, io.env);
  for (const note of notes) await say(io.stderr, note);
  if (paths.length === 0) return usage('no spans found (pass a directory or file, or set TRACEHOOK_SPANS_DIR)');
  const missing = await firstMissing(paths);
  if (missing !== undefined) return usage(`${missing}: no such file or directory`);

  const { files, skipped: skippedFiles } = await findAllSpanFiles(paths);
  const options = { anyOwner: values['any-owner'] === true };
  let sent = 0;
  let requests = 0;
  let skipped = 0;
  let batch: Batch = emptyBatch();
  const flush = async (): Promise<string | undefined> => {
    if (batch.spanCount === 0) return undefined;
    const bodies = protocol === 'http/json' ? jsonBodies(batch) : [await protobufBody(batch.spans)];
    for (const body of bodies) {
      const error = await post(url, shown, headers, body);
      if (error) return error;
    }
    sent += batch.spanCount;
    requests += bodies.length;
    batch = emptyBatch();
    return undefined;
  };

  for (const file of files) {
    const lines = readSpanFileLines(file, 0, 1, options);
    for (;;) {
      let next;
      try {
        next = await lines.next();
      } catch (err) {
        // The file's lines read so far stay batched: they were whole lines.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') skippedFiles.set(file, skippedFileReason(file, err));
        break;
      }
      if (next.done) break;
      const error = await add(file, next.value);
      if (error) {
        await lines.return(undefined);
        return failed(error);
      }
    }
  }
  const error = await flush();
  if (error) return failed(error);

  if (skippedFiles.size > 0) await new Promise<void>((r) => io.stderr.write(skippedFilesNote('export', skippedFiles), () => r()));
  const skippedNote = skipped ? `; skipped ${skipped} line${skipped === 1 ? '' : 's'} that ${skipped === 1 ? 'is' : 'are'} not valid OTLP/JSON or too long` : '';
  const read = files.filter((f) => !skippedFiles.has(f)).length;
  if (sent === 0) {
    await say(io.stderr, `no spans in ${read} span file${read === 1 ? '' : 's'} under ${paths.join(', ')}${skippedNote}`);
    return 1;
  }
  await say(io.stdout, `sent ${sent} spans from ${read} span file${read === 1 ? '' : 's'} in ${requests} request${requests === 1 ? '' : 's'} to ${shown} (${protocol})${skippedNote}`);
  return 0;

  /** Adds one line's spans to the batch, sending what is full. @returns the error of a send, which stops the export */
  async function add(file: string, line: SpanFileLine): Promise<string | undefined> {
    if (line.tooLong) {
      skipped++;
      return undefined;
    }
    if (line.text.trim() === '') return undefined;
    let request: unknown;
    let spans: DecodedSpan[];
    try {
      request = JSON.parse(line.text);
      spans = decodeExportRequest(request, file);
    } catch {
      skipped++;
      return undefined;
    }
    if (spans.length === 0) return undefined;
    if (batch.spanCount > 0 && (batch.spanCount + spans.length > batchSpans || batch.bytes + line.length > MAX_BATCH_BYTES)) {
      const error = await flush();
      if (error) return error;
    }
    // A line bigger than a batch is split by spans (protobuf) or sent whole (its own request, as exported).
    for (let i = 0; i < spans.length; i += protocol === 'http/json' ? spans.length : batchSpans) {
      const part = protocol === 'http/json' ? spans : spans.slice(i, i + batchSpans);
      batch.lines.push(line.text);
      batch.requests.push(request);
      batch.spans.push(...part);
      batch.spanCount += part.length;
      batch.bytes += line.length;
      if (batch.spanCount >= batchSpans) {
        const error = await flush();
        if (error) return error;
      }
    }
    return undefined;
  }

  async function failed(message: string): Promise<number> {
    await say(io.stderr, `${message} (${sent} spans were sent before it; stopping)`);
    return 1;
  }
}

function emptyBatch(): Batch {
  return { lines: [], requests: [], spans: [], spanCount: 0, bytes: 0 };
}

// One request of the batch's lines; or each line as it is when they cannot be joined (JSON.stringify
// recurses, and a hostile line nests thousands deep).
function jsonBodies(batch: Batch): string[] {
  if (batch.lines.length === 1) return batch.lines;
  const resourceSpans = batch.requests.flatMap((r) => (r as { resourceSpans: unknown[] }).resourceSpans);
  try {
    return [JSON.stringify({ resourceSpans })];
  } catch {
    return batch.lines;
  }
}

async function protobufBody(spans: DecodedSpan[]): Promise<Uint8Array> {
  // Loaded here: only this protocol needs it.
  const { ProtobufTraceSerializer } = await import('@opentelemetry/otlp-transformer');
  const bytes = ProtobufTraceSerializer.serializeRequest(toReadableSpans(spans));
  if (!bytes) throw new Error('ProtobufTraceSerializer could not encode the spans');
  return bytes;
}

function decodeUserinfo(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** POSTs one batch. @param shown - `url` as messages name it (see `redactUrl`) @returns undefined when accepted, else what went wrong */
async function post(url: URL, shown: string, headers: Record<string, string>, body: string | Uint8Array): Promise<string | undefined> {
  let problem = '';
  for (let attempt = 0; attempt <= RETRIES; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 500 * attempt));
    try {
      const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      const text = await res.text();
      if (res.ok) return undefined;
      problem = `POST ${shown} answered HTTP ${res.status} ${res.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`;
      if (![429, 502, 503, 504].includes(res.status)) return problem;
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      // undici's messages may quote the URL, query included.
      problem = `POST ${shown} failed: ${(cause?.code ?? cause?.message ?? (err as Error).message).split(url.href).join(shown)}`;
    }
  }
  return problem;
}
