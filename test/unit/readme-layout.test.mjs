// README's layout table names every folder of the code a newcomer reads (src/, bin/, hooks/, scripts/, bench/,
// examples/, test/ but the fixture apps' own folders), so a new folder comes with its row.
// Usage: node --test test/unit/readme-layout.test.mjs
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url).pathname;

function folders(dir) {
  const out = [dir];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (e.isDirectory() && e.name !== 'node_modules' && dir !== 'test/fixtures') out.push(...folders(join(dir, e.name)));
  }
  return out;
}

test("every folder has a row in README's layout table", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const layout = readme.slice(readme.indexOf('## Layout'));
  const listed = new Set([...layout.matchAll(/`([a-z][\w./-]*\/)`/g)].map((m) => m[1]));
  for (const top of ['src', 'bin', 'hooks', 'scripts', 'bench', 'examples', 'test']) {
    for (const folder of folders(top)) assert.ok(listed.has(`${folder}/`), `README's layout table has no row for ${folder}/`);
  }
});
