/**
 * `tracehook ui [DIR|FILE...] [--port N]`: serves the trace page on 127.0.0.1 (never another
 * interface) with node:http, following the span files as they grow: every request for the trace
 * list reads what was appended since the previous one, and the page polls it.
 *
 * Span files are private (0600), and any local user can connect to 127.0.0.1: every route is under
 * a random token path, `/<token>/`, printed only to the user who started the server; any other path
 * is 404. Routes: `GET /<token>/` the page; `GET /<token>/api/traces` the trace summaries
 * ({@link PageData}); `GET /<token>/api/trace/<traceId>` the spans of one trace ({@link PageTrace});
 * `GET /<token>/api/search?q=TERM&q=…` the ids of the traces whose spans match every term
 * (span-search.ts), `{ traceIds: string[] }`.
 * The page fetches relative URLs, so it needs no cookie.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { SpanIndex } from '../span-file/span-index';
import { findAllSpanFiles, SPAN_DIR_MAX_DEPTH, type SpanFileOptions } from '../span-file/span-files';
import { buildLivePage, pageData, pageTrace } from './ui/page';
import { argumentError, commandFail, firstMissing, PATHS_HELP, READ_OPTIONS, spanPaths } from './view-options';
import type { ViewIO } from './view';
import { escapeControlChars } from '../diag/control-chars';
import { parseSpanQuery, traceMatchesQueries, type SpanQuery } from '../span-file/span-search';

/** The port `tracehook ui` listens on unless told otherwise. */
export const DEFAULT_UI_PORT = 7476;

/** The text `tracehook ui --help` prints. */
export const UI_HELP = `Usage: tracehook ui [DIR|FILE...] [--port N] [--any-owner]

Serves the trace page (trace list with filters, waterfall, span details) on
http://127.0.0.1:N/<token>/ (loopback only), following the span files as they grow: new traces
appear within a few seconds, or on reload. <token> is random, new each start, and printed only
here: other local users can reach the port but not the page or the spans.

${PATHS_HELP}

Options:
  --port <n>             the port (default ${DEFAULT_UI_PORT}; 0 picks a free one)
  -h, --help             print this help

Stops on Ctrl-C (SIGINT) or SIGTERM. For a file to keep or send: tracehook view --html out.html
`;

/** A running page server. */
export interface UiServer {
  /** The port it listens on (127.0.0.1). */
  port: number;
  /** The page's address, with the token: `http://127.0.0.1:<port>/<token>/`. */
  url: string;
  close(): Promise<void>;
}

/** Options of {@link startUiServer}. */
export interface UiServerOptions extends SpanFileOptions {
  /** Called with a line for each file that is skipped (not a regular file, another user's, unreadable), once per file. */
  onSkippedFile?: (line: string) => void;
}

/** Random bytes in the token: 192 bits, URL-safe base64. */
const TOKEN_BYTES = 24;

/**
 * Starts the page server on 127.0.0.1.
 * @param port - 0 for any free port
 * @throws the listen error (EADDRINUSE…) when the port cannot be bound
 */
export async function startUiServer(paths: readonly string[], port: number, options: UiServerOptions = {}): Promise<UiServer> {
  const index = new SpanIndex(paths, options);
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  const reported = new Set<string>();
  let refreshing: Promise<void> | undefined;
  // One refresh at a time; requests arriving meanwhile share it.
  const refresh = () =>
    (refreshing ??= index
      .refresh()
      .then(() => {
        for (const [file, reason] of index.skippedFiles) {
          if (reported.has(file)) continue;
          reported.add(file);
          options.onSkippedFile?.(reason);
        }
      })
      .finally(() => (refreshing = undefined)));

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `tracehook ui: ${(err as Error).message}\n`);
      else res.destroy();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // Only pages opened as http://127.0.0.1:port or http://localhost:port: another site's page
    // resolving its own name to 127.0.0.1 (DNS rebinding) is refused.
    const host = req.headers.host ?? '';
    const actual = (server.address() as { port: number }).port;
    if (host !== `127.0.0.1:${actual}` && host !== `localhost:${actual}`) return send(res, 403, 'text/plain', 'forbidden host\n');
    const path = tokenPath(new URL(req.url ?? '/', 'http://localhost').pathname, token);
    // Without the token nothing is told, not even that the server is ours.
    if (path === undefined) return send(res, 404, 'text/plain', 'not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'GET only\n');
    if (path === '/' || path === '/index.html') {
      await refresh();
      return send(res, 200, 'text/html; charset=utf-8', buildLivePage(pageData('live', index.summaries(), index.spanCount)));
    }
    if (path === '/api/traces') {
      await refresh();
      return send(res, 200, 'application/json', JSON.stringify(pageData('live', index.summaries(), index.spanCount)));
    }
    if (path === '/api/search') {
      const terms = new URL(req.url ?? '/', 'http://localhost').searchParams.getAll('q');
      const queries = terms.map(parseSpanQuery).filter((q): q is SpanQuery => q !== undefined);
      if (queries.length !== terms.length) return send(res, 400, 'application/json', JSON.stringify({ error: 'a search term is empty or has no key before "="' }));
      await refresh();
      return send(res, 200, 'application/json', JSON.stringify({ traceIds: await searchIndex(index, queries) }));
    }
    const m = /^\/api\/trace\/([0-9a-f]{32})$/.exec(path);
    if (m) {
      if (!index.summary(m[1])) await refresh();
      if (!index.summary(m[1])) return send(res, 404, 'application/json', JSON.stringify({ error: `no trace ${m[1]}` }));
      const spans = (await index.loadSpans([m[1]])).get(m[1]) ?? [];
      return send(res, 200, 'application/json', JSON.stringify(pageTrace(m[1], spans, index)));
    }
    return send(res, 404, 'text/plain', 'not found\n');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as { port: number }).port;
  return {
    port: actual,
    url: `http://127.0.0.1:${actual}/${token}/`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Trace ids of `index` whose spans match every query, reading the spans a bounded chunk of traces at a time. */
async function searchIndex(index: SpanIndex, queries: readonly SpanQuery[]): Promise<string[]> {
  const ids = index.summaries().map((s) => s.traceId);
  const found: string[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const loaded = await index.loadSpans(ids.slice(i, i + 500));
    for (const [id, spans] of loaded) if (traceMatchesQueries(spans, queries)) found.push(id);
  }
  return found;
}

/** The path after `/<token>`, when `path` starts with the token (compared in constant time); else undefined. */
function tokenPath(path: string, token: string): string | undefined {
  const slash = path.indexOf('/', 1);
  const given = Buffer.from(slash === -1 ? path.slice(1) : path.slice(1, slash));
  const expected = Buffer.from(token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  // `/<token>` alone: the page's relative URLs need the trailing slash.
  return slash === -1 ? undefined : path.slice(slash);
}

function send(res: http.ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/**
 * Runs `tracehook ui` with `argv` (the arguments after `ui`) until SIGINT or SIGTERM.
 * @returns the exit code: 0 after a signal (or help), 1 for a bad argument or a port in use
 */
export async function runUi(argv: string[], io: ViewIO = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const fail = commandFail('ui', io.stderr);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: { port: { type: 'string' }, ...READ_OPTIONS, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    return fail(argumentError(err, 'ui'));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(UI_HELP);
    return 0;
  }
  const port = values.port === undefined ? DEFAULT_UI_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return fail(`--port: expected a port number 0..65535, got ${JSON.stringify(values.port)}`);
  const { paths, notes } = await spanPaths(positionals, io.env);
  for (const note of notes) io.stderr.write(`tracehook ui: ${escapeControlChars(note)}\n`);
  if (paths.length === 0) return fail('no spans found (pass a directory or file, or set TRACEHOOK_SPANS_DIR)');
  const missing = await firstMissing(paths);
  if (missing !== undefined) return fail(`${missing}: no such file or directory`);

  let server: UiServer;
  try {
    const onSkippedFile = (line: string) => io.stderr.write(`tracehook ui: skipped ${escapeControlChars(line)}\n`);
    server = await startUiServer(paths, port, { anyOwner: values['any-owner'] === true, onSkippedFile });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return fail(code === 'EADDRINUSE' ? `port ${port} on 127.0.0.1 is in use (choose another with --port)` : `cannot listen on 127.0.0.1:${port}: ${(err as Error).message}`);
  }
  io.stdout.write(`tracehook ui: ${escapeControlChars(paths.join(', '))} on ${server.url} (Ctrl-C to stop)\n`);
  if ((await findAllSpanFiles(paths)).files.length === 0) {
    io.stderr.write(
      `tracehook ui: no span files (*.jsonl) yet in ${escapeControlChars(paths.join(', '))} (nor in directories up to ${SPAN_DIR_MAX_DEPTH} levels below): the page lists traces as they are written\n`,
    );
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  return 0;
}
