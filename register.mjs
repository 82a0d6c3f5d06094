// The tracehook preload: `node --import @tracehook/register app.js`.
// Once per process and per worker thread: start tracing (context manager, propagators,
// instrumentations, the tracing startup hook) before the app's first line. import-in-the-middle's
// ESM loader hook is registered only for instrumentations that may target ES-module-only packages
// (TRACEHOOK_ESM_LOADER); then the preload waits until the loader knows which modules to wrap.
import { createRequire, register } from 'node:module';

const require = createRequire(import.meta.url);
const { shouldStart, shouldRegisterEsmLoader } = require('./dist/preload/entry.js');

if (shouldStart()) {
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
