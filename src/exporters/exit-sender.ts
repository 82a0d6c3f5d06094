// Run by ExitSafeSpanExporter as `node exit-sender.js` with `{ url, headers, body }` as JSON on
// stdin: POSTs the OTLP/JSON body and exits 0 on a 2xx answer, 1 otherwise. The parent bounds its
// life; nothing here can delay the app beyond that.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const chunks: Buffer[] = [];
process.stdin.on('data', (c: Buffer) => chunks.push(c));
process.stdin.on('end', () => {
  const { url, headers, body } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { url: string; headers: Record<string, string>; body: string };
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  const req = send(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' } }, (res) => {
    res.resume();
    process.exitCode = res.statusCode !== undefined && res.statusCode < 300 ? 0 : 1;
  });
  req.on('error', () => (process.exitCode = 1));
  req.end(body);
});
