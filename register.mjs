// The tracehook preload: `node --import @tracehook/register app.js`.
// Once per process and per worker thread: register the import-in-the-middle loader hook, start
// tracing (context manager, propagators, instrumentations, the tracing startup hook), and wait until
// the loader knows which modules to wrap, so the app's first import is already instrumented.
import { createRequire, register } from 'node:module';

const require = createRequire(import.meta.url);
const { shouldStart } = require('./dist/preload/entry.js');

if (shouldStart()) {
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  await require('./dist/preload/start.js').start();
  await waitForAllMessagesAcknowledged();
}
