// Usage: PORT=0 node --import @tracehook/register examples/downstream.mjs
// The stock service of the demo: GET /stock?item=<name> answers {"item","inStock"} as JSON, on
// 127.0.0.1:$PORT (0 = any free port). Prints "downstream listening on 127.0.0.1:<port>" once it serves.
import http from 'node:http';

const STOCK = { book: 12, pen: 250, lamp: 0 };

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method !== 'GET' || url.pathname !== '/stock') {
    return send(res, 404, { error: `no route ${req.method} ${url.pathname}` });
  }
  const item = url.searchParams.get('item') ?? '';
  // A little work, so the span has a visible duration.
  setTimeout(() => send(res, 200, { item, inStock: STOCK[item] ?? 0 }), 2);
});

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`downstream listening on 127.0.0.1:${server.address().port}`);
});
