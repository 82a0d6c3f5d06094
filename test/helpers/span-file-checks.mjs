// Reading span files strictly: every line must decode, and the helpers the span-file tests share.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { decodeSpanLine } from '../../dist/span-file/decode.js';
import { get } from './fixture.mjs';

/** Decodes every line of `file`; throws on a line that is not a whole OTLP/JSON request. */
export function strictSpans(file) {
  const text = readFileSync(file, 'utf8');
  if (text.length > 0 && !text.endsWith('\n')) throw new Error(`${file} ends in a cut line`);
  return text
    .split('\n')
    .filter(Boolean)
    .flatMap((line, i) => {
      try {
        return decodeSpanLine(line, file);
      } catch (err) {
        throw new Error(`${file} line ${i + 1} does not decode: ${err.message}: ${line.slice(0, 80)}…`, { cause: err });
      }
    });
}

/** The `.jsonl` files of `dir`. */
export function spanFiles(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => join(dir, f));
}

/** Permission bits of `path` as an octal string, e.g. '600'. */
export function mode(path) {
  return (statSync(path).mode & 0o7777).toString(8);
}

/** Polls the burst fixture's /stats until `pred(stats)` holds (20 s at most). */
export async function waitForStats(port, pred) {
  for (let i = 0; i < 400; i++) {
    const stats = JSON.parse((await get(port, '/stats')).body);
    if (pred(stats)) return stats;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('stats never reached the expected state');
}

const LATER_REASONS = { 'rejected by backend': 'rejected' };

/** The numbers of the exit line `losses: …`, or undefined when there is none. */
export function lossLine(stderr) {
  const m = stderr.match(
    /losses: (\d+) of (\d+) ended spans were lost \(queue full: (\d+), export failed: (\d+), write failed: (\d+), shutdown bound reached: (\d+)((?:, [a-z ]+: \d+)*)\); (\d+) exported/,
  );
  if (!m) return undefined;
  const [lost, ended, queueFull, exportFailed, writeFailed, shutdownBound] = m.slice(1, 7).map(Number);
  // Reasons listed only when non-zero ("rejected by backend: 2" → rejected: 2).
  const later = Object.fromEntries([...m[7].matchAll(/, ([a-z ]+): (\d+)/g)].map(([, name, n]) => [LATER_REASONS[name] ?? name, Number(n)]));
  return { lost, ended, queueFull, exportFailed, writeFailed, shutdownBound, ...later, exported: Number(m[8]) };
}
