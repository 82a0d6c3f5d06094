/**
 * The sending side of `tracehook export`: span-file lines gathered into bounded batches, each POSTed to the
 * OTLP/HTTP endpoint (with retries on the OTLP spec's retryable answers).
 *
 * @see https://opentelemetry.io/docs/specs/otlp/#otlphttp
 */
import { decodeExportRequest } from '../span-file/decode';
import type { SpanFileLine } from '../span-file/line-reader';
import { toReadableSpans } from '../span-file/readable-span';
import type { DecodedSpan } from '../span-file/types';

/** The OTLP/HTTP encodings `--protocol` accepts. */
export const PROTOCOLS = ['http/json', 'http/protobuf'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** Batches are cut at `batchSpans` spans or this many bytes of OTLP/JSON, whichever first. */
const MAX_BATCH_BYTES = 4 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 10_000;
/** Retries of a request answered 429/502/503/504 or not answered at all (the OTLP spec's retryable cases). */
const RETRIES = 2;

/** Where and how {@link ExportSender} sends. */
export interface ExportTarget {
  /** The endpoint, path included (no user or password: they are in `headers` as Basic authorization). */
  url: URL;
  /** `url` as messages name it: query values REDACTED (config/otlp.ts `redactUrl`). */
  shown: string;
  /** Request headers, content-type included. */
  headers: Record<string, string>;
  protocol: Protocol;
  /** Most spans per request; integer ≥ 1. */
  batchSpans: number;
}

interface Batch {
  lines: string[];
  requests: unknown[];
  spans: DecodedSpan[];
  spanCount: number;
  bytes: number;
}

/**
 * Gathers span-file lines into batches and sends each when full; {@link flush} sends the rest. http/json
 * sends the files' own OTLP/JSON (one line byte for byte, several joined by their `resourceSpans`);
 * http/protobuf re-encodes the decoded spans with @opentelemetry/otlp-transformer's ProtobufTraceSerializer.
 */
export class ExportSender {
  /** Spans accepted by the endpoint so far. */
  sent = 0;
  /** Requests accepted so far. */
  requests = 0;
  /** Lines skipped: not valid OTLP/JSON, or too long. */
  skipped = 0;
  private batch: Batch = emptyBatch();

  constructor(private readonly target: ExportTarget) {}

  /** Adds one line's spans to the batch, sending what is full. @returns the error of a send, which stops the export */
  async add(file: string, line: SpanFileLine): Promise<string | undefined> {
    if (line.tooLong) {
      this.skipped++;
      return undefined;
    }
    if (line.text.trim() === '') return undefined;
    let request: unknown;
    let spans: DecodedSpan[];
    try {
      request = JSON.parse(line.text);
      spans = decodeExportRequest(request, file);
    } catch {
      this.skipped++;
      return undefined;
    }
    if (spans.length === 0) return undefined;
    const { protocol, batchSpans } = this.target;
    if (this.batch.spanCount > 0 && (this.batch.spanCount + spans.length > batchSpans || this.batch.bytes + line.length > MAX_BATCH_BYTES)) {
      const error = await this.flush();
      if (error) return error;
    }
    // A line bigger than a batch is split by spans (protobuf) or sent whole (its own request, as exported).
    for (let i = 0; i < spans.length; i += protocol === 'http/json' ? spans.length : batchSpans) {
      const part = protocol === 'http/json' ? spans : spans.slice(i, i + batchSpans);
      const batch = this.batch;
      batch.lines.push(line.text);
      batch.requests.push(request);
      batch.spans.push(...part);
      batch.spanCount += part.length;
      batch.bytes += line.length;
      if (batch.spanCount >= batchSpans) {
        const error = await this.flush();
        if (error) return error;
      }
    }
    return undefined;
  }

  /** Sends the batch gathered so far. @returns undefined when accepted (or empty), else what went wrong */
  async flush(): Promise<string | undefined> {
    const batch = this.batch;
    if (batch.spanCount === 0) return undefined;
    const bodies = this.target.protocol === 'http/json' ? jsonBodies(batch) : [await protobufBody(batch.spans)];
    for (const body of bodies) {
      const error = await post(this.target, body);
      if (error) return error;
    }
    this.sent += batch.spanCount;
    this.requests += bodies.length;
    this.batch = emptyBatch();
    return undefined;
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

/** POSTs one batch. @returns undefined when accepted, else what went wrong (naming the endpoint as `shown`) */
async function post({ url, shown, headers }: ExportTarget, body: string | Uint8Array): Promise<string | undefined> {
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
