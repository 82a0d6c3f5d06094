'use strict';
// The tracehook preload for `node --require @tracehook/register app.js`, for apps that a `--import`
// would break on Node 20 (any `--import` sends the entry file through the ESM loader, so
// `-r ts-node/register app.ts` fails with ERR_UNKNOWN_FILE_EXTENSION). CommonJS modules are
// instrumented through require-in-the-middle; an async startup hook runs without being awaited.
// The disable switches are read before anything is loaded (as in register.mjs): a disabled preload costs
// one look at two variables.
const on = (value) => typeof value === 'string' && value.trim().toLowerCase() === 'true';
try {
  if (!on(process.env.TRACEHOOK_DISABLED) && !on(process.env.OTEL_SDK_DISABLED)) {
    const preload = require('./dist/preload/load-bundle.js').loadPreloadBundle(require.resolve('./dist/preload.bundle.js'));
    if (preload.shouldStart()) preload.start();
  }
} catch (err) {
  // A broken install must cost the app its traces, never its start.
  let notBuilt;
  try {
    notBuilt = require('./not-built.cjs').notBuiltLine('[tracehook] preload', 'the app runs untraced');
  } catch {
    // The general line below says it instead.
  }
  process.stderr.write(notBuilt ?? `[tracehook] preload: could not start: ${err && err.message}; the app runs untraced\n`);
}
