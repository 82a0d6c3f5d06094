// Types of `@tracehook/register/api` resolve under every TypeScript moduleResolution a project may use: node10
// (`"module": "commonjs"`, what ts-node runs), node16, nodenext and bundler. Each case type-checks
// test/fixtures/types/use-api.ts with tsc in a temp project that has the package under node_modules.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES, ROOT } from './helpers/fixture.mjs';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

for (const [resolution, module] of [
  ['node10', 'commonjs'],
  ['node16', 'node16'],
  ['nodenext', 'nodenext'],
  ['bundler', 'esnext'],
]) {
  test(`types of @tracehook/register/api resolve with moduleResolution ${resolution} ("module": "${module}")`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tracehook-types-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'node_modules', '@tracehook'), { recursive: true });
    symlinkSync(ROOT, join(dir, 'node_modules', '@tracehook', 'register'), 'dir');
    copyFileSync(join(FIXTURES, 'types', 'use-api.ts'), join(dir, 'use-api.ts'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'types-fixture', private: true }));
    const compilerOptions = { module, moduleResolution: resolution, target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: [] };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['use-api.ts'] }));
    const result = await new Promise((resolve) =>
      execFile(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], (err, stdout, stderr) => resolve({ code: err?.code ?? 0, out: stdout + stderr })),
    );
    assert.equal(result.out, '');
    assert.equal(result.code, 0);
  });
}
