/**
 * `tracehook ui [DIR|FILE...] [--port N]`: serves the trace page on 127.0.0.1 (never another
 * interface) with node:http, following the span files as they grow: every request for the trace
 * list reads what was appended since the previous one, and the page polls it.
 *
 * Routes: `GET /` the page; `GET /api/traces` the trace summaries ({@link PageData});
 * `GET /api/trace/<traceId>` the spans of one trace ({@link PageTrace}).
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { SpanIndex } from '../span-file/span-index';
import { buildLivePage, pageData, pageTrace } from './ui/page';
import { argumentError, spanPaths } from './view-options';
import { DEFAULT_SPANS_DIR } from '../config/spans-dir';
import type { ViewIO } from './view';

/** The port `tracehook ui` listens on unless told otherwise. */
export const DEFAULT_UI_PORT = 7476;

/** The text `tracehook ui --help` prints. */
export const UI_HELP = `Usage: tracehook ui [DIR|FILE...] [--port N]

Serves the trace page (trace list with filters, waterfall, span details) on
http://127.0.0.1:N/ (loopback only), following the span files as they grow: new traces appear
within a few seconds, or on reload.

Arguments:
  DIR|FILE      span files or directories of them; default: $TRACEHOOK_SPANS_DIR, else ${DEFAULT_SPANS_DIR}

Options:
  --port <n>    the port (default ${DEFAULT_UI_PORT}; 0 picks a free one)
  -h, --help    print this help

Stops on Ctrl-C (SIGINT) or SIGTERM. For a file to keep or send: tracehook view --html out.html
`;

/** A running page server. */
export interface UiServer {
  /** The port it listens on (127.0.0.1). */
  port: number;
  close(): Promise<void>;
}

/**
 * Starts the page server on 127.0.0.1.
 * @param port - 0 for any free port
 * @throws the listen error (EADDRINUSE…) when the port cannot be bound
 */
export async function startUiServer(paths: readonly string[], port: number): Promise<UiServer> {
  const index = new SpanIndex(paths);
  let refreshing: Promise<void> | undefined;
  // One refresh at a time; requests arriving meanwhile share it.
  const refresh = () => (refreshing ??= index.refresh().finally(() => (refreshing = undefined)));

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
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'GET only\n');
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/' || path === '/index.html') {
      await refresh();
      return send(res, 200, 'text/html; charset=utf-8', buildLivePage(pageData('live', index.summaries(), index.spanCount)));
    }
    if (path === '/api/traces') {
      await refresh();
      return send(res, 200, 'application/json', JSON.stringify(pageData('live', index.summaries(), index.spanCount)));
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
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
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
  const fail = (message: string): number => {
    io.stderr.write(`tracehook ui: ${message}\n`);
    return 1;
  };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
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
  const { paths } = spanPaths(positionals, io.env);
  for (const p of paths) if (!existsSync(p)) return fail(`${p}: no such file or directory`);

  let server: UiServer;
  try {
    server = await startUiServer(paths, port);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return fail(code === 'EADDRINUSE' ? `port ${port} on 127.0.0.1 is in use (choose another with --port)` : `cannot listen on 127.0.0.1:${port}: ${(err as Error).message}`);
  }
  io.stdout.write(`tracehook ui: ${paths.join(', ')} on http://127.0.0.1:${server.port}/ (Ctrl-C to stop)\n`);
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
