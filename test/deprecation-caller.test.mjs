// Node.js decides some deprecation warnings by who called: DEP0040 (punycode) is printed only when the first stack
// frame outside Node.js is not in a node_modules folder. tracehook's require() hooks must not become that caller, so
// traced output is the untraced output, on every Node.js version (issue 29, item 13a).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { FIXTURES, ROOT, start } from './helpers/fixture.mjs';

function tempApp(t) {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-deprecation-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'node_modules', 'uses-punycode'), { recursive: true });
  copyFileSync(join(FIXTURES, 'deprecation', 'uses-punycode.cjs'), join(dir, 'node_modules', 'uses-punycode', 'index.js'));
  copyFileSync(join(FIXTURES, 'deprecation', 'punycode-app.cjs'), join(dir, 'app.cjs'));
  return dir;
}

const PRELOADS = {
  untraced: [],
  '--import': ['--import', pathToFileURL(join(ROOT, 'register.mjs')).href],
  '--require': ['--require', join(ROOT, 'register.cjs')],
};

/**
 * `(node:1234)` → `(node:PID)`, and a thrown warning's stack down to its first frame outside Node.js: the frames
 * between that caller and Node.js's `require` are the hooks' (tracehook's) own.
 */
function normalise(stderr) {
  const lines = stderr.replace(/\(node:\d+\)/g, '(node:PID)').split('\n');
  const frames = lines.filter((l) => l.startsWith('    at '));
  const caller = frames.find((l) => !/\(?node:/.test(l.slice(7)));
  // `    at Object.<anonymous> (/app.cjs:4:6) {` → `    at /app.cjs:4:6` (the last frame printed carries the ` {`).
  return lines
    .filter((l) => !l.startsWith('    at ') || l === caller)
    .map((l) => (l === caller ? `    at ${/(\/[^()]*:\d+:\d+)/.exec(l)?.[1]}` : l))
    .join('\n');
}

// Node.js 20 prints DEP0040 only under --pending-deprecation, and then for every caller: there the runs agree trivially.
const DECIDES_BY_CALLER = Number(process.versions.node.split('.')[0]) >= 21;

for (const flags of [[], ['--throw-deprecation']]) {
  test(`punycode loaded by a package or by the app: the same warnings and exit code traced as untraced (${flags.join(' ') || 'no flags'})`, async (t) => {
    const app = tempApp(t);
    for (const caller of ['package', 'app']) {
      const runs = {};
      for (const [name, preload] of Object.entries(PRELOADS)) {
        const env = { TRACEHOOK_SPANS_DIR: join(app, 'spans'), TRACEHOOK_ESM_LOADER: 'false' };
        const { code, stdout, stderr } = await start(join(app, 'app.cjs'), { cwd: app, env, preload: [...flags, ...preload], args: [caller] }).done;
        runs[name] = { code, stdout, stderr: normalise(stderr) };
      }
      if (DECIDES_BY_CALLER) assert.equal(/DEP0040/.test(runs.untraced.stderr), caller === 'app', `${caller}: untraced`);
      assert.deepEqual(runs['--import'], runs.untraced, `${caller}: --import`);
      assert.deepEqual(runs['--require'], runs.untraced, `${caller}: --require`);
    }
  });
}
