// Usage: FRONT_URL=http://127.0.0.1:<port> node --import @tracehook/register examples/client.mjs [N]
// Sends N (default 6) requests GET /order?item=... to the front, one after the other. Odd-numbered
// requests come "from an upstream system": they carry a made-up traceparent and tracestate, and go
// out on a raw TCP socket so the header reaches the front exactly as written. The others are plain
// node:http requests, which the preload traces (their CLIENT spans are the trace roots).
// Prints one line per request, with the trace it expects its spans in:
//   request 1 item=book status=200 trace=<32 hex> origin=client
//   request 2 item=pen status=200 trace=<32 hex> origin=upstream parent=<16 hex> tracestate=<...>
// trace=none means the front received no traceparent (the client ran without the preload).
import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';

const FRONT_URL = process.env.FRONT_URL;
const count = Number(process.argv[2] ?? 6);
if (!FRONT_URL || !Number.isInteger(count) || count < 1) {
  console.error('client: set FRONT_URL (base URL of front.mjs); the optional argument N is a positive integer');
  process.exit(2);
}
const ITEMS = ['book', 'pen', 'lamp', 'unicorn']; // unicorn has no price: the front answers 404
const UPSTREAM_TRACESTATE = 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7';

let failures = 0;
for (let i = 1; i <= count; i++) {
  const item = ITEMS[(i - 1) % ITEMS.length];
  const path = `/order?item=${item}`;
  try {
    if (i % 2 === 1) {
      const { status, body } = await getWithNodeHttp(path);
      const traceId = body.received?.traceparent?.split('-')[1] ?? 'none';
      console.log(`request ${i} item=${item} status=${status} trace=${traceId} origin=client`);
    } else {
      const traceId = randomBytes(16).toString('hex');
      const parent = randomBytes(8).toString('hex');
      const traceparent = `00-${traceId}-${parent}-01`;
      const { status, body } = await getFromUpstream(path, { traceparent, tracestate: UPSTREAM_TRACESTATE });
      const seen = body.received?.traceparent === traceparent ? '' : ` received=${body.received?.traceparent}`;
      console.log(`request ${i} item=${item} status=${status} trace=${traceId} origin=upstream parent=${parent} tracestate=${UPSTREAM_TRACESTATE}${seen}`);
    }
  } catch (err) {
    failures++;
    console.log(`request ${i} item=${item} failed: ${err.message}`);
  }
}
process.exitCode = failures === 0 ? 0 : 1;

function getWithNodeHttp(path) {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(path, FRONT_URL), { timeout: 5000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out after 5 s')));
    req.on('error', reject);
  });
}

// An HTTP/1.1 request written by hand: stands for a caller outside this system whose trace
// context must arrive unchanged (a traced node:http request would carry the client's own context).
function getFromUpstream(path, headers) {
  const { hostname, port } = new URL(FRONT_URL);
  const head = [`GET ${path} HTTP/1.1`, `host: ${hostname}:${port}`, 'connection: close'];
  for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
  return new Promise((resolve, reject) => {
    // write(), not end(): node:http drops a request whose sender half-closes before the answer.
    const socket = net.connect(Number(port), hostname, () => socket.write(`${head.join('\r\n')}\r\n\r\n`));
    socket.setTimeout(5000, () => socket.destroy(new Error('timed out after 5 s')));
    let raw = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (raw += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const [headText, ...rest] = raw.split('\r\n\r\n');
      const status = Number(headText.split(' ')[1]);
      try {
        resolve({ status, body: JSON.parse(rest.join('\r\n\r\n')) });
      } catch {
        reject(new Error(`unreadable response: ${JSON.stringify(raw.slice(0, 200))}`));
      }
    });
  });
}
