// Usage: npm run demo   (builds, then runs: node examples/demo.mjs [N requests, default 6])
// Starts the three example services, each as `node --import @tracehook/register examples/<x>.mjs`
// writing span files to a fresh directory, runs the client (also traced) against the front, stops
// the services with SIGTERM, then prints every trace read back from the span files as a tree and
// checks that one trace crosses all three services with correct parent links, writes the trace
// page (<span dir>/traces.html) and prints how to open it. Exit status 0 when every check passes,
// 1 otherwise; ends within ~25 s whatever hangs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { killAll, startExample, stopExample, waitForPort } from './support/processes.mjs';
import { checkCrossProcessTrace, checkUpstreamContinued, parseClientLines } from './support/trace-checks.mjs';

const WATCHDOG_MS = 25_000;
const requests = process.argv[2] ?? '6';

const watchdog = setTimeout(() => {
  console.error(`demo: still running after ${WATCHDOG_MS / 1000} s; killing the services and giving up`);
  killAll();
  process.exit(1);
}, WATCHDOG_MS);

let spanFile;
try {
  spanFile = {
    ...(await import('../dist/span-file/decode.js')),
    ...(await import('../dist/span-file/tree.js')),
    ...(await import('../dist/cli/view.js')),
  };
} catch (err) {
  console.error(`demo: cannot load dist/span-file (${err.message}); run \`npm run build\` first, or use \`npm run demo\``);
  process.exit(1);
}

const spansDir = mkdtempSync(join(tmpdir(), 'tracehook-demo-'));
const envFor = (service, extra) => ({ TRACEHOOK_SPANS_DIR: spansDir, OTEL_SERVICE_NAME: service, ...extra });
let ok = false;
try {
  ok = await runDemo();
} catch (err) {
  console.error(`demo: ${err.message}`);
} finally {
  killAll();
  clearTimeout(watchdog);
}
process.exitCode = ok ? 0 : 1;

async function runDemo() {
  console.log(`span files: ${spansDir}`);
  const grpcService = startExample('grpc-service', { env: envFor('grpc-service', { PORT: '0' }) });
  const downstream = startExample('downstream', { env: envFor('downstream', { PORT: '0' }) });
  const [grpcPort, stockPort] = await Promise.all([waitForPort(grpcService), waitForPort(downstream)]);
  const front = startExample('front', {
    env: envFor('front', { PORT: '0', PRICING_ADDR: `127.0.0.1:${grpcPort}`, STOCK_URL: `http://127.0.0.1:${stockPort}` }),
  });
  const frontPort = await waitForPort(front);
  console.log(`services: front :${frontPort} → grpc-service :${grpcPort} (gRPC), downstream :${stockPort} (HTTP)`);

  console.log(`client: ${requests} requests to the front`);
  const client = startExample('client', { env: envFor('client', { FRONT_URL: `http://127.0.0.1:${frontPort}` }), args: [requests], echoStdout: true });
  const clientExit = await client.exited;

  const services = [front, grpcService, downstream];
  const stops = await Promise.all(services.map((s) => stopExample(s, 'SIGTERM')));
  console.log(`stopped with SIGTERM: ${services.map((s, i) => `${s.name} (${describeExit(stops[i])})`).join(', ')}`);

  const read = await spanFile.readSpans([spansDir]);
  const traces = spanFile.buildTraces(read.spans);
  const skipped = read.skipped.length ? `, ${read.skipped.length} unreadable lines skipped` : '';
  console.log(`\n${traces.length} traces, ${read.spans.length} spans from ${read.files.length} span files${skipped}\n`);
  if (traces.length) console.log(spanFile.renderTraces(traces));

  const checks = [
    clientExit.code === 0 ? { ok: true, line: 'OK: every client request was answered' } : { ok: false, line: `FAIL: the client exited with ${describeExit(clientExit)}` },
    checkCrossProcessTrace(traces),
    checkUpstreamContinued(
      traces,
      parseClientLines(client.lines).filter((r) => r.origin === 'upstream'),
    ),
  ];
  for (const check of checks) console.log(`check ${check.line}`);
  const page = join(spansDir, 'traces.html');
  const quiet = { write: (_text, done) => done?.() };
  const wrote = (await spanFile.runView([spansDir, '--html', page], { stdout: quiet, stderr: process.stderr, env: {} })) === 0;
  console.log(`\nsee them again: npx tracehook view ${spansDir}`);
  console.log(`in the browser: npx tracehook ui ${spansDir}   (then open the http://127.0.0.1:7476/<token>/ address it prints)`);
  if (wrote) console.log(`or open the file: ${pathToFileURL(page).href}`);
  return checks.every((c) => c.ok) && wrote;
}

function describeExit({ code, signal, killed }) {
  if (killed) return 'did not exit within 5 s, killed';
  return signal ? `signal ${signal}` : `code ${code}`;
}
