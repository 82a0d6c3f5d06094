// docs/architecture.md ("Configuration") lists every environment read outside src/config/: each file of src/ (and
// register.mjs, register.cjs) that reads `process.env` is named there, with each variable it reads by name
// (`process.env.NAME`). A read added without its line fails here.
// Usage: node --test test/unit/env-reads.test.mjs (reads the sources; no build needed)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url).pathname;

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** The `process.env` reads of `text` outside comments: [whole-object or computed reads, named variables]. */
function envReads(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const names = [...code.matchAll(/process\.env\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
  return { any: /process\.env\b/.test(code), names: [...new Set(names)] };
}

function listed() {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Configuration'), doc.indexOf('\n## ', doc.indexOf('## Configuration') + 1));
  const start = section.indexOf('- Environment reads outside `src/config/`');
  assert.ok(start >= 0, 'the list of environment reads in docs/architecture.md, "Configuration"');
  return section.slice(start);
}

test('every file that reads process.env outside src/config/ is named in docs/architecture.md, with the variables it names', () => {
  const list = listed();
  const files = [...sources(join(root, 'src')), join(root, 'register.mjs'), join(root, 'register.cjs')];
  const missing = [];
  let seen = 0;
  for (const file of files) {
    const path = relative(root, file);
    if (path.startsWith('src/config/')) continue;
    const { any, names } = envReads(readFileSync(file, 'utf8'));
    if (!any) continue;
    seen++;
    if (!list.includes(`\`${path}\``)) missing.push(path);
    for (const name of names) if (!list.includes(name)) missing.push(`${path}: ${name}`);
  }
  assert.ok(seen >= 10, `found only ${seen} files reading process.env: the search is broken`);
  assert.deepEqual(missing, []);
});

test('the comment-stripping search finds a read and ignores a comment', () => {
  assert.deepEqual(envReads('// process.env.A\nconst b = process.env.B;\n/* process.env.C */'), { any: true, names: ['B'] });
  assert.deepEqual(envReads("/**\n * process.env is read elsewhere\n */\nconst url = 'http://x'; // process.env.D"), { any: false, names: [] });
});
