// Unit tests of withTracehook (@tracehook/register/next): it adds the instrumented packages to a Next.js
// configuration's serverExternalPackages, keeps the user's entries and any other setting, leaves out a package the
// user transpiles (Next.js refuses one that is both), and wraps a configuration function.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ModuleSelection } from '../../dist/bundler/module-list.js';
import { withTracehook } from '../../dist/bundler/next.js';

const instrumented = new ModuleSelection().packageNames;

test('withTracehook: every instrumented package becomes external, the user entries and settings kept', () => {
  const config = withTracehook({ output: 'standalone', serverExternalPackages: ['sharp', 'pg'] });
  assert.equal(config.output, 'standalone');
  assert.deepEqual(config.serverExternalPackages.slice(0, 2), ['sharp', 'pg']);
  for (const name of ['ioredis', 'mysql2', '@grpc/grpc-js', 'kafkajs']) assert.ok(config.serverExternalPackages.includes(name), name);
  assert.equal(new Set(config.serverExternalPackages).size, config.serverExternalPackages.length);
  assert.deepEqual(new Set(config.serverExternalPackages), new Set(['sharp', ...instrumented]));
});

test('withTracehook: a package of transpilePackages stays out; a configuration function is wrapped', async () => {
  assert.ok(!withTracehook({ transpilePackages: ['graphql'] }).serverExternalPackages.includes('graphql'));
  const wrapped = withTracehook(async (phase) => ({ output: phase }));
  const config = await wrapped('phase-production-build', {});
  assert.equal(config.output, 'phase-production-build');
  assert.ok(config.serverExternalPackages.includes('ioredis'));
});
