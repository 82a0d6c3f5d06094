// A local trace receiver on 127.0.0.1 for the bench, in one of three modes:
//   accept  - POST /v1/traces answers 200 with an empty body (a valid empty OTLP/HTTP response in protobuf and JSON);
//             with `any: true` every other method/path answers 200 `{}` too (what a Datadog agent stand-in needs);
//   refuse  - a port nothing listens on: connections are refused;
//   hang    - accepts the TCP connection, reads and discards, never answers.
//
// Load scenarios run it in its own process (`startSinkProcess`) so that draining spans does not steal event-loop
// time from autocannon in the bench process. Usage as a process: node bench/lib/otlp-sink.mjs <mode> [--any]
import http from 'node:http';
import net from 'node:net';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** Starts a receiver in this process. Returns { mode, port, url, stats(), close() }. */
export async function startSink(mode = 'accept', { any = false } = {}) {
  const stats = { requests: 0, traceRequests: 0, bytes: 0, connections: 0 };
  if (mode === 'refuse') {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address();
    await new Promise((r) => probe.close(r));
    return { mode, port, url: `http://127.0.0.1:${port}`, stats: () => ({ ...stats }), close: async () => {} };
  }
  const sockets = new Set();
  let server;
  if (mode === 'hang') {
    server = net.createServer((sock) => {
      stats.connections++;
      sockets.add(sock);
      sock.on('data', (d) => {
        stats.bytes += d.length;
      });
      sock.on('error', () => {});
      sock.on('close', () => sockets.delete(sock));
    });
  } else if (mode === 'accept') {
    server = http.createServer((req, res) => {
      stats.requests++;
      req.on('data', (d) => {
        stats.bytes += d.length;
      });
      req.on('end', () => {
        if (req.method === 'POST' && req.url.split('?')[0] === '/v1/traces') {
          stats.traceRequests++;
          res.writeHead(200, { 'content-length': 0 });
          res.end();
        } else if (any) {
          if (/\/v0\.\d\/traces/.test(req.url)) stats.traceRequests++;
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
          res.end('{}');
        } else {
          res.writeHead(404, { 'content-length': 0 });
          res.end();
        }
      });
    });
    server.keepAliveTimeout = 30_000;
    server.on('connection', (sock) => {
      stats.connections++;
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
    });
  } else {
    throw new TypeError(`otlp-sink: mode must be accept, refuse or hang; got ${JSON.stringify(mode)}`);
  }
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  return {
    mode,
    port,
    url: `http://127.0.0.1:${port}`,
    stats: () => ({ ...stats }),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const self = fileURLToPath(import.meta.url);

/** Starts a receiver in a child process. Same shape as startSink, with async stats(). */
export async function startSinkProcess(mode = 'accept', { any = false } = {}) {
  const child = fork(self, [mode, ...(any ? ['--any'] : [])], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { PATH: process.env.PATH },
    execArgv: [],
  });
  const [msg] = await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error('otlp-sink process exited before listening');
    }),
  ]);
  let seq = 0;
  const pending = new Map();
  child.on('message', (m) => {
    if (m && m.type === 'stats') {
      pending.get(m.id)?.(m.stats);
      pending.delete(m.id);
    }
  });
  return {
    mode,
    port: msg.port,
    url: `http://127.0.0.1:${msg.port}`,
    stats: () =>
      new Promise((resolve) => {
        const id = ++seq;
        pending.set(id, resolve);
        child.send({ type: 'stats', id });
        setTimeout(() => {
          pending.delete(id);
          resolve(null);
        }, 2000);
      }),
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = once(child, 'exit');
      child.kill('SIGKILL');
      await gone;
    },
  };
}

if (process.argv[1] === self) {
  const mode = process.argv[2] ?? 'accept';
  const sink = await startSink(mode, { any: process.argv.includes('--any') });
  if (process.send) {
    process.send({ type: 'listening', port: sink.port });
    process.on('message', (m) => {
      if (m && m.type === 'stats') process.send({ type: 'stats', id: m.id, stats: sink.stats() });
    });
    process.on('disconnect', () => process.exit(0)); // the bench is gone: do not outlive it
  } else {
    console.log(`otlp-sink ${mode} on ${sink.url}`);
  }
}
