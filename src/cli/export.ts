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
import { redactUrl } from '../config/otlp';
import { escapeControlChars as printable } from '../diag/control-chars';
import { readSpanFileLines } from '../span-file/line-reader';
import { findAllSpanFiles, skippedFileReason } from '../span-file/span-files';
import { ExportSender, PROTOCOLS, type ExportTarget, type Protocol } from './export-sender';
import { argumentError, firstMissing, PATHS_HELP, plural, READ_OPTIONS, skippedFilesNote, spanPaths } from './view-options';
import type { ViewIO } from './view';

/** Batches are cut at this many spans (default) or 4 MiB of OTLP/JSON, whichever first. */
const DEFAULT_BATCH_SPANS = 512;

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

/** What the arguments ask for: where to send, and the span files' paths. */
interface ExportSettings extends ExportTarget {
  paths: string[];
  anyOwner: boolean;
}

type Say = (stream: ViewIO['stdout'], text: string) => Promise<void>;

/**
 * Runs `tracehook export` with `argv` (the arguments after `export`).
 * @returns the exit code (see {@link EXPORT_HELP})
 */
export async function runExport(argv: string[], io: ViewIO = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  // Escaped: a backend's reason phrase and body are in some messages.
  const say: Say = (stream, text) => new Promise<void>((r) => stream.write(`tracehook export: ${printable(text)}\n`, () => r()));
  const settings = await exportSettings(argv, io, say);
  if (typeof settings === 'number') return settings;
  const { paths, shown, protocol } = settings;

  const { files, skipped: skippedFiles } = await findAllSpanFiles(paths);
  const sender = new ExportSender(settings);
  const error = await sendFiles(files, skippedFiles, sender, settings.anyOwner);
  if (error) {
    await say(io.stderr, `${error} (${plural(sender.sent, 'span')} ${sender.sent === 1 ? 'was' : 'were'} sent before it; stopping)`);
    return 1;
  }

  const { sent, requests, skipped } = sender;
  if (skippedFiles.size > 0) await new Promise<void>((r) => io.stderr.write(skippedFilesNote('export', skippedFiles), () => r()));
  const skippedNote = skipped ? `; skipped ${skipped} line${skipped === 1 ? '' : 's'} that ${skipped === 1 ? 'is' : 'are'} not valid OTLP/JSON or too long` : '';
  const read = files.filter((f) => !skippedFiles.has(f)).length;
  if (sent === 0) {
    await say(io.stderr, `no spans in ${read} span file${read === 1 ? '' : 's'} under ${paths.join(', ')}${skippedNote}`);
    return 1;
  }
  await say(io.stdout, `sent ${plural(sent, 'span')} from ${plural(read, 'span file')} in ${plural(requests, 'request')} to ${shown} (${protocol})${skippedNote}`);
  return 0;
}

/** The settings `argv` asks for, or the exit code when it is --help or wrong (said on stderr). */
async function exportSettings(argv: string[], io: ViewIO, say: Say): Promise<ExportSettings | number> {
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
  return { url, shown, headers, protocol, batchSpans, paths, anyOwner: values['any-owner'] === true };
}

function decodeUserinfo(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Reads every line of `files` into `sender`, then sends the rest. A file that cannot be read is added to
 * `skippedFiles` with its reason. @returns the error of a send, which stops the export
 */
async function sendFiles(files: string[], skippedFiles: Map<string, string>, sender: ExportSender, anyOwner: boolean): Promise<string | undefined> {
  const options = { anyOwner };
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
      const error = await sender.add(file, next.value);
      if (error) {
        await lines.return(undefined);
        return error;
      }
    }
  }
  return sender.flush();
}
