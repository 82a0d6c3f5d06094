// The benchmark harness works end to end: `node bench/run.mjs --quick --only startup --rounds 1` exits 0 and prints
// a table row for every variant (a variant that cannot run prints an n/a row). No timing is asserted: timings belong to `npm run bench` on a quiet machine.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const run = fileURLToPath(new URL('../bench/run.mjs', import.meta.url));
const VARIANTS = ['untraced', 'tracehook-files', 'tracehook-disabled', 'import-floor', 'tracehook-otlp', 'otel', 'dd-trace'];

test('bench harness: a one-round startup run prints one table row per variant', { timeout: 60_000 }, async () => {
  const { code, stdout, stderr } = await new Promise((resolve) => {
    execFile(process.execPath, [run, '--quick', '--only', 'startup', '--rounds', '1'], { timeout: 55_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (err.code ?? err.signal) : 0, stdout, stderr }),
    );
  });
  assert.equal(code, 0, `bench/run.mjs failed:\n${stderr}`);
  const rows = stdout.split('\n').filter((l) => l.startsWith('| startup ') && l.split('|')[2].trim() === 'spawn → first HTTP 200');
  for (const v of VARIANTS) {
    assert.equal(rows.filter((l) => l.split('|')[3].trim() === v).length, 1, `one startup row for ${v} in:\n${stdout}`);
  }
});
