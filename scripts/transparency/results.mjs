// Reading one run's per-test results, and comparing two runs test by test.
import { readFileSync } from 'node:fs';

/** @typedef {{ status: 'passed' | 'failed' | 'skipped', error?: string }} TestResult */

/**
 * Per-test results of a run, keyed `file :: full title` (a repeated key gets ` #2`, ` #3`…).
 * @param {'mocha' | 'node-test'} reporter
 * @param {string} out - the results file the runner wrote
 * @param {string} cwd - the checkout, to make mocha's absolute file paths relative
 * @returns {Map<string, TestResult>} throws when the runner wrote no readable results
 */
export function readResults(reporter, out, cwd) {
  const rows = reporter === 'mocha' ? mochaRows(out, cwd) : nodeTestRows(out);
  const results = new Map();
  for (const { file, name, ...result } of rows) {
    const key = `${file} :: ${name}`;
    let unique = key;
    for (let n = 2; results.has(unique); n++) unique = `${key} #${n}`;
    results.set(unique, result);
  }
  return results;
}

function mochaRows(out, cwd) {
  const report = JSON.parse(readFileSync(out, 'utf8'));
  const row = (status) => (test) => ({
    file: test.file ? test.file.replace(`${cwd}/`, '') : '',
    name: test.fullTitle,
    status,
    ...(status === 'failed' ? { error: String(test.err?.message ?? '').slice(0, 300) } : {}),
  });
  return [...report.passes.map(row('passed')), ...report.failures.map(row('failed')), ...report.pending.map(row('skipped'))];
}

function nodeTestRows(out) {
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/**
 * The tests whose status differs between two runs, a test missing from one run included.
 * @param {Map<string, TestResult>} untraced
 * @param {Map<string, TestResult>} traced
 * @returns {{ test: string, untraced: string, traced: string, error?: string }[]}
 */
export function compareResults(untraced, traced) {
  const differing = [];
  for (const test of new Set([...untraced.keys(), ...traced.keys()])) {
    const a = untraced.get(test);
    const b = traced.get(test);
    if (a?.status === b?.status) continue;
    differing.push({
      test,
      untraced: a?.status ?? 'missing',
      traced: b?.status ?? 'missing',
      ...(b?.error || a?.error ? { error: b?.error || a?.error } : {}),
    });
  }
  return differing;
}

/** Counts of each status. */
export function countResults(results) {
  const counts = { tests: results.size, passed: 0, failed: 0, skipped: 0 };
  for (const { status } of results.values()) counts[status]++;
  return counts;
}

/**
 * Lines of `traced` stderr that `untraced` stderr does not have (as a multiset), after masking
 * what changes from run to run anyway (numbers: durations, pids, ports; temporary paths).
 * @param {string} untraced
 * @param {string} traced
 * @returns {string[]}
 */
export function extraLines(untraced, traced) {
  const mask = (line) =>
    line
      .replace(/\/tmp\/[^\s'")]+/g, '/tmp/…')
      .replace(/\d+(\.\d+)?/g, 'N')
      .trimEnd();
  const seen = new Map();
  for (const line of untraced.split('\n')) seen.set(mask(line), (seen.get(mask(line)) ?? 0) + 1);
  const extra = [];
  for (const line of traced.split('\n')) {
    const key = mask(line);
    if (seen.get(key) > 0) seen.set(key, seen.get(key) - 1);
    else if (key !== '') extra.push(line);
  }
  return extra;
}
