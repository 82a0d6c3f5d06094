// Usage: PRICING_ADDR=127.0.0.1:<port> STOCK_URL=http://127.0.0.1:<port> PORT=0 \
//          node --import @tracehook/register examples/front.mjs
// The front of the demo: GET /order?item=<name> asks the pricing service (gRPC, PRICING_ADDR) and
// the stock service (HTTP, STOCK_URL) at the same time, then answers JSON. Listens on
// 127.0.0.1:$PORT (0 = any free port) and prints "front listening on 127.0.0.1:<port>" once it serves.
import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { loadPricingPackage } from './support/pricing-proto.mjs';

const { PRICING_ADDR, STOCK_URL } = process.env;
if (!PRICING_ADDR || !STOCK_URL) {
  console.error('front: set PRICING_ADDR (host:port of grpc-service.mjs) and STOCK_URL (base URL of downstream.mjs)');
  process.exit(2);
}

const { Pricing } = loadPricingPackage();
const pricing = new Pricing(PRICING_ADDR, grpc.credentials.createInsecure());

function getQuote(item) {
  return new Promise((resolve, reject) => {
    pricing.getQuote({ item, quantity: 1 }, { deadline: Date.now() + 5000 }, (err, reply) => (err ? reject(err) : resolve(reply)));
  });
}

// node:http rather than fetch(): a plain, dependency-free client, like many services use.
function getStock(item) {
  const url = new URL('/stock', STOCK_URL);
  url.searchParams.set('item', item);
  return new Promise((resolve, reject) => {
    http
      .get(url, { timeout: 5000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(`stock: HTTP ${res.statusCode}`))));
      })
      .on('timeout', function onTimeout() {
        this.destroy(new Error('stock: timed out'));
      })
      .on('error', reject);
  });
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method !== 'GET' || url.pathname !== '/order') {
    return send(res, 404, { error: `no route ${req.method} ${url.pathname}` });
  }
  const item = url.searchParams.get('item') ?? '';
  // Echoed so the client can tell which trace its request joined (no tracing API needed).
  const received = { traceparent: req.headers.traceparent ?? null, tracestate: req.headers.tracestate ?? null };
  try {
    const [quote, stock] = await Promise.all([getQuote(item), getStock(item)]);
    send(res, 200, { item, unitPrice: quote.unitPrice, currency: quote.currency, inStock: stock.inStock, received });
  } catch (err) {
    const notFound = err.code === grpc.status.NOT_FOUND;
    send(res, notFound ? 404 : 502, { error: err.details ?? err.message, received });
  }
});

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`front listening on 127.0.0.1:${server.address().port}`);
});
