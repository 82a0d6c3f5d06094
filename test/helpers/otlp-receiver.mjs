// A local OTLP/HTTP trace receiver on 127.0.0.1:0 for the tests.
// mode 'accept': stores each POST /v1/traces body and answers 200; 'hang': accepts and never answers;
// '429': answers 429 Too Many Requests (the exporter retries); 'slow': answers 200 after `delayMs`;
// 'reset-first': drops the first request unread (the exporter retries after a back-off), accepts the rest;
// 'partial': answers 200 with an OTLP partial success rejecting `rejectedSpans` spans with `errorMessage`.
import http from 'node:http';

/** A varint (protobuf wire format) of a non-negative safe integer. */
function varint(n) {
  const bytes = [];
  while (n > 127) {
    bytes.push((n % 128) | 128);
    n = Math.floor(n / 128);
  }
  bytes.push(n);
  return Buffer.from(bytes);
}

/**
 * An `ExportTraceServiceResponse` with `partial_success { rejected_spans, error_message }`, as protobuf or OTLP/JSON.
 * @param json - true: proto3 JSON (`rejectedSpans` as a decimal string, int64)
 */
export function partialSuccessResponse(rejectedSpans, errorMessage, json = false) {
  if (json) return Buffer.from(JSON.stringify({ partialSuccess: { rejectedSpans: String(rejectedSpans), errorMessage } }));
  const message = Buffer.from(errorMessage);
  const inner = Buffer.concat([Buffer.from([0x08]), varint(rejectedSpans), Buffer.from([0x12]), varint(message.length), message]);
  return Buffer.concat([Buffer.from([0x0a]), varint(inner.length), inner]);
}

export async function startReceiver(mode = 'accept', { delayMs = 3000, rejectedSpans = 1, errorMessage = '' } = {}) {
  const requests = [];
  const sockets = new Set();
  let seen = 0;
  const server = http.createServer((req, res) => {
    if (mode === 'reset-first' && seen++ === 0) return req.socket.destroy();
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      requests.push({ url: req.url, contentType: req.headers['content-type'], headers: req.headers, body: Buffer.concat(chunks) });
      const answer = () => res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end();
      if (mode === 'accept' || mode === 'reset-first') answer();
      else if (mode === '429') res.writeHead(429).end();
      else if (mode === 'partial') {
        const json = !String(req.headers['content-type']).includes('protobuf');
        res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(partialSuccessResponse(rejectedSpans, errorMessage, json));
      } else if (mode === 'slow') setTimeout(answer, delayMs);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: server.address().port,
    requests,
    /** Makes 'reset-first' drop the next request again. */
    reset: () => (seen = 0),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(r));
    },
  };
}

/** A loopback port with nothing listening: connections are refused. */
export async function refusedPort() {
  const server = http.createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}
