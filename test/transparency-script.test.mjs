// scripts/transparency.mjs (the comparison of other projects' test suites untraced and under the preload)
// names each test that differs, fails when the preload left no span file or printed to stderr, and
// passes a suite that behaves the same. The suites are small fixture projects in test/fixtures/transparency.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES, ROOT } from './helpers/fixture.mjs';

function transparency(args, env = {}) {
  const projects = `${FIXTURES}/transparency/projects.mjs`;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['scripts/transparency.mjs', '--projects', projects, '--ext', `${FIXTURES}/transparency`, ...args],
      { cwd: ROOT, timeout: 110_000, env: { ...process.env, ...env } },
      (err, stdout, stderr) => resolve({ code: err ? (err.code ?? err.signal) : 0, stdout, stderr }),
    );
  });
}

test('transparency: a test that fails only under the preload is named, for --import and --require', { timeout: 120_000 }, async () => {
  const { code, stdout } = await transparency(['--only', 'sample', '--recheck', '1']);
  assert.equal(code, 1, stdout);
  const row = stdout.split('\n').find((line) => line.startsWith('sample '));
  // tests, passed untraced, passed --import, passed --require, differing --import, differing --require
  assert.match(row, /\s4\s+3\s+2\s+2\s+1\s+1\s/, stdout);
  for (const form of ['import', 'require']) {
    assert.match(stdout, new RegExp(`sample --${form}: preload.test.mjs :: sees no preload: passed untraced, failed traced`));
  }
  assert.doesNotMatch(stdout, /flaky/, 'rerun, it differs again');
  assert.doesNotMatch(stdout, /no span file/, 'the HTTP test makes spans under both forms');
});

test('transparency: a suite that passes with the preload silently disabled is not a pass', { timeout: 120_000 }, async () => {
  const { code, stdout } = await transparency(['--only', 'sample-disabled', '--forms', 'import']);
  assert.equal(code, 1, stdout);
  assert.match(stdout, /^sample-disabled .*\s0\s+0 \/ 0\s*$/m, 'no differing test, no span file');
  assert.match(stdout, /sample-disabled --import: no span file: the preload was not active/);
});

test('transparency: a test that fails in one run only is rerun and listed as flaky, not differing', { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'transparency-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { code, stdout } = await transparency(['--only', 'sample-flaky', '--forms', 'import', '--recheck', '1'], { SAMPLE_FLAKY_MARK: join(dir, 'ran') });
  assert.equal(code, 0, stdout);
  assert.match(stdout, /^sample-flaky .*\s0 \(\+1 flaky\)\s/m, stdout);
  assert.match(stdout, /sample-flaky --import: flaky, not counted: flaky.test.mjs :: fails only the first time: untraced failed, passed; traced passed, passed/);
});

test('transparency: mocha JSON results are compared, and a preload line on stderr is reported', { timeout: 120_000 }, async () => {
  const { code, stdout } = await transparency(['--only', 'sample-mocha', '--forms', 'require', '--recheck', '0']);
  assert.equal(code, 1, stdout);
  assert.match(stdout, /sample-mocha --require: test.js :: suite sees no preload: passed untraced, failed traced \(preload seen\)/);
  assert.match(stdout, /sample-mocha --require: 1 stderr line\(s\) not in the untraced run:\n {2}.*TRACEHOOK_SAMPLING_RATIO/);
});
