// The tracehook preload: `node --import @tracehook/register app.js`.
// Once per process and per worker thread: start tracing (context manager, propagators,
// instrumentations, the tracing startup hook) before the app's first line. import-in-the-middle's
// ESM loader hook is registered only for instrumentations that may target ES-module-only packages
// (TRACEHOOK_ESM_LOADER); then the preload waits until the loader knows which modules to wrap.

// The same test as isDisabled() in src/config/disabled.ts (the OpenTelemetry specification's
// boolean: `true`, case-insensitive), made before anything is loaded (even one small CommonJS file
// costs ≈ 2 ms from here): a disabled preload should cost nothing. test/unit/config.test.mjs checks
// that the two agree.
const on = (value) => value?.trim().toLowerCase() === 'true';

if (!on(process.env.TRACEHOOK_DISABLED) && !on(process.env.OTEL_SDK_DISABLED)) {
  try {
    await startPreload();
  } catch (err) {
    // A broken install must cost the app its traces, never its start.
    const notBuilt = await import('./not-built.cjs').then(
      ({ notBuiltLine }) => notBuiltLine('[tracehook] preload', 'the app runs untraced'),
      () => undefined,
    );
    process.stderr.write(notBuilt ?? `[tracehook] preload: could not start: ${err?.message ?? err}; the app runs untraced\n`);
  }
}

async function startPreload() {
  // getBuiltinModule (Node.js ≥ 20.16) spares a dynamic import() through the ES module loader.
  const { createRequire, register } = process.getBuiltinModule?.('node:module') ?? (await import('node:module'));
  const require = createRequire(import.meta.url);
  // One file: the checks below are in the bundle too (a separate entry loaded its ≈ 10 config files twice),
  // compiled from its V8 code cache when there is one.
  const preload = require('./dist/preload/load-bundle.js').loadPreloadBundle(require.resolve('./dist/preload.bundle.js'));
  if (!preload.shouldStart()) return;
  let acknowledged;
  if (preload.shouldRegisterEsmLoader()) {
    const { createAddHookMessageChannel } = await import('import-in-the-middle');
    const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
    withoutDeprecation('DEP0205', () => register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions));
    acknowledged = waitForAllMessagesAcknowledged;
  }
  await preload.start({ awaited: true });
  await acknowledged?.();
}

// Node 26 deprecates module.register() (DEP0205): the app must not see a warning it did not cause,
// and under --throw-deprecation that warning would end it. Only that code, only during our call.
function withoutDeprecation(code, fn) {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const options = rest[0];
    if ((typeof options === 'object' ? options?.code : rest[1]) === code) return;
    return Reflect.apply(emitWarning, this, [warning, ...rest]);
  };
  try {
    return fn();
  } finally {
    process.emitWarning = emitWarning;
  }
}
