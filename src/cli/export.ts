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
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { decodeExportRequest, listSpanFiles } from '../span-file/decode';
import { readSpanFileLines } from '../span-file/line-reader';
import { toReadableSpans } from '../span-file/readable-span';
import type { DecodedSpan } from '../span-file/types';
import { argumentError, spanPaths } from './view-options';
import { DEFAULT_SPANS_DIR } from '../config/spans-dir';
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
export const EXPORT_HELP = `Usage: tracehook export [DIR|FILE...] --endpoint URL [--protocol P] [--header K=V]...

Sends the spans in span files to an OTLP/HTTP endpoint (an OpenTelemetry Collector, Jaeger,
Grafana Tempo, a vendor), in batches of at most --batch-spans spans.

Arguments:
  DIR|FILE              span files or directories of them; default: $TRACEHOOK_SPANS_DIR, else ${DEFAULT_SPANS_DIR}

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
  const say = (stream: ViewIO['stdout'], text: string) => new Promise<void>((r) => stream.write(`tracehook export: ${text}\n`, () => r()));
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
  const { paths } = spanPaths(positionals, io.env);
  for (const p of paths) if (!existsSync(p)) return usage(`${p}: no such file or directory`);

  const files = [...new Set((await Promise.all(paths.map(listSpanFiles))).flat())].sort();
  let sent = 0;
  let requests = 0;
  let skipped = 0;
  let batch: Batch = emptyBatch();
  const flush = async (): Promise<string | undefined> => {
    if (batch.spanCount === 0) return undefined;
    const body = protocol === 'http/json' ? jsonBody(batch) : await protobufBody(batch.spans);
    const error = await post(url, shown, headers, body);
    if (error) return error;
    sent += batch.spanCount;
    requests++;
    batch = emptyBatch();
    return undefined;
  };

  for (const file of files) {
    for await (const line of readSpanFileLines(file)) {
      if (line.text.trim() === '') continue;
      let request: unknown;
      let spans: DecodedSpan[];
      try {
        request = JSON.parse(line.text);
        spans = decodeExportRequest(request, file);
      } catch {
        skipped++;
        continue;
      }
      if (spans.length === 0) continue;
      if (batch.spanCount > 0 && (batch.spanCount + spans.length > batchSpans || batch.bytes + line.length > MAX_BATCH_BYTES)) {
        const error = await flush();
        if (error) return failed(error);
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
          if (error) return failed(error);
        }
      }
    }
  }
  const error = await flush();
  if (error) return failed(error);

  const skippedNote = skipped ? `; skipped ${skipped} line${skipped === 1 ? '' : 's'} that ${skipped === 1 ? 'is' : 'are'} not valid OTLP/JSON` : '';
  if (sent === 0) {
    await say(io.stderr, `no spans in ${files.length} span file${files.length === 1 ? '' : 's'} under ${paths.join(', ')}${skippedNote}`);
    return 1;
  }
  await say(io.stdout, `sent ${sent} spans from ${files.length} span file${files.length === 1 ? '' : 's'} in ${requests} request${requests === 1 ? '' : 's'} to ${shown} (${protocol})${skippedNote}`);
  return 0;

  async function failed(message: string): Promise<number> {
    await say(io.stderr, `${message} (${sent} spans were sent before it; stopping)`);
    return 1;
  }
}

function emptyBatch(): Batch {
  return { lines: [], requests: [], spans: [], spanCount: 0, bytes: 0 };
}

function jsonBody(batch: Batch): string {
  if (batch.lines.length === 1) return batch.lines[0];
  const resourceSpans = batch.requests.flatMap((r) => (r as { resourceSpans: unknown[] }).resourceSpans);
  return JSON.stringify({ resourceSpans });
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
