// The app's own SIGTERM handler calls process.exit(): the spans ended before it still reach an OTLP
// backend (queued ones and the batch still in flight, its first request lost and its retry waiting),
// over HTTP and gRPC, and
// the handler's exit code is kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startGrpcReceiver } from './helpers/otlp-grpc-receiver.mjs';
import { startReceiver } from './helpers/otlp-receiver.mjs';
import { start } from './helpers/fixture.mjs';

const EXPECTED = [...Array.from({ length: 20 }, (_, i) => `work-${i}`), 'handler-SIGTERM'];

async function receiverFor(t, protocol, mode) {
  const receiver = protocol === 'grpc' ? await startGrpcReceiver() : await startReceiver(mode, { delayMs: 20000 });
  t.after(() => receiver.close());
  return receiver;
}

for (const protocol of ['http/protobuf', 'http/json', 'grpc']) {
  for (const mode of protocol === 'grpc' ? ['accept'] : ['accept', 'reset-first']) {
    const what = mode === 'reset-first' ? 'the batch in flight (waiting to retry)' : 'the queued spans';
    test(`OTLP ${protocol}: the app's SIGTERM handler calls process.exit(7): ${what} reach the backend`, async (t) => {
      const receiver = await receiverFor(t, protocol, mode);
      const env = {
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
        FIXTURE_OWN_HANDLER: '7',
        // A bound wide enough for the exit sender (a node process) to start on a loaded machine.
        TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '5000',
        // The first batch is exported before the signal; its request is dropped and its retry waits.
        ...(mode === 'reset-first' ? { OTEL_BSP_SCHEDULE_DELAY: '50' } : {}),
      };
      for (const preload of [
        ['--import', '@tracehook/register'],
        ['--require', '@tracehook/register'],
      ]) {
        receiver.requests.length = 0;
        receiver.reset?.();
        const app = start('exit-app.mjs', { preload, args: ['wait', '20'], env });
        await app.ready(/ready/);
        if (mode === 'reset-first') await new Promise((r) => setTimeout(r, 300));
        app.kill('SIGTERM');
        const { code, signal } = await app.done;
        assert.deepEqual({ code, signal }, { code: 7, signal: null }, preload[0]);
        // Span names are JSON strings ("work-1") or length-prefixed protobuf strings (\x06work-1).
        const payload = Buffer.concat(receiver.requests.map((r) => r.body)).toString('latin1');
        const missing = EXPECTED.filter((name) => !payload.includes(`"${name}"`) && !payload.includes(String.fromCharCode(name.length) + name));
        assert.deepEqual(missing, [], preload[0]);
      }
    });
  }
}
