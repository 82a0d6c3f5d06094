// A node:test reporter for scripts/transparency.mjs: one JSON line per finished test or suite,
// { file, name, status, error? }, where name joins the titles from the outermost suite down with " > ".
// Usage: node --test --test-reporter=<this file> --test-reporter-destination=<out.jsonl> …
import { relative } from 'node:path';

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* jsonLines(source) {
  // Per file, per nesting level: results finished at that level whose parent has not finished yet.
  // A parent's result comes after its children's, so children are named when their parent ends.
  const pendingByFile = new Map();
  for await (const { type, data } of source) {
    if (type !== 'test:pass' && type !== 'test:fail') continue;
    const file = data.file ? relative(process.cwd(), data.file) : '';
    const pending = pendingByFile.get(file) ?? [];
    pendingByFile.set(file, pending);
    const children = pending[data.nesting + 1] ?? [];
    pending[data.nesting + 1] = [];
    const status = type === 'test:fail' ? 'failed' : data.skip !== undefined || data.todo !== undefined ? 'skipped' : 'passed';
    const result = { file, name: data.name, status };
    if (status === 'failed') result.error = String(data.details?.error?.cause?.message ?? data.details?.error?.message ?? '').slice(0, 300);
    const level = (pending[data.nesting] ??= []);
    level.push(result, ...children.map((child) => ({ ...child, name: `${data.name} > ${child.name}` })));
    if (data.nesting === 0) {
      for (const line of level) yield `${JSON.stringify(line)}\n`;
      pending[0] = [];
    }
  }
}
