// The ways the bench starts a Node.js process: untraced, tracehook (span files / OTLP / disabled), OpenTelemetry's
// register preload, dd-trace. Each variant turns (app, args, backend) into node arguments and a clean environment.
// Only loopback addresses are ever configured.
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nodeBinary, startNode, stop, lineWaiter } from './proc.mjs';
import { startSink } from './otlp-sink.mjs';
import { httpGet } from './http.mjs';

const require = createRequire(import.meta.url);
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The preload under test, by file URL, so the bench works from any cwd. */
export const tracehookRegister = new URL('../../register.mjs', import.meta.url);
const emptyModule = new URL('../apps/empty.mjs', import.meta.url);
const floorPreload = fileURLToPath(new URL('./floor-preload.cjs', import.meta.url));
const otelRegister = require.resolve('@opentelemetry/auto-instrumentations-node/register');
const ddInitialize = pathToFileURL(join(require.resolve('dd-trace/package.json'), '..', 'initialize.mjs')).href;

/** The environment every child starts from: the bench's own, minus anything that configures a tracer. */
export function cleanEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(OTEL_|DD_|TRACEHOOK_|TRACEPARENT$|TRACESTATE$|NODE_OPTIONS$|NODE_DEBUG$)/.test(k)) continue;
    env[k] = v;
  }
  return env;
}

const otlpEnv = (port) => ({
  OTEL_SERVICE_NAME: 'bench',
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
});

/**
 * name → { label, backend: 'otlp' | 'dd' | null, tracehook, floor, args(app, appArgs), env({ port, spansDir }) }.
 * `backend` says which local receiver the variant needs a port of.
 */
export const VARIANTS = {
  untraced: {
    label: 'untraced',
    backend: null,
    args: (app, appArgs) => [app, ...appArgs],
    env: () => ({}),
  },
  'tracehook-files': {
    label: 'tracehook span files',
    backend: null,
    tracehook: true,
    args: (app, appArgs) => ['--import', tracehookRegister.href, app, ...appArgs],
    env: ({ spansDir }) => ({ OTEL_SERVICE_NAME: 'bench', TRACEHOOK_SPANS_DIR: spansDir }),
  },
  'tracehook-otlp': {
    label: 'tracehook OTLP/http',
    backend: 'otlp',
    tracehook: true,
    args: (app, appArgs) => ['--import', tracehookRegister.href, app, ...appArgs],
    env: ({ port }) => otlpEnv(port),
  },
  'tracehook-disabled': {
    label: 'tracehook disabled',
    backend: null,
    tracehook: true,
    args: (app, appArgs) => ['--import', tracehookRegister.href, app, ...appArgs],
    env: ({ spansDir }) => ({ TRACEHOOK_DISABLED: 'true', TRACEHOOK_SPANS_DIR: spansDir }),
  },
  // TRACEHOOK_MESSAGING_SPANS=false: only the context crosses a message or task (issue 30's ≥ ×0.90 goal).
  'tracehook-nomsg': {
    label: 'tracehook span files, no messaging spans',
    backend: null,
    tracehook: true,
    args: (app, appArgs) => ['--import', tracehookRegister.href, app, ...appArgs],
    env: ({ spansDir }) => ({ OTEL_SERVICE_NAME: 'bench', TRACEHOOK_SPANS_DIR: spansDir, TRACEHOOK_MESSAGING_SPANS: 'false' }),
  },
  // Spans made, none exported (OTEL_TRACES_EXPORTER=none): span files minus this is what export costs.
  'tracehook-noexport': {
    label: 'tracehook, no exporter',
    backend: null,
    tracehook: true,
    args: (app, appArgs) => ['--import', tracehookRegister.href, app, ...appArgs],
    env: () => ({ OTEL_SERVICE_NAME: 'bench', OTEL_TRACES_EXPORTER: 'none' }),
  },
  // Issue 30 scope 1's prototype (lib/ring-processor.mjs): spans copied into a shared-memory ring, encoded and
  // written by one exporter thread. Not in the default rows: bench/exporter-ring.mjs and RESULTS.md give its reading.
  'tracehook-ring': {
    label: 'tracehook, exporter thread (ring prototype)',
    backend: null,
    tracehook: true,
    args: (app, appArgs) => ['--import', tracehookRegister.href, app, ...appArgs],
    env: ({ spansDir }) => ({
      OTEL_SERVICE_NAME: 'bench',
      OTEL_TRACES_EXPORTER: 'none',
      TRACEHOOK_SPANS_DIR: spansDir,
      TRACEHOOK_EXPORTER_IMPORT_PATH: `${fileURLToPath(new URL('./ring-processor.mjs', import.meta.url))}:spanProcessors`,
    }),
  },
  // The floor prototype (lib/floor-preload.cjs) at its three levels: what the least a tracer can do costs.
  ...Object.fromEntries(
    ['context', 'records', 'export'].map((level) => [
      `floor-${level}`,
      {
        label: `floor: ${level}`,
        backend: null,
        floor: level,
        args: (app, appArgs) => ['--require', floorPreload, app, ...appArgs],
        env: ({ spansDir }) => ({ BENCH_FLOOR: level, BENCH_FLOOR_DIR: spansDir }),
      },
    ]),
  ),
  // The floor under `tracehook-disabled`: what `--import` of an empty module costs (startup only).
  'import-floor': {
    label: 'an empty --import',
    backend: null,
    args: (app, appArgs) => ['--import', emptyModule.href, app, ...appArgs],
    env: () => ({}),
  },
  otel: {
    label: 'OpenTelemetry register (http)',
    backend: 'otlp',
    args: (app, appArgs) => ['--require', otelRegister, app, ...appArgs],
    env: ({ port }) => ({
      ...otlpEnv(port),
      OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http',
      // Traces only, like tracehook; and no cloud resource detectors, which would query non-loopback metadata servers.
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_NODE_RESOURCE_DETECTORS: 'env,host,os,process,serviceinstance',
    }),
  },
  'dd-trace': {
    label: 'dd-trace',
    backend: 'dd',
    args: (app, appArgs) => ['--import', ddInitialize, app, ...appArgs],
    env: ({ port }) => ({
      DD_SERVICE: 'bench',
      DD_TRACE_AGENT_URL: `http://127.0.0.1:${port}`,
      DD_AGENT_HOST: '127.0.0.1',
      DD_TRACE_AGENT_PORT: String(port),
      DD_DOGSTATSD_HOST: '127.0.0.1',
      DD_TRACE_STARTUP_LOGS: 'false',
      DD_INSTRUMENTATION_TELEMETRY_ENABLED: 'false',
      DD_REMOTE_CONFIGURATION_ENABLED: 'false',
      DD_RUNTIME_METRICS_ENABLED: 'false',
      DD_PROFILING_ENABLED: 'false',
    }),
  },
};

export const ALL = Object.keys(VARIANTS);

/**
 * Per-scenario workspace: temp span directories (removed by `cleanup()`), and a check of which variants can run here.
 */
export function workspace() {
  const root = mkdtempSync(join(tmpdir(), 'tracehook-bench-'));
  let n = 0;
  return {
    spansDir: () => mkdtempSync(join(root, `spans-${++n}-`)),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Builds `{ args, env }` for starting `app` under variant `name`. */
export function command(name, app, { appArgs = [], port, spansDir, extraEnv = {} } = {}) {
  const v = VARIANTS[name];
  if (!v) throw new TypeError(`unknown variant ${JSON.stringify(name)}; known: ${ALL.join(', ')}`);
  if (v.backend && !port) throw new TypeError(`variant ${name} needs a ${v.backend} receiver port`);
  return { args: v.args(app, appArgs), env: { ...cleanEnv(), ...v.env({ port, spansDir }), ...extraEnv } };
}

export const helloApp = fileURLToPath(new URL('../apps/hello.cjs', import.meta.url));

const availability = new Map();

/**
 * Whether a variant can run on this checkout: starts the hello server under it and waits for a 200 (≤ 20 s).
 * Resolves to null when it works, or to a one-line reason. Cached per process and Node.js binary.
 */
export function unavailable(name) {
  const key = `${nodeBinary()}\u0000${name}`;
  if (!availability.has(key)) availability.set(key, probe(name));
  return availability.get(key);
}

async function probe(name) {
  const v = VARIANTS[name];
  if (v.tracehook && !existsSync(tracehookRegister)) return `${fileURLToPath(tracehookRegister)} not found`;
  if (v.floor && !existsSync(floorPreload)) return `${floorPreload} not found`;
  const sink = v.backend ? await startSink('accept', { any: v.backend === 'dd' }) : null;
  const ws = workspace();
  const lines = lineWaiter();
  let child;
  try {
    const { args, env } = command(name, helloApp, { port: sink?.port, spansDir: ws.spansDir() });
    child = startNode(args, { env, cwd: repoRoot, onLine: lines.onLine });
    const { match } = await lines.wait(child, /^PORT=(\d+)/, 20_000);
    const { status } = await httpGet(Number(match[1]), '/', 5000);
    if (status !== 200) return `hello server answered ${status}`;
    return null;
  } catch (err) {
    return String(err.message).split('\n').filter(Boolean).slice(0, 3).join(' | ').slice(0, 300);
  } finally {
    await stop(child);
    await sink?.close();
    ws.cleanup();
  }
}

/** Filters `names` to those available, logging the others once with the reason. Returns [available, naRows]. */
export async function partition(names, log = console.error) {
  const ok = [];
  const na = {};
  for (const name of names) {
    const why = await unavailable(name);
    if (why) {
      na[name] = why;
      log(`  ${name}: n/a (${why})`);
    } else ok.push(name);
  }
  return { ok, na };
}

/** The scenario's variants, narrowed by a --variants list if one was given; untraced is always kept (the baseline). */
export function pick(names, wanted) {
  if (!wanted) return names;
  return names.filter((n) => n === 'untraced' || wanted.includes(n));
}

/** The floor level a traced variant's row is held against: the same work, done the least costly way. */
export function floorOf(name, { spans = true } = {}) {
  if (!VARIANTS[name]?.tracehook || name === 'tracehook-disabled') return undefined;
  if (name === 'tracehook-nomsg' || !spans) return 'floor-context';
  return name === 'tracehook-noexport' ? 'floor-records' : 'floor-export';
}
