// The framework apps of test/fixtures/routes-app.cjs (and routes-express.mjs) as the route tests run them: each
// framework's current major, the older major kept as a devDependency alias (express4, fastify4), ES module and CommonJS.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, ROOT } from './fixture.mjs';

/**
 * routes-app.cjs in a temp dir whose node_modules/<name> is the repository's older major (devDependency `alias`,
 * an npm alias), kept under that name by --preserve-symlinks; its hoisted dependencies come through NODE_PATH.
 */
function olderMajorApp(alias, name) {
  const dir = mkdtempSync(join(tmpdir(), `tracehook-${alias}-`));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(ROOT, 'node_modules', alias), join(dir, 'node_modules', name), 'dir');
  copyFileSync(join(FIXTURES, 'routes-app.cjs'), join(dir, 'routes-app.cjs'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return [join(dir, 'routes-app.cjs'), { FRAMEWORK: name, NODE_PATH: join(ROOT, 'node_modules') }, ['--preserve-symlinks', '--require', join(ROOT, 'register.cjs')], dir];
}

/** `[name, fixture, env, preload, cwd]` for each app; the temp dirs of the older majors are made on first call. */
export function routeApps() {
  return [
    ['express 4', ...olderMajorApp('express4', 'express')],
    ['fastify 4', ...olderMajorApp('fastify4', 'fastify')],
    ['express', 'routes-app.cjs', { FRAMEWORK: 'express' }, ['--require', '@tracehook/register']],
    ['express (ES module)', 'routes-express.mjs', {}, ['--import', '@tracehook/register']],
    ['fastify', 'routes-app.cjs', { FRAMEWORK: 'fastify' }, ['--import', '@tracehook/register']],
    ['koa + @koa/router', 'routes-app.cjs', { FRAMEWORK: 'koa' }, ['--require', '@tracehook/register']],
    ['nestjs on express', 'routes-app.cjs', { FRAMEWORK: 'nest' }, ['--import', '@tracehook/register']],
  ];
}
