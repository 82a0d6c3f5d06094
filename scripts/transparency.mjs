#!/usr/bin/env node
// Runs well-known projects' own test suites untraced and under the preload (NODE_OPTIONS=--import
// register.mjs, then NODE_OPTIONS=--require register.cjs) and compares them test by test.
// Usage: npm run transparency [-- --ext DIR] [--node PATH] [--only express,koa] [--forms import,require]
//          [--recheck N] [--markdown] [--json FILE] [--projects FILE]
// A test that differs is rerun (its file, N times untraced and N times traced, default 2): when its status
// changes between runs of the same kind, or agrees in a rerun, it is listed as flaky, not differing.
// --projects names a module exporting `projects` (default scripts/transparency/projects.mjs).
// The checkouts live outside this repository, in --ext or TRANSPARENCY_EXT_DIR (default /work/ext);
// docs/transparency.md says how to install them. Exit status 1 when a test differs, a run wrote no
// results, or the preload left no span file (a silently disabled preload must not pass).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { compareResults, countResults, extraLines, readResults } from './transparency/results.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const reporterModule = join(root, 'scripts/transparency/node-test-reporter.mjs');
const preloads = {
  import: `--import ${join(root, 'register.mjs')}`,
  require: `--require ${join(root, 'register.cjs')}`,
};
/** One run may take this long before it is stopped and counted as a failed run. */
const RUN_TIMEOUT_MS = 20 * 60_000;

const { values: options } = parseArgs({
  options: {
    ext: { type: 'string', default: process.env.TRANSPARENCY_EXT_DIR ?? '/work/ext' },
    node: { type: 'string', default: process.execPath },
    only: { type: 'string' },
    forms: { type: 'string', default: 'import,require' },
    markdown: { type: 'boolean', default: false },
    json: { type: 'string' },
    recheck: { type: 'string', default: '2' },
    projects: { type: 'string', default: join(root, 'scripts/transparency/projects.mjs') },
  },
});
const node = resolve(options.node);
const forms = options.forms.split(',').filter((form) => {
  if (preloads[form]) return true;
  console.error(`transparency: unknown form "${form}" in --forms (accepted: import, require)`);
  process.exit(2);
});

if (!existsSync(join(root, 'dist/preload.bundle.js'))) {
  console.error('transparency: dist/ is missing; run `npm run build` first (npm run transparency does)');
  process.exit(2);
}

const { projects } = await import(pathToFileURL(resolve(options.projects)).href);
const selected = projects.filter((p) => !options.only || options.only.split(',').includes(p.name));
const nodeVersion = await capture(node, ['--version']);
const rows = [];
for (const project of selected) {
  const cwd = join(options.ext, project.dir ?? project.name);
  if (!existsSync(join(cwd, 'package.json'))) {
    console.error(
      `transparency: ${cwd} is not installed; skipped. To install it (docs/transparency.md):\n` +
        `  git clone --branch ${project.tag} https://github.com/${project.repo}.git ${cwd}\n` +
        project.install.map((command) => `  (cd ${cwd} && ${command})\n`).join(''),
    );
    continue;
  }
  rows.push(await runProject(project, cwd));
}
printReport(rows);
if (options.json) {
  writeFileSync(options.json, `${JSON.stringify({ node: nodeVersion, rows }, null, 2)}\n`);
}
process.exitCode = rows.length > 0 && rows.every(isClean) ? 0 : 1;

async function runProject(project, cwd) {
  const version = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')).version;
  const commit = (await capture('git', ['rev-parse', '--short=12', 'HEAD'], cwd)) || '?';
  const untraced = await runSuite(project, cwd, undefined);
  const row = { project: project.name, version, commit, untraced: summary(untraced), traced: {} };
  for (const form of forms) {
    const traced = await runSuite(project, cwd, form);
    const differing = untraced.results && traced.results ? compareResults(untraced.results, traced.results) : undefined;
    row.traced[form] = {
      ...summary(traced),
      ...(differing?.length ? await recheck(project, cwd, form, differing) : { differing, flaky: [] }),
      extraStderr: extraLines(untraced.stderr, traced.stderr),
      extraStdout: extraLines(untraced.stdout, traced.stdout),
    };
  }
  return row;
}

/**
 * Reruns the files of the differing tests, untraced and traced, `--recheck` times each: a test
 * differs only when every untraced run agrees, every traced run agrees, and the two disagree.
 */
async function recheck(project, cwd, form, differing) {
  const files = [...new Set(differing.map(({ test }) => test.slice(0, test.indexOf(' :: '))).filter(Boolean))];
  const statuses = new Map(differing.map((d) => [d.test, { untraced: [d.untraced], traced: [d.traced] }]));
  for (let i = 0; i < Number(options.recheck); i++) {
    for (const [kind, runForm] of [
      ['untraced', undefined],
      ['traced', form],
    ]) {
      const { results } = await runSuite(project, cwd, runForm, files);
      for (const [test, seen] of statuses) seen[kind].push(results?.get(test)?.status ?? 'missing');
    }
  }
  const flaky = [];
  const confirmed = [];
  for (const d of differing) {
    const { untraced, traced } = statuses.get(d.test);
    const steady = (list) => list.every((status) => status === list[0]);
    if (steady(untraced) && steady(traced)) confirmed.push(d);
    else flaky.push({ test: d.test, untraced, traced, ...(d.error ? { error: d.error } : {}) });
  }
  return { differing: confirmed, flaky };
}

/** One run of the suite (only `files` when given); `form` undefined runs it untraced. */
async function runSuite(project, cwd, form, files) {
  const work = mkdtempSync(join(tmpdir(), `transparency-${project.name}-`));
  const out = join(work, project.reporter === 'mocha' ? 'results.json' : 'results.jsonl');
  const spansDir = join(work, 'spans');
  const env = {
    // The preload's default configuration whatever this shell has set; not a node:test child even
    // when this script runs under node --test (NODE_TEST_CONTEXT would make `node --test` one).
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TRACEHOOK_|OTEL_|NODE_OPTIONS$|NODE_TEST_CONTEXT$)/.test(name))),
    ...project.env,
    // The project's own binaries and the chosen node first, as `npm test` would have them.
    PATH: [join(cwd, 'node_modules/.bin'), dirname(node), process.env.PATH].join(':'),
    // Set in the untraced run too: it must then stay empty.
    TRACEHOOK_SPANS_DIR: spansDir,
  };
  if (form) env.NODE_OPTIONS = preloads[form];
  const label = `${project.name} ${form ? `--${form}` : 'untraced'}${files ? ` (${files.length} files again)` : ''}`;
  process.stderr.write(`transparency: ${label} …\n`);
  const started = Date.now();
  const run = await execute(node, project.args(out, reporterModule, files), cwd, env);
  let results;
  let error;
  try {
    results = readResults(project.reporter, out, cwd);
  } catch (err) {
    error = `no results (exit ${run.code ?? run.signal}): ${err.message}`;
  }
  const spans = countSpans(spansDir);
  process.stderr.write(`transparency: ${label}: ${((Date.now() - started) / 1000).toFixed(0)} s, ` + `exit ${run.code ?? run.signal}, ${spans.files} span files\n`);
  rmSync(work, { recursive: true, force: true });
  return { ...run, results, error, spans };
}

function summary(run) {
  return {
    exit: run.code ?? run.signal,
    ...(run.results ? countResults(run.results) : {}),
    ...(run.error ? { error: run.error } : {}),
    spans: run.spans,
  };
}

/** Span files (one per traced process) and spans in them. */
function countSpans(dir) {
  if (!existsSync(dir)) return { files: 0, spans: 0 };
  const files = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
  let spans = 0;
  for (const name of files) spans += readFileSync(join(dir, name), 'utf8').match(/"spanId":/g)?.length ?? 0;
  return { files: files.length, spans };
}

function isClean(row) {
  if (row.untraced.error || row.untraced.spans.files > 0) return false;
  return Object.values(row.traced).every((t) => !t.error && t.differing?.length === 0 && t.spans.files > 0 && t.extraStderr.length === 0);
}

function printReport(rows) {
  const header = [
    'project',
    'version (commit)',
    'node',
    'tests',
    'passed untraced',
    ...forms.map((form) => `passed --${form}`),
    ...forms.map((form) => `differing --${form}`),
    ...forms.map((form) => `span files / spans --${form}`),
  ];
  const lines = rows.map((row) => [
    row.project,
    `${row.version} (${row.commit})`,
    nodeVersion,
    String(row.untraced.tests ?? '—'),
    String(row.untraced.passed ?? row.untraced.error),
    ...forms.map((form) => String(row.traced[form].passed ?? row.traced[form].error)),
    ...forms.map((form) => differingCell(row.traced[form])),
    ...forms.map((form) => `${row.traced[form].spans.files} / ${row.traced[form].spans.spans}`),
  ]);
  if (options.markdown) {
    console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
    for (const line of lines) console.log(`| ${line.join(' | ')} |`);
  } else {
    const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i].length)));
    for (const line of [header, ...lines]) console.log(line.map((cell, i) => cell.padEnd(widths[i])).join('  '));
  }
  for (const row of rows) {
    if (row.untraced.spans.files > 0) console.log(`\n${row.project} untraced: span files written without the preload`);
    for (const [form, traced] of Object.entries(row.traced)) {
      const where = `\n${row.project} --${form}:`;
      if (traced.spans.files === 0) console.log(`${where} no span file: the preload was not active`);
      for (const d of traced.differing ?? []) {
        console.log(`${where} ${d.test}: ${d.untraced} untraced, ${d.traced} traced${d.error ? ` (${d.error})` : ''}`);
      }
      for (const f of traced.flaky) {
        console.log(`${where} flaky, not counted: ${f.test}: untraced ${f.untraced.join(', ')}; ` + `traced ${f.traced.join(', ')}${f.error ? ` (first failure: ${f.error})` : ''}`);
      }
      for (const [stream, extra] of [
        ['stderr', traced.extraStderr],
        ['stdout', traced.extraStdout],
      ]) {
        if (extra.length === 0) continue;
        console.log(`${where} ${extra.length} ${stream} line(s) not in the untraced run:`);
        for (const line of extra.slice(0, 10)) console.log(`  ${line}`);
      }
    }
  }
}

function differingCell(traced) {
  if (!traced.differing) return '—';
  return `${traced.differing.length}${traced.flaky.length ? ` (+${traced.flaky.length} flaky)` : ''}`;
}

/** Runs a command to its end, collecting its output; never rejects. */
function execute(command, args, cwd, env) {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout = [];
    const stderr = [];
    child.stdout.on('data', (chunk) => stdout.push(chunk));
    child.stderr.on('data', (chunk) => stderr.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    const finish = (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString() });
    };
    child.on('error', (err) => finish(null, err.message));
    child.on('close', finish);
  });
}

async function capture(command, args, cwd) {
  const { stdout } = await execute(command, args, cwd, process.env);
  return stdout.trim();
}
