// readConfig(env), the one reader of tracehook's configuration, called directly on the built dist/ with an env
// object: every variable, its default, and each bad value's one-line error (variable, value, what is accepted).
// Usage: npm run build && node --test test/unit/config.test.mjs
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';

const require = createRequire(import.meta.url);
const { readConfig, wantsEsmLoader } = require('../../dist/config/environment.js');
const { isDisabled } = require('../../dist/config/disabled.js');
const { redactUrl } = require('../../dist/config/otlp.js');
const { isConfigError } = require('../../dist/config/config-error.js');
const { DEFAULT_INSTRUMENTATIONS } = require('../../dist/config/instrumentation-defaults.js');

/** The one error of `env`, checked to name the variable, and its message. */
function oneError(env) {
  const { errors } = readConfig(env);
  assert.equal(errors.length, 1, errors.map((e) => e.message).join('\n'));
  assert.ok(isConfigError(errors[0]));
  return errors[0];
}

test('defaults: an empty environment gives the documented defaults and no errors', () => {
  const c = readConfig({});
  assert.deepEqual(c.errors, []);
  assert.equal(c.disabled, false);
  assert.equal(c.strict, false);
  assert.equal(c.startupHook, undefined);
  assert.equal(c.exporterImportPath, undefined);
  assert.equal(c.samplingRatio, undefined);
  assert.equal(c.sampler, undefined);
  assert.deepEqual(c.tracesExporters, ['file']);
  assert.equal(c.tracesExporter, 'file');
  assert.equal(c.otlpProtocol, 'http/protobuf');
  assert.equal(c.otlpEndpointSet, false);
  assert.equal(c.otlpTracesUrl, 'http://localhost:4318/v1/traces');
  assert.deepEqual(c.otlpHeaders, {});
  assert.equal(c.spansDir, '/tmp/spans');
  assert.match(c.spansFallbackDir, /spans-/);
  // OTEL_BSP_SCHEDULE_DELAY unset: each destination's default (span files 500 ms, OTLP 5000 ms, as the SDK).
  assert.deepEqual(c.spanQueue, { maxQueueBytes: 16 * 1024 * 1024, maxQueueSize: undefined, scheduledDelayMillis: undefined, maxExportBatchSize: 512, exportTimeoutMillis: 30000 });
  assert.equal(c.shutdownTimeoutMs, 400);
  assert.equal(c.startupHookTimeoutMs, 3000);
  assert.deepEqual(c.propagators, ['tracecontext', 'baggage']);
  assert.deepEqual(c.instrumentations, [...DEFAULT_INSTRUMENTATIONS]);
  assert.equal(c.httpInstrumentation, 'fast');
  assert.equal(c.esmLoader, 'auto');
  assert.equal(c.messagingSpans, true);
  assert.equal(c.serviceName, undefined);
  assert.deepEqual(c.resourceAttributes, {});
  assert.equal(c.logLevel, 'WARN');
  assert.equal(c.requestData.requestValueLengthLimit, 2048);
  assert.equal(c.requestData.incomingTrace, 'continue');
  assert.ok(c.requestData.redactQueryParams.includes('X-Amz-Signature') && c.requestData.redactQueryParams.includes('token'));
});

test('blank values count as unset', () => {
  const env = {};
  for (const name of [
    'TRACEHOOK_STARTUP_HOOK',
    'TRACEHOOK_SAMPLING_RATIO',
    'OTEL_TRACES_EXPORTER',
    'OTEL_LOG_LEVEL',
    'TRACEHOOK_SPANS_DIR',
    'OTEL_BSP_SCHEDULE_DELAY',
    'TRACEHOOK_SHUTDOWN_TIMEOUT_MS',
  ])
    env[name] = '  ';
  const c = readConfig(env);
  assert.deepEqual(c.errors, []);
  assert.equal(c.startupHook, undefined);
  assert.equal(c.spansDir, '/tmp/spans');
  assert.equal(c.logLevel, 'WARN');
});

test('booleans: true/false case-insensitive, spaces ignored; any other value names the variable and keeps the default', () => {
  for (const [name, field, defaultValue] of [
    ['TRACEHOOK_DISABLED', 'disabled', false],
    ['OTEL_SDK_DISABLED', 'disabled', false],
    ['TRACEHOOK_STRICT', 'strict', false],
    ['TRACEHOOK_MESSAGING_SPANS', 'messagingSpans', true],
  ]) {
    assert.equal(readConfig({ [name]: ' TRUE ' })[field], true, name);
    assert.equal(readConfig({ [name]: 'False' })[field], false, name);
    const err = oneError({ [name]: 'yes' });
    assert.equal(err.message, `${name}="yes" is not valid: expected \`true\` or \`false\` (case-insensitive); using ${defaultValue}`);
    assert.equal(err.disablesTracing, false);
    assert.equal(readConfig({ [name]: 'yes' })[field], defaultValue);
  }
});

test('isDisabled: the early check agrees with readConfig for every spelling', () => {
  for (const value of ['true', 'TRUE', ' True ', 'false', 'yes', '1', '', undefined]) {
    for (const name of ['TRACEHOOK_DISABLED', 'OTEL_SDK_DISABLED']) {
      assert.equal(isDisabled({ [name]: value }), readConfig({ [name]: value }).disabled, `${name}=${value}`);
    }
  }
});

test('register.mjs: its inline disable check (made before it loads anything) agrees with isDisabled', () => {
  // The preload marks its per-thread state under Symbol.for('tracehook@<version>:state') when it starts.
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const probe = `process.stdout.write(String(globalThis[Symbol.for('tracehook@${version}:state')]?.started === true))`;
  for (const value of ['true', ' TRUE ', 'yes', 'false']) {
    const env = { ...process.env, TRACEHOOK_DISABLED: value, OTEL_TRACES_EXPORTER: 'none', NODE_OPTIONS: '' };
    const r = spawnSync(process.execPath, ['--import', new URL('../../register.mjs', import.meta.url).href, '-e', probe], { env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, String(!isDisabled({ TRACEHOOK_DISABLED: value })), `TRACEHOOK_DISABLED=${JSON.stringify(value)}`);
  }
});

test('TRACEHOOK_STARTUP_HOOK, TRACEHOOK_EXPORTER_IMPORT_PATH: taken as given (trimmed), checked when loaded', () => {
  const c = readConfig({ TRACEHOOK_STARTUP_HOOK: ' ./tracing.mjs:setup ', TRACEHOOK_EXPORTER_IMPORT_PATH: 'pkg:make' });
  assert.equal(c.startupHook, './tracing.mjs:setup');
  assert.equal(c.exporterImportPath, 'pkg:make');
  assert.deepEqual(c.errors, []);
});

test('TRACEHOOK_SAMPLING_RATIO: a number in [0, 1]; anything else leaves the app untraced with one error', () => {
  assert.equal(readConfig({ TRACEHOOK_SAMPLING_RATIO: '0' }).samplingRatio, 0);
  assert.equal(readConfig({ TRACEHOOK_SAMPLING_RATIO: '0.25' }).samplingRatio, 0.25);
  for (const bad of ['1.5', '-0.1', 'half', 'NaN']) {
    const err = oneError({ TRACEHOOK_SAMPLING_RATIO: bad });
    assert.equal(err.message, `TRACEHOOK_SAMPLING_RATIO=${JSON.stringify(bad)} is not valid: expected a number in [0, 1]`);
    assert.equal(err.disablesTracing, true);
  }
});

test("OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG: the specification's names; ratio default 1.0", () => {
  assert.deepEqual(readConfig({ OTEL_TRACES_SAMPLER: 'ALWAYS_OFF' }).sampler, { name: 'always_off', ratio: 1 });
  assert.deepEqual(readConfig({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' }).sampler, { name: 'traceidratio', ratio: 0.5 });
  assert.deepEqual(readConfig({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' }).sampler, { name: 'parentbased_traceidratio', ratio: 1 });
  // The argument of a sampler that takes none is ignored, as the specification says.
  assert.deepEqual(readConfig({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: 'x' }).errors, []);
  const bad = oneError({ OTEL_TRACES_SAMPLER: 'sometimes' });
  assert.match(
    bad.message,
    /^OTEL_TRACES_SAMPLER="sometimes" is not valid: expected one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio$/,
  );
  assert.equal(bad.disablesTracing, true);
  const arg = oneError({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' });
  assert.equal(arg.message, 'OTEL_TRACES_SAMPLER_ARG="2" is not valid: expected a number in [0, 1]; using 1.0');
  assert.equal(arg.disablesTracing, false);
  assert.deepEqual(readConfig({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }).sampler, { name: 'traceidratio', ratio: 1 });
});

test('OTEL_TRACES_EXPORTER: a list; none; unknown names ignored with one error; an OTLP endpoint alone selects otlp', () => {
  assert.deepEqual(readConfig({ OTEL_TRACES_EXPORTER: 'console, OTLP,console' }).tracesExporters, ['console', 'otlp']);
  assert.deepEqual(readConfig({ OTEL_TRACES_EXPORTER: 'none' }).tracesExporters, []);
  assert.equal(readConfig({ OTEL_TRACES_EXPORTER: 'none' }).tracesExporter, 'none');
  assert.deepEqual(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).tracesExporters, ['otlp']);
  assert.deepEqual(readConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }).tracesExporters, ['otlp']);
  assert.deepEqual(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'file' }).tracesExporters, ['file']);
  assert.equal(oneError({ OTEL_TRACES_EXPORTER: 'file,bogus' }).message, 'OTEL_TRACES_EXPORTER="file,bogus" is not valid: expected a list of `otlp`, `console`, `file`, or `none`; ignoring bogus');
  assert.equal(oneError({ OTEL_TRACES_EXPORTER: 'zipkin' }).message, 'OTEL_TRACES_EXPORTER="zipkin" is not valid: expected a list of `otlp`, `console`, `file`, or `none`; using span files');
  assert.deepEqual(readConfig({ OTEL_TRACES_EXPORTER: 'zipkin' }).tracesExporters, ['file']);
});

test('OTLP: protocol, traces URL from either endpoint variable, headers merged', () => {
  assert.equal(readConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'GRPC' }).otlpProtocol, 'grpc');
  assert.equal(readConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).otlpProtocol, 'http/json');
  assert.equal(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }).otlpTracesUrl, 'http://c:4318/v1/traces');
  assert.equal(readConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:1/x' }).otlpTracesUrl, 'http://t:1/x');
  assert.deepEqual(readConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'a=1,b=x%20y', OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'b=2' }).otlpHeaders, { a: '1', b: '2' });
  const err = oneError({ OTEL_EXPORTER_OTLP_PROTOCOL: 'carrier-pigeon' });
  assert.equal(err.message, 'OTEL_EXPORTER_OTLP_PROTOCOL="carrier-pigeon" is not valid: expected one of http/protobuf, http/json, grpc; using http/protobuf');
  assert.equal(oneError({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'udp' }).variable, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL');
  assert.equal(readConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'carrier-pigeon' }).otlpProtocol, 'http/protobuf');
});

test('OTLP endpoint: what each protocol takes; anything else is an error that turns tracing off and never shows an unparseable value', () => {
  const ok = (env) =>
    assert.deepEqual(
      readConfig(env).errors.map((e) => e.message),
      [],
    );
  ok({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://user:pw@collector:4318/base?x=1' });
  ok({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://[::1]:4318/v1/traces' });
  ok({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' });
  ok({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'unix:///run/otel.sock' });
  // The value: '#' ends the authority, so the parser reads a port "S3CR3T" and rejects the URL.
  for (const [env, variable, accepted] of [
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://apikey:S3CR3T#1@collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT', 'an http:// or https:// URL for OTLP http/protobuf'],
    [
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://u:S3CR3T@exa mple', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://fine:4318' },
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
      'an http:// or https:// URL for OTLP http/protobuf',
    ],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'apikey:S3CR3T#1@collector:4317' }, 'OTEL_EXPORTER_OTLP_ENDPOINT', 'an http:// or https:// URL (or host:port) for OTLP grpc'],
  ]) {
    const err = oneError(env);
    assert.equal(err.message, `${variable} is not valid: expected ${accepted} (it is not a URL; the value is not shown, as it may hold a secret)`);
    assert.equal(err.disablesTracing, true);
  }
  // Parseable but not http(s): shown, with user, password and query values redacted. gRPC's `host:port` is a scheme to the parser.
  const wrong = oneError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://u:S3CR3T@collector/x?token=S3CR3T' });
  assert.equal(wrong.message, 'OTEL_EXPORTER_OTLP_ENDPOINT="ftp://REDACTED:REDACTED@collector/x?token=REDACTED" is not valid: expected an http:// or https:// URL for OTLP http/protobuf');
  assert.equal(oneError({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' }).value, 'collector:4317');
});

test('secrets: a bad header or resource entry names its position, never its text; URLs are shown without credentials', () => {
  for (const variable of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'OTEL_RESOURCE_ATTRIBUTES']) {
    const c = readConfig({ [variable]: 'api-key=s3cr3t,Bearer t0ken,=v' });
    assert.equal(c.errors.length, 2);
    assert.equal(c.errors[0].message, `${variable} is not valid: expected \`key=value\` entries separated by commas; ignoring that entry (entry 2 has no '=')`);
    assert.equal(c.errors[1].message, `${variable} is not valid: expected \`key=value\` entries separated by commas; ignoring that entry (entry 3 has an empty key)`);
    for (const e of c.errors) assert.doesNotMatch(e.message, /s3cr3t|t0ken/);
  }
  assert.equal(redactUrl('https://user:pa55@collector:4318/v1/traces?key=abc&x=1'), 'https://REDACTED:REDACTED@collector:4318/v1/traces?key=REDACTED&x=REDACTED');
  assert.equal(redactUrl('http://collector:4318/v1/traces'), 'http://collector:4318/v1/traces');
  assert.doesNotMatch(redactUrl('//u:p@host:1?k=v'), /u:p|k=v/);
});

test('TRACEHOOK_SPANS_DIR: a directory, no fallback for an explicit one', () => {
  const c = readConfig({ TRACEHOOK_SPANS_DIR: ' /var/spans ' });
  assert.equal(c.spansDir, '/var/spans');
  assert.equal(c.spansFallbackDir, undefined);
});

test('TRACEHOOK_SPANS_MAX_BYTES: 256 MiB by default, bytes with units; a bad value keeps the default with one error', () => {
  assert.equal(readConfig({}).spansMaxBytes, 256 * 1024 ** 2);
  assert.equal(readConfig({ TRACEHOOK_SPANS_MAX_BYTES: '64KiB' }).spansMaxBytes, 65536);
  assert.equal(readConfig({ TRACEHOOK_SPANS_MAX_BYTES: '2G' }).spansMaxBytes, 2 * 1024 ** 3);
  const err = oneError({ TRACEHOOK_SPANS_MAX_BYTES: '1TB' });
  assert.equal(err.message, 'TRACEHOOK_SPANS_MAX_BYTES="1TB" is not valid: expected bytes as a whole number, optionally with KiB, MiB or GiB; using 256MiB');
  assert.equal(err.disablesTracing, false);
});

test('span queue: bytes with units, OTEL_BSP_* whole numbers; bad values keep the default with one error each', () => {
  const q = (env) => readConfig(env).spanQueue;
  assert.equal(q({ TRACEHOOK_MAX_QUEUE_BYTES: '65536' }).maxQueueBytes, 65536);
  assert.equal(q({ TRACEHOOK_MAX_QUEUE_BYTES: '64KiB' }).maxQueueBytes, 65536);
  assert.equal(q({ TRACEHOOK_MAX_QUEUE_BYTES: '2 m' }).maxQueueBytes, 2 * 1024 ** 2);
  assert.equal(q({ TRACEHOOK_MAX_QUEUE_BYTES: '1GiB' }).maxQueueBytes, 1024 ** 3);
  assert.deepEqual(q({ OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_BSP_SCHEDULE_DELAY: '0', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10', OTEL_BSP_EXPORT_TIMEOUT: '50' }), {
    maxQueueBytes: 16 * 1024 * 1024,
    maxQueueSize: 100,
    scheduledDelayMillis: 0,
    maxExportBatchSize: 10,
    exportTimeoutMillis: 50,
  });
  assert.equal(
    oneError({ TRACEHOOK_MAX_QUEUE_BYTES: 'lots' }).message,
    'TRACEHOOK_MAX_QUEUE_BYTES="lots" is not valid: expected bytes as a whole number, optionally with KiB, MiB or GiB; using 16MiB',
  );
  assert.equal(oneError({ OTEL_BSP_MAX_QUEUE_SIZE: '0' }).message, 'OTEL_BSP_MAX_QUEUE_SIZE="0" is not valid: expected a whole number > 0; using 2048');
  assert.equal(oneError({ OTEL_BSP_SCHEDULE_DELAY: '-1' }).message, 'OTEL_BSP_SCHEDULE_DELAY="-1" is not valid: expected a whole number of ms >= 0; using 5000');
  assert.equal(oneError({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1.5' }).message, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE="1.5" is not valid: expected a whole number > 0; using 512');
  assert.equal(oneError({ OTEL_BSP_EXPORT_TIMEOUT: 'soon' }).message, 'OTEL_BSP_EXPORT_TIMEOUT="soon" is not valid: expected a whole number of ms > 0; using 30000');
  assert.equal(oneError({ OTEL_BSP_EXPORT_TIMEOUT: 'soon' }).disablesTracing, false);
});

test('time bounds: TRACEHOOK_SHUTDOWN_TIMEOUT_MS >= 0, TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS > 0', () => {
  assert.equal(readConfig({ TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '0' }).shutdownTimeoutMs, 0);
  assert.equal(readConfig({ TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS: '200' }).startupHookTimeoutMs, 200);
  assert.equal(oneError({ TRACEHOOK_SHUTDOWN_TIMEOUT_MS: '-5' }).message, 'TRACEHOOK_SHUTDOWN_TIMEOUT_MS="-5" is not valid: expected a whole number of ms >= 0; using 400');
  assert.equal(oneError({ TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS: 'soon' }).message, 'TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS="soon" is not valid: expected a whole number of ms > 0; using 3000');
  assert.equal(oneError({ TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS: '0' }).variable, 'TRACEHOOK_STARTUP_HOOK_TIMEOUT_MS');
});

test('OTEL_PROPAGATORS: a list of tracecontext, baggage, none; unknown names ignored with one error', () => {
  assert.deepEqual(readConfig({ OTEL_PROPAGATORS: 'Baggage' }).propagators, ['baggage']);
  assert.deepEqual(readConfig({ OTEL_PROPAGATORS: 'none' }).propagators, ['none']);
  const c = readConfig({ OTEL_PROPAGATORS: 'tracecontext,b3' });
  assert.deepEqual(c.propagators, ['tracecontext']);
  assert.equal(oneError({ OTEL_PROPAGATORS: 'tracecontext,b3' }).message, 'OTEL_PROPAGATORS="tracecontext,b3" is not valid: expected a list of tracecontext, baggage, none; ignoring b3');
});

test('instrumentations: enabled list replaces the default set, disabled list removes; HTTP and ESM loader choices', () => {
  assert.deepEqual(readConfig({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'HTTP, pg,pg' }).instrumentations, ['http', 'pg']);
  assert.deepEqual(readConfig({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,pg', OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg' }).instrumentations, ['http']);
  assert.ok(!readConfig({ OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'grpc' }).instrumentations.includes('grpc'));
  assert.equal(readConfig({ TRACEHOOK_HTTP_INSTRUMENTATION: 'Stock' }).httpInstrumentation, 'stock');
  assert.equal(oneError({ TRACEHOOK_HTTP_INSTRUMENTATION: 'slow' }).message, 'TRACEHOOK_HTTP_INSTRUMENTATION="slow" is not valid: expected `fast` or `stock`; using fast');
  assert.equal(readConfig({ TRACEHOOK_ESM_LOADER: 'TRUE' }).esmLoader, 'true');
  assert.equal(oneError({ TRACEHOOK_ESM_LOADER: 'maybe' }).message, 'TRACEHOOK_ESM_LOADER="maybe" is not valid: expected `auto`, `true` or `false`; using auto');
  assert.equal(wantsEsmLoader(readConfig({})), false);
  assert.equal(wantsEsmLoader(readConfig({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,express' })), true);
  assert.equal(wantsEsmLoader(readConfig({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,express', TRACEHOOK_ESM_LOADER: 'false' })), false);
  assert.equal(wantsEsmLoader(readConfig({ TRACEHOOK_ESM_LOADER: 'true' })), true);
});

test('OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES: percent-decoded pairs', () => {
  const c = readConfig({ OTEL_SERVICE_NAME: ' checkout ', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,team=a%2Cb' });
  assert.equal(c.serviceName, 'checkout');
  assert.deepEqual(c.resourceAttributes, { 'deployment.environment': 'prod', team: 'a,b' });
});

test("OTEL_LOG_LEVEL: the specification's names, case-insensitive; any other value gives WARN with one error", () => {
  assert.equal(readConfig({ OTEL_LOG_LEVEL: 'debug' }).logLevel, 'DEBUG');
  assert.equal(readConfig({ OTEL_LOG_LEVEL: 'none' }).logLevel, 'NONE');
  const err = oneError({ OTEL_LOG_LEVEL: 'loud' });
  assert.equal(err.message, 'OTEL_LOG_LEVEL="loud" is not valid: expected one of NONE, ERROR, WARN, INFO, DEBUG, VERBOSE, ALL (case-insensitive); using WARN');
  assert.equal(readConfig({ OTEL_LOG_LEVEL: 'loud' }).logLevel, 'WARN');
});

test('request data: redaction list, value length limit, incoming-trace policy', () => {
  const c = readConfig({ TRACEHOOK_REDACT_QUERY_PARAMS: 'session, sid', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '100', TRACEHOOK_INCOMING_TRACE: 'LINK' });
  assert.ok(c.requestData.redactQueryParams.includes('session') && c.requestData.redactQueryParams.includes('sid'));
  assert.equal(c.requestData.requestValueLengthLimit, 100);
  assert.equal(c.requestData.incomingTrace, 'link');
  assert.equal(readConfig({ OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '50', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '100' }).requestData.requestValueLengthLimit, 50);
  assert.equal(oneError({ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '-3' }).message, 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT="-3" is not valid: expected a whole number >= 0; request values are cut at 2048');
  assert.equal(oneError({ TRACEHOOK_INCOMING_TRACE: 'drop' }).message, 'TRACEHOOK_INCOMING_TRACE="drop" is not valid: expected `continue`, `link` or `ignore`; using continue');
  assert.equal(c.requestData.clientRootSpans, true);
  assert.equal(readConfig({ TRACEHOOK_HTTP_CLIENT_ROOT_SPANS: 'FALSE' }).requestData.clientRootSpans, false);
});

test('errors come in the order of the variables, each once', () => {
  const { errors } = readConfig({ TRACEHOOK_STRICT: 'maybe', OTEL_LOG_LEVEL: 'loud', OTEL_PROPAGATORS: 'b3' });
  assert.deepEqual(
    errors.map((e) => e.variable),
    ['TRACEHOOK_STRICT', 'OTEL_PROPAGATORS', 'OTEL_LOG_LEVEL'],
  );
});

test("every variable src/config/ reads has a row in README's configuration table", async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const root = new URL('../../', import.meta.url).pathname;
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## What is traced'));
  const dir = `${root}src/config/`;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    for (const [, name] of readFileSync(dir + file, 'utf8').matchAll(/'((?:TRACEHOOK|OTEL)_[A-Z_]+)'/g)) {
      assert.ok(table.includes(`\`${name}\``), `${name} (src/config/${file}) has no row in README's configuration table`);
    }
  }
});
