// FileSpanExporter between its checks of the file (before a line after a pause, else at most every 100 ms): a line
// written into a deleted file is written again to the new one; a line written into a renamed (rotated) file stays
// there, once.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CHECK_INTERVAL_MS, FileSpanExporter } from '../../dist/exporters/file-span-exporter.js';

const resource = { attributes: { 'service.name': 'unit' } };
const scope = { name: 'unit' };

function span(name) {
  return {
    name,
    kind: 0,
    spanContext: () => ({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 }),
    startTime: [1, 0],
    endTime: [1, 5],
    duration: [0, 5],
    ended: true,
    status: { code: 0 },
    attributes: {},
    events: [],
    links: [],
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

function exportNow(exporter, name) {
  let result;
  exporter.export([span(name)], (r) => (result = r));
  assert.equal(result.code, 0, result.error?.message);
}

/** The span names in a span file, line by line. */
function names(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => JSON.parse(line).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((x) => x.name))));
}

function setup(t) {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-check-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const exporter = new FileSpanExporter(dir, 'spans.jsonl');
  t.after(() => exporter.shutdown());
  return { exporter, file: join(dir, 'spans.jsonl') };
}

test('a line written into the span file after it was deleted, before the next check, is written again to the new file', async (t) => {
  const { exporter, file } = setup(t);
  exportNow(exporter, 'a');
  unlinkSync(file);
  // Within the check window: this line goes into the deleted file.
  exportNow(exporter, 'b');
  await sleep(CHECK_INTERVAL_MS + 20);
  exportNow(exporter, 'c');
  assert.deepEqual(names(file), ['a', 'b', 'c']);
});

test('a deletion in the last window before shutdown loses nothing: shutdown checks the file', async (t) => {
  const { exporter, file } = setup(t);
  exportNow(exporter, 'a');
  await sleep(CHECK_INTERVAL_MS + 20);
  exportNow(exporter, 'b');
  unlinkSync(file);
  exportNow(exporter, 'c');
  await exporter.shutdown();
  assert.deepEqual(names(file), ['b', 'c']);
});

test('a line written into a renamed (rotated) span file before the next check stays there, and is not written twice', async (t) => {
  const { exporter, file } = setup(t);
  exportNow(exporter, 'a');
  renameSync(file, `${file}.1`);
  // Within the check window (lines close together): into the renamed file; after a pause of 10 ms, checked first.
  exportNow(exporter, 'b');
  await sleep(CHECK_INTERVAL_MS + 20);
  exportNow(exporter, 'c');
  const rotated = names(`${file}.1`);
  const current = names(file);
  assert.deepEqual(rotated.slice(0, 1), ['a']);
  assert.deepEqual([...rotated, ...current], ['a', 'b', 'c']);
  assert.deepEqual(current.slice(-1), ['c']);
});

test('a line after a pause checks the file first: a rotation is seen at once, as with a check per line', async (t) => {
  const { exporter, file } = setup(t);
  exportNow(exporter, 'a');
  await sleep(20);
  renameSync(file, `${file}.1`);
  exportNow(exporter, 'b');
  assert.deepEqual(names(`${file}.1`), ['a']);
  assert.deepEqual(names(file), ['b']);
});

test('at exit with nothing queued, the span processor has the file checked: lines written into it after it was deleted are written again', async (t) => {
  const { BoundedBatchSpanProcessor } = await import('../../dist/processors/bounded-batch-span-processor.js');
  const { getPreloadState } = await import('../../dist/state.js');
  const { exporter, file } = setup(t);
  const processor = new BoundedBatchSpanProcessor(exporter, { scheduledDelayMillis: 60_000, maxExportBatchSize: 64, destination: 'test' });
  processor.onEnd(span('a'));
  await processor.forceFlush();
  unlinkSync(file);
  processor.onEnd(span('b'));
  await processor.forceFlush();
  // The exit steps: exports are synchronous, and nothing is left in the queue to export.
  const state = getPreloadState();
  state.synchronousExport = true;
  t.after(() => (state.synchronousExport = undefined));
  await processor.forceFlush();
  assert.deepEqual(names(file), ['a', 'b']);
});
