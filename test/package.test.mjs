// The package as a user gets it (issue 32, issue 29 item 14b): `npm pack` of a copy of the source
// builds it (prepack) and ships no V8 code cache made on the packing machine; installed from the
// tarball in a fresh project it traces an app and `npx tracehook view` reads the spans. A copy that
// was never built says so in one line and the app runs unharmed.
//
// SLOW: the first test builds a copy of the source and runs `npm install` (dependencies from the npm
// cache, else the registry): ≈ 30-60 s; every command in it is bounded.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from './helpers/fixture.mjs';

const exec = promisify(execFile);
/** What a source checkout holds that the build and the package need (no dist/, no node_modules). */
const SOURCE = ['README.md', 'bin', 'hooks', 'package.json', 'package-lock.json', 'register.cjs', 'register.mjs', 'not-built.cjs', 'scripts', 'src', 'tsconfig.json'];
/** Files of the package that work without a build. */
const UNBUILT = ['package.json', 'register.cjs', 'register.mjs', 'not-built.cjs', 'bin', 'hooks'];
const ENV = { ...process.env, NODE_OPTIONS: '', OTEL_LOG_LEVEL: '', npm_config_update_notifier: 'false' };

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-package-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs a command to its end within `timeout` ms. @returns `{ code, stdout, stderr }` (never throws for a status) */
async function sh(file, args, opts) {
  try {
    const { stdout, stderr } = await exec(file, args, { env: ENV, maxBuffer: 64 * 1024 * 1024, ...opts });
    return { code: 0, stdout, stderr };
  } catch (err) {
    if (err.code === undefined || typeof err.code === 'string') throw err;
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

test('npm pack builds a source copy; the installed tarball traces an app (SLOW: ≈ 30-60 s)', { timeout: 300_000 }, async (t) => {
  const dir = tempDir(t);
  const source = join(dir, 'source');
  for (const entry of SOURCE) cpSync(join(ROOT, entry), join(source, entry), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'), 'dir');
  // Code caches as an earlier run on the packing machine leaves them: they must stay out of the package.
  for (const cache of ['dist/compile-cache', 'dist/instrumentations/bundled/compile-cache']) {
    mkdirSync(join(source, cache), { recursive: true });
    writeFileSync(join(source, cache, 'left-by-a-run.v8'), 'x');
  }

  const pack = await sh('npm', ['pack', '--pack-destination', dir], { cwd: source, timeout: 180_000 });
  assert.equal(pack.code, 0, pack.stderr);
  const tarball = join(
    dir,
    readdirSync(dir).find((f) => f.endsWith('.tgz')),
  );
  const files = (await sh('tar', ['-tzf', tarball], { timeout: 30_000 })).stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));
  assert.ok(files.includes('dist/preload.bundle.js'), 'prepack built dist/');
  assert.ok(files.includes('dist/cli/main.js'));
  // The bundler plugin (@tracehook/register/esbuild) and the module list it reads (issue 31).
  assert.ok(files.includes('dist/bundler/esbuild.js'));
  assert.ok(files.includes('dist/bundler/modules.json'));
  assert.deepEqual(
    files.filter((f) => f.endsWith('.v8') || f.includes('compile-cache')),
    [],
  );
  assert.deepEqual(
    files.filter((f) => /^(test|src|scripts|bench|node_modules)\//.test(f)),
    [],
  );

  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name":"app","private":true,"type":"module"}');
  writeFileSync(
    join(app, 'app.mjs'),
    "import http from 'node:http';\n" +
      "const server = http.createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', async () => {\n" +
      '  const res = await fetch(`http://127.0.0.1:${server.address().port}/hello`);\n' +
      "  console.log('status', res.status);\n" +
      '  server.close();\n' +
      '});\n',
  );
  const install = await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: app, timeout: 240_000 });
  assert.equal(install.code, 0, install.stderr);

  const spans = join(app, 'spans');
  const run = await sh(process.execPath, ['--import', '@tracehook/register', 'app.mjs'], { cwd: app, env: { ...ENV, TRACEHOOK_SPANS_DIR: spans }, timeout: 60_000 });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, 'status 200\n');
  assert.equal(run.stderr, '');
  assert.equal(readdirSync(spans).length, 1);
  const view = await sh('npx', ['--no-install', 'tracehook', 'view', spans], { cwd: app, timeout: 60_000 });
  assert.equal(view.code, 0, view.stderr);
  assert.match(view.stdout, /GET\s+SERVER.*GET \/hello → 200/);
  assert.match(view.stdout, /GET\s+CLIENT/);

  // The bundler plugins as the package's "exports" give them (issue 31).
  const plugins = await sh(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const { TracehookWebpackPlugin } = await import('@tracehook/register/webpack'); const { tracehook } = await import('@tracehook/register/rollup'); const { withTracehook } = await import('@tracehook/register/next'); console.log(typeof new TracehookWebpackPlugin().apply, tracehook().name, withTracehook({}).serverExternalPackages.includes('ioredis'))",
    ],
    { cwd: app, timeout: 30_000 },
  );
  assert.equal(plugins.stderr, '');
  assert.equal(plugins.stdout, 'function tracehook true\n');
});

test('a copy without its build says so in one line; the app runs unharmed, untraced', async (t) => {
  const dir = tempDir(t);
  const pkg = join(dir, 'node_modules', '@tracehook', 'register');
  for (const entry of UNBUILT) cpSync(join(ROOT, entry), join(pkg, entry), { recursive: true });
  writeFileSync(join(dir, 'app.mjs'), "console.log('app ran');\nprocess.exitCode = 3;\n");
  writeFileSync(join(dir, 'app.cjs'), "console.log('app ran');\nprocess.exitCode = 3;\n");
  const line =
    /^\[tracehook\] preload: dist\/ is missing: this copy of @tracehook\/register was not built; run `npm run build` in .*register \(or install it from the npm registry\); the app runs untraced\n$/;

  for (const [flag, entry] of [
    ['--import', 'app.mjs'],
    ['--require', 'app.cjs'],
  ]) {
    const result = await sh(process.execPath, [flag, '@tracehook/register', entry], { cwd: dir, timeout: 30_000 });
    assert.equal(result.code, 3, `${flag}: ${result.stderr}`);
    assert.equal(result.stdout, 'app ran\n');
    assert.match(result.stderr, line);
  }
  const cli = await sh(process.execPath, [join(pkg, 'bin', 'tracehook.mjs'), 'view', dir], { cwd: dir, timeout: 30_000 });
  assert.equal(cli.code, 1);
  assert.match(cli.stderr, /^tracehook: dist\/ is missing: .*`npm run build`.*\(or install it from the npm registry\)\n$/);
});
