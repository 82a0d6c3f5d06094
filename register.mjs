// The tracehook preload: `node --import @tracehook/register app.js`.
// Once per process and per worker thread: start tracing (context manager, propagators,
// instrumentations, the tracing startup hook) before the app's first line. import-in-the-middle's
// ESM loader hook is registered only for instrumentations that may target ES-module-only packages
// (TRACEHOOK_ESM_LOADER); then the preload waits until the loader knows which modules to wrap.
import { createRequire, register } from 'node:module';

// The same test as isDisabled() in src/config/environment.ts, made here first: loading even that
// small CommonJS module costs ≈ 7 ms, and a disabled preload should cost nothing.
const on = (value) => value !== undefined && ['true', '1'].includes(value.trim().toLowerCase());
const disabled = on(process.env.TRACEHOOK_DISABLED) || on(process.env.OTEL_SDK_DISABLED);

const require = createRequire(import.meta.url);
try {
  if (!disabled && require('./dist/preload/entry.js').shouldStart()) {
    const { shouldRegisterEsmLoader } = require('./dist/preload/entry.js');
    let acknowledged;
    if (shouldRegisterEsmLoader()) {
      const { createAddHookMessageChannel } = await import('import-in-the-middle');
      const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
      register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
      acknowledged = waitForAllMessagesAcknowledged;
    }
    await require('./dist/preload.bundle.js').start();
    await acknowledged?.();
  }
} catch (err) {
  // A broken install must cost the app its traces, never its start.
  process.stderr.write(`[tracehook] preload: could not start: ${err?.message ?? err}; the app runs untraced\n`);
}
