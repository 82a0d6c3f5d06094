// The span processors of a TRACEHOOK_EXPORTER_IMPORT_PATH (`…/encode-in-place.mjs:spanProcessors`), for
// bench/encode.mjs: in the main thread of a traced app it keeps the first LINES span-file lines of ended spans,
// then times the stock and direct OTLP/JSON encoders on those very spans (the app's own objects, with strings in
// whatever representation the app and the tracer made them, after the encoders' code has seen them all) and
// prints `ENCODE_IN_PLACE {"stock":µs,"direct":µs,"ratio":×,"spans":n}` on stdout. Other threads: none.
// Rounds and their length come from BENCH_ENCODE_ROUNDS and BENCH_ENCODE_MS.
import { isMainThread } from 'node:worker_threads';
import { encodeOtlpJson } from '../../dist/encoding/otlp-json.js';
import { stockSpansToOtlpJson } from '../../dist/exporters/json-trace-serializer.js';
import { LINE_SPANS } from '../../dist/exporters/file-span-exporter.js';
import { compareInterleaved } from './encoder-rounds.mjs';

const LINES = 20;

export function spanProcessors() {
  if (!isMainThread) return [];
  const lines = [];
  let line = [];
  let done = false;
  const measure = () => {
    const spans = lines.length * LINE_SPANS;
    // As the span-file exporter does: each line to one flat string.
    const each = (encode) => () => {
      for (const l of lines) Buffer.byteLength(`${encode(l)}\n`);
    };
    const options = { rounds: Number(process.env.BENCH_ENCODE_ROUNDS ?? 15), ms: Number(process.env.BENCH_ENCODE_MS ?? 300), warmup: 5 };
    const got = compareInterleaved(each(stockSpansToOtlpJson), each(encodeOtlpJson), spans, options);
    process.stdout.write(`ENCODE_IN_PLACE ${JSON.stringify({ stock: got.a, direct: got.b, ratio: got.ratio, spans })}\n`);
  };
  const processor = {
    onStart() {},
    onEnd(span) {
      if (done) return;
      line.push(span);
      if (line.length < LINE_SPANS) return;
      lines.push(line);
      line = [];
      if (lines.length < LINES) return;
      done = true;
      setImmediate(measure);
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  return [processor];
}
