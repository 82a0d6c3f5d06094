// Run by ExitSafeSpanExporter as `node exit-sender.js` with `{ protocol, url, headers, body }` as JSON
// on stdin: `http` POSTs the OTLP/JSON body, `grpc` makes the OTLP/gRPC Export call with the
// base64 protobuf body. Exits 0 when the backend accepted it, 1 otherwise; the accepted answer (the
// HTTP body, or the gRPC response's protobuf bytes) is written to stdout: an OTLP partial success in
// it names spans the backend rejected.
// The parent bounds its life; nothing here can delay the app beyond that.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';

interface Job {
  protocol: 'http' | 'grpc';
  url: string;
  headers: Record<string, string>;
  body: string;
}

const chunks: Buffer[] = [];
process.stdin.on('data', (c: Buffer) => chunks.push(c));
process.stdin.on('end', () => {
  const job = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Job;
  if (job.protocol === 'grpc') sendGrpc(job);
  else sendHttp(job);
});

function sendHttp({ url, headers, body }: Job): void {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  const req = send(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' } }, (res) => {
    const ok = res.statusCode !== undefined && res.statusCode < 300;
    process.exitCode = ok ? 0 : 1;
    if (ok) res.pipe(process.stdout);
    else res.resume();
  });
  req.on('error', () => (process.exitCode = 1));
  req.end(body);
}

/** The OTLP/gRPC TraceService Export method, called with the serialized request as is. */
const EXPORT_METHOD = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

function sendGrpc({ url, headers, body }: Job): void {
  // @grpc/grpc-js is a dependency of the OTLP/gRPC exporter: resolve it from there.
  const fromExporter = createRequire(require.resolve('@opentelemetry/otlp-grpc-exporter-base', { paths: [require.resolve('@opentelemetry/exporter-trace-otlp-grpc')] }));
  const grpc = fromExporter('@grpc/grpc-js') as typeof import('@grpc/grpc-js');
  const endpoint = new URL(/^[a-z]+:\/\//i.test(url) ? url : `http://${url}`);
  const credentials = endpoint.protocol === 'https:' ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
  const client = new grpc.Client(endpoint.host, credentials);
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
  const same = (b: Buffer) => b;
  client.makeUnaryRequest(EXPORT_METHOD, same, same, Buffer.from(body, 'base64'), metadata, (err, answer?: Buffer) => {
    process.exitCode = err ? 1 : 0;
    if (!err && answer) process.stdout.write(answer);
    client.close();
  });
}
