// What Node.js prints for an app's error keeps the app's frames: tracehook's patches add at most their own one frame
// per patch site the error passes (issue 29, item 14d: the SERVER span's context used to add four, AsyncLocalStorage's
// and OpenTelemetry's `with`; module loading five per require level). Each case is run untraced and traced, and the
// traced stack must be the untraced one plus exactly the frames docs/transparency.md ("Error stacks") lists.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, run, spansDir } from './helpers/fixture.mjs';

const OURS = join(ROOT, 'dist');

test('an unhandled rejection in a request listener: the stack printed untraced, plus the one frame of the patched Server#emit', async (t) => {
  const env = { TRACEHOOK_SPANS_DIR: spansDir(t) };
  const [plain, traced] = await Promise.all([run('unhandled-rejection-server.cjs', { preload: [] }), run('unhandled-rejection-server.cjs', { env })]);
  assert.equal(plain.code, 1);
  assert.match(plain.stderr, /Error: boom\n {4}at /);
  assert.equal(traced.code, plain.code);
  const lines = traced.stderr.split('\n');
  const ours = lines.filter((l) => l.includes(OURS));
  assert.deepEqual(
    ours.map((l) => l.replace(/ \(.*/, '')),
    ['    at Server.emit'],
    traced.stderr,
  );
  assert.equal(lines.filter((l) => !l.includes(OURS)).join('\n'), plain.stderr);
});

/** The `    at …` lines of a printed stack. */
const frames = (stderr) => stderr.split('\n').filter((l) => l.startsWith('    at '));

/**
 * Asserts that `traced`'s stack is `plain`'s with exactly `expected` (frame names, in order) of tracehook's frames
 * inserted: the others are the untraced ones, in order, less those the inserted frames pushed past the stack limit.
 */
function assertStackPlus(plain, traced, expected) {
  const t = frames(traced.stderr);
  const p = frames(plain.stderr);
  assert.ok(p.length > 0, plain.stderr);
  const ours = t.filter((l) => l.includes(OURS));
  assert.deepEqual(
    ours.map((l) => l.trim().replace(/ \(.*/, '')),
    expected,
    traced.stderr,
  );
  assert.deepEqual(
    t.filter((l) => !l.includes(OURS)),
    p.slice(0, t.length - ours.length),
    traced.stderr,
  );
}

// Untraced, but with an `--import` as the preload has: Node.js prints the caret under the thrown line's first column
// (not under `new Error`) for a CommonJS entry loaded without one, whatever the imported module is.
const UNTRACED = ['--import', 'data:text/javascript,'];
const TRACED = ['--import', '@tracehook/register'];
const LOAD = 'at Module.load';
const REQUIRE = 'at Module.require';

/**
 * Runs `fixture` untraced and traced (with `flags` before the preload, e.g. a stack limit), asserts both exit with
 * the same code, and returns `[plain, traced]`.
 */
async function runBoth(t, fixture, flags = []) {
  const env = { TRACEHOOK_SPANS_DIR: spansDir(t) };
  const [plain, traced] = await Promise.all([run(fixture, { preload: [...flags, ...UNTRACED] }), run(fixture, { preload: [...flags, ...TRACED], env })]);
  assert.equal(traced.code, plain.code, traced.stderr);
  return [plain, traced];
}

const ALL_FRAMES = ['--stack-trace-limit=50'];

for (const [fixture, levels] of [
  ['one.cjs', 1],
  ['two.cjs', 2],
  ['three.cjs', 3],
]) {
  test(`a throw at the top level of a module ${levels} require level(s) down: one Module#load frame per module loading and one Module#require frame per require() in flight`, async (t) => {
    const file = join('require-chain', fixture);
    const [[plain, traced], [plainAll, tracedAll]] = await Promise.all([runBoth(t, file), runBoth(t, file, ALL_FRAMES)]);
    // The whole stack: the required modules' loads and requires, then the entry's own load.
    assertStackPlus(plainAll, tracedAll, [...Array(levels).fill([LOAD, REQUIRE]).flat(), LOAD]);
    // As printed by default (10 frames): the frames of the throwing module's load and of the require() in flight.
    assertStackPlus(plain, traced, [LOAD, REQUIRE]);
    assert.equal(traced.stderr.replace(/\n {4}at .*/g, ''), plain.stderr.replace(/\n {4}at .*/g, ''));
  });
}

test('an ES module importing a CommonJS module that throws at its top level: one Module#load frame', async (t) => {
  assertStackPlus(...(await runBoth(t, join('require-chain', 'import.mjs'), ALL_FRAMES)), [LOAD]);
});

test('a throw in a request listener: the stack printed untraced, plus the one frame of the patched Server#emit', async (t) => {
  assertStackPlus(...(await runBoth(t, 'request-listener-throws.cjs')), ['at Server.emit']);
});

test("a throw in a request's 'end' listener: one frame, the patched IncomingMessage#emit (was two, with the context manager's with)", async (t) => {
  assertStackPlus(...(await runBoth(t, 'request-end-listener-throws.cjs')), ['at IncomingMessage.emit']);
});

test('a throw in an HTTP client response callback an instrumentation bound to its context: one frame, the bound wrapper', async (t) => {
  assertStackPlus(...(await runBoth(t, 'client-callback-throws.cjs')), ['at ClientRequest.contextWrapper']);
});

test("a throw in an Express route handler, as Express's final handler prints it: the route instrumentation's Route#dispatch, and Layer#handleRequest per layer level (mount patterns)", async (t) => {
  const [plain, traced] = await runBoth(t, 'express-handler-throws.cjs');
  assert.equal(plain.code, 0, plain.stderr);
  assertStackPlus(plain, traced, ['at Layer.handleRequest', 'at Route.dispatch', 'at Layer.handleRequest']);
});
