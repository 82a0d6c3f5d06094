type Triple = [number, number, number];
type Op = '>=' | '<=' | '>' | '<' | '=' | '^';

/**
 * Whether release `version` satisfies `range`, for the ranges instrumentations declare as their supported versions
 * (`>=8.0.3 <9`, `^5.0.0`, `>= 6.7 < 8`, `*`); undefined for anything else, which the caller then checks in full.
 * The same answer as `satisfies(version, range)` of @opentelemetry/instrumentation (node-semver's rules), read
 * character by character: that one's regular expressions are compiled by V8 at their first use in every process
 * and worker thread (paid by the first package an instrumentation patches: bench: startup, express + pg + ioredis row), and so would be any here.
 *
 * Decided here: `version` `x.y.z`; `range` comparators separated by spaces, each `>=`, `<=`, `>`, `<`, `=` or none
 * before `x.y.z`; `>=` or `<` before `x` or `x.y` (`>=8` is `>=8.0.0`; `<9` is `<9.0.0-0`, which no release can
 * tell from `<9.0.0`); `^` before `x.y.z`; or `*` alone. Undecided (undefined): prereleases, build metadata, `v`
 * prefixes, `||`, hyphen ranges, `~`, other wildcards and partial versions, leading zeros.
 * @param version - the installed package's version, from its package.json
 * @param range - one entry of an instrumentation's supported versions
 * @returns true or false when decided here, else undefined; never throws
 */
export function satisfiesSimpleRange(version: unknown, range: unknown): boolean | undefined {
  if (typeof version !== 'string' || typeof range !== 'string') return undefined;
  const v = parseNumbers(version, 0);
  if (v === undefined || v.parts !== 3 || v.end !== version.length) return undefined;
  if (range.trim() === '*') return true;
  let satisfied = true;
  let i = skipSpaces(range, 0);
  if (i === range.length) return undefined;
  while (i < range.length) {
    const op = readOp(range, i);
    // As @opentelemetry/instrumentation cleans a range: `>= 6.7` is `>=6.7`.
    i = op === undefined ? i : skipSpaces(range, i + op.length);
    const bound = parseNumbers(range, i);
    if (bound === undefined) return undefined;
    const end = skipSpaces(range, bound.end);
    if (end === bound.end && end !== range.length) return undefined;
    const ok = check(v.numbers, op ?? '=', bound.numbers, bound.parts);
    if (ok === undefined) return undefined;
    satisfied &&= ok;
    i = end;
  }
  return satisfied;
}

function check(v: Triple, op: Op, bound: Triple, parts: number): boolean | undefined {
  if (parts !== 3 && op !== '>=' && op !== '<') return undefined;
  const c = compare(v, bound);
  switch (op) {
    case '>=':
      return c >= 0;
    case '<':
      return c < 0;
    case '>':
      return c > 0;
    case '<=':
      return c <= 0;
    case '=':
      return c === 0;
    case '^':
      return c >= 0 && compare(v, caretLimit(bound)) < 0;
  }
}

function readOp(text: string, i: number): Op | undefined {
  const a = text[i];
  if (a === '>' || a === '<') return text[i + 1] === '=' ? (`${a}=` as Op) : a;
  return a === '=' || a === '^' ? a : undefined;
}

/** One to three dot-separated numbers without leading zeros from `i`, and the index after them. */
function parseNumbers(text: string, i: number): { numbers: Triple; parts: number; end: number } | undefined {
  const numbers: Triple = [0, 0, 0];
  let parts = 0;
  while (parts < 3) {
    const start = i;
    let n = 0;
    for (let code = text.charCodeAt(i); code >= 48 && code <= 57; code = text.charCodeAt(++i)) n = n * 10 + code - 48;
    if (i === start || (text[start] === '0' && i - start > 1) || !Number.isSafeInteger(n)) return undefined;
    numbers[parts++] = n;
    if (text[i] !== '.' || parts === 3) break;
    i++;
  }
  return { numbers, parts, end: i };
}

function skipSpaces(text: string, i: number): number {
  while (text[i] === ' ') i++;
  return i;
}

/** node-semver's caret: `^1.2.3` is `<2.0.0`, `^0.2.3` is `<0.3.0`, `^0.0.3` is `<0.0.4` (each `-0`, see above). */
function caretLimit([major, minor, patch]: Triple): Triple {
  if (major > 0) return [major + 1, 0, 0];
  if (minor > 0) return [0, minor + 1, 0];
  return [0, 0, patch + 1];
}

function compare(a: Triple, b: Triple): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}
