// What the preload left in a process before the app's first line (test/fixtures/loaded-state.cjs),
// with the spans it wrote: to prove that a disabled preload loads nothing, next to a control run
// showing the same probe sees tracing when it is on.
import { readSpans, run, spansDir } from './fixture.mjs';

/**
 * Runs the probe fixture under `preload` with `env`.
 * @returns `{ code, stderr, modules, symbols, recording, httpPatched, spans }` (see the fixture)
 */
export async function loadedState(t, env = {}, preload = ['--import', '@tracehook/register']) {
  const dir = spansDir(t);
  const { code, stdout, stderr } = await run('loaded-state.cjs', { preload, env: { TRACEHOOK_SPANS_DIR: dir, ...env } });
  return { code, stderr, ...JSON.parse(stdout), spans: await readSpans(dir) };
}

/** Asserts (with `assert`) that the probe saw tracing on: the control run of a "loads nothing" test. */
export function assertTracingOn(assert, state) {
  assert.equal(state.code, 0, state.stderr);
  assert.ok(state.modules.includes('dist/preload.bundle.js'), `control: the bundle is loaded (${state.modules})`);
  assert.ok(
    state.symbols.some((d) => /^tracehook@[^:]+:state$/.test(d)),
    `control: tracehook's state exists (${state.symbols})`,
  );
  assert.ok(state.symbols.includes('opentelemetry.js.api.1'), 'control: a TracerProvider is registered with the OpenTelemetry API');
  assert.equal(state.recording, true, 'control: spans record');
  assert.equal(state.httpPatched, true, 'control: HTTP servers are instrumented');
  assert.deepEqual(
    state.spans.map((s) => s.name),
    ['probe'],
    'control: the span reached the span file',
  );
}
