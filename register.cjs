'use strict';
// The tracehook preload for `node --require @tracehook/register app.js`, for apps that a `--import`
// would break on Node 20 (any `--import` sends the entry file through the ESM loader, so
// `-r ts-node/register app.ts` fails with ERR_UNKNOWN_FILE_EXTENSION). CommonJS modules are
// instrumented through require-in-the-middle; an async startup hook runs without being awaited.
const { shouldStart } = require('./dist/preload/entry.js');

if (shouldStart()) require('./dist/preload.bundle.js').start();
