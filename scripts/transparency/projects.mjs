// The test suites scripts/transparency.mjs runs: well-known projects, checked out at a release tag
// outside this repository (see docs/transparency.md for how to install them).

/**
 * @typedef {object} Project
 * @property {string} name - the project's name
 * @property {string} [dir] - the checkout's directory under the checkouts directory; default `name`
 * @property {string} repo - GitHub owner/name
 * @property {string} tag - the release tag the results in docs/transparency.md were taken at
 * @property {string[]} install - shell commands run once in the checkout (printed when it is missing)
 * @property {'mocha' | 'node-test'} reporter - which machine-readable results the run writes
 * @property {(out: string, reporter: string, files?: string[]) => string[]} args - the runner's
 *   command line after `node`, writing its results to `out` (`reporter` is the node:test reporter
 *   module's path); with `files`, only those test files (paths relative to the checkout)
 * @property {Record<string, string>} [env] - added to the environment of every run
 * @property {string} why - what the suite exercises that matters for a preload
 */

/** @type {Project[]} */
export const projects = [
  {
    name: 'express',
    repo: 'expressjs/express',
    tag: 'v5.2.1',
    install: ['npm install --no-package-lock --ignore-scripts'],
    reporter: 'mocha',
    // The project's `npm test`, with mocha's JSON reporter instead of spec.
    args: (out, reporter, files = ['test/', 'test/acceptance/']) => [
      'node_modules/mocha/bin/mocha.js',
      '--require',
      'test/support/env',
      '--reporter',
      'json',
      '--reporter-option',
      `output=${out}`,
      '--check-leaks',
      ...files,
    ],
    why: 'HTTP servers and clients in one process (supertest), mocha --check-leaks (no new globals)',
  },
  {
    name: 'koa',
    // Under node_modules/koa: the preload patches Koa's files (ctx.onerror, for route errors) only there.
    dir: 'node_modules/koa',
    repo: 'koajs/koa',
    tag: 'v3.2.0',
    install: ['npm install --no-package-lock --ignore-scripts', 'npx gen-esm-wrapper . ./dist/koa.mjs'],
    reporter: 'node-test',
    // `node --test`: one child process per test file, each inheriting NODE_OPTIONS.
    args: (out, reporter, files = []) => ['--test', `--test-reporter=${reporter}`, `--test-reporter-destination=${out}`, ...files],
    why: 'node --test (a child process per file), async_hooks/AsyncLocalStorage, ESM entry',
  },
  {
    name: 'body-parser',
    repo: 'expressjs/body-parser',
    tag: 'v2.3.0',
    install: ['npm install --no-package-lock --ignore-scripts'],
    reporter: 'mocha',
    args: (out, reporter, files = ['test/']) => ['node_modules/mocha/bin/mocha.js', '--reporter', 'json', '--reporter-option', `output=${out}`, '--check-leaks', ...files],
    why: 'request streams, compression, error paths of HTTP servers',
  },
  {
    name: 'pino',
    repo: 'pinojs/pino',
    tag: 'v10.3.1',
    install: ['npm install --no-package-lock --ignore-scripts', 'PATH=$PWD/node_modules/.bin:$PATH node test/fixtures/ts/transpile.cjs'],
    reporter: 'node-test',
    // The project's `npm run borp` without coverage: node:test run() with a child process per file.
    args: (out, reporter, files = []) => ['node_modules/borp/borp.js', '--timeout', '60000', '-r', `${reporter}:${out}`, ...files],
    env: { CI: '1' }, // as in its CI: skips "eight million lines", longer than its own 60 s timeout here
    why: 'transports in worker threads (thread-stream), child processes, exit and signal handling, stdout',
  },
  {
    name: 'fastify',
    // Under node_modules/fastify: the preload patches Fastify's files (handleError, for route errors) only there.
    dir: 'node_modules/fastify',
    repo: 'fastify/fastify',
    tag: 'v5.12.1',
    install: ['npm install --no-package-lock --ignore-scripts'],
    reporter: 'node-test',
    // The project's `npm run unit` (borp: node:test run(), a child process per file, the files of its .borp.yaml).
    args: (out, reporter, files = []) => ['node_modules/borp/borp.js', '--timeout', '60000', '-r', `${reporter}:${out}`, ...files],
    why: 'the diagnostics channels it publishes (tracing:fastify.request.handler), hooks, HTTP/2, the AsyncResource its body parsers run in, inject()',
  },
];
