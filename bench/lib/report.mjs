// Result rows, the one table they are printed as, and the command-line flags every scenario file shares.
import { fileURLToPath } from 'node:url';
import { killAll } from './proc.mjs';
import { medianDiff, medianRatio } from './stats.mjs';

/**
 * One row of the table.
 *   value:   the variant's median (number) or null for n/a
 *   vs:      the comparison with untraced in the same rounds: { kind: 'ratio' | 'diff', value } or null
 *   goal:    { text, met: boolean } for rows a goal applies to, else undefined
 *   floor:   the comparison with the floor prototype in the same rounds: { kind, value, level } or null ({@link vsFloor})
 *   note:    short free text (n/a reason, spread, counts)
 */
export function row(scenario, measure, variant, value, unit, { vs = null, floor = null, goal, note = '' } = {}) {
  return { scenario, measure, variant, value, unit, vs, floor, goal, note };
}

/**
 * The "vs floor" cell of a row: `variant` against floor variant `floorName` in the same rounds, as the median of
 * per-round ratios (kind 'ratio': variant ÷ floor) or differences ('diff': variant − floor); null when there is no
 * floor for the row or it did not run.
 */
export function vsFloor(rounds, variant, floorName, kind = 'ratio') {
  if (!floorName || !rounds.some((r) => Number.isFinite(r[floorName]))) return null;
  const value = kind === 'ratio' ? medianRatio(rounds, variant, floorName) : medianDiff(rounds, variant, floorName);
  return { kind, value, level: floorName.replace(/^floor-/, '') };
}

/** A goal on a number: `check(x)` says whether x meets it; n/a when x is not a number. `caveat` is shown after met. */
export function goal(text, x, check, caveat) {
  return { text, met: Number.isFinite(x) ? Boolean(check(x)) : null, caveat };
}

function fmt(x, unit) {
  if (x === null || x === undefined || Number.isNaN(x)) return 'n/a';
  if (!Number.isFinite(x)) return String(x);
  const abs = Math.abs(x);
  const digits = abs >= 1000 ? 0 : abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  const s = x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
  return unit ? `${s} ${unit}` : s;
}

function fmtVs(vs, unit) {
  if (!vs) return '—';
  if (vs.value === null || Number.isNaN(vs.value)) return 'n/a';
  if (vs.kind === 'ratio') return `×${vs.value.toFixed(2)}`;
  const sign = vs.value >= 0 ? '+' : '−';
  return `${sign}${fmt(Math.abs(vs.value), unit)}`;
}

const HEAD = ['scenario', 'measure', 'variant', 'median', 'vs untraced', 'vs floor', 'goal', 'met', 'note'];

/** Markdown table (also what the console shows). */
export function table(rows) {
  const cells = rows.map((r) => [
    r.scenario,
    r.measure,
    r.variant,
    fmt(r.value, r.unit),
    fmtVs(r.vs, r.unit),
    r.floor ? `${fmtVs(r.floor, r.unit)} (${r.floor.level})` : '',
    r.goal?.text ?? '',
    r.goal ? (r.goal.met === null ? 'n/a' : r.goal.met ? 'met' : 'NOT MET') + (r.goal.caveat ? ` (${r.goal.caveat})` : '') : '',
    r.note ?? '',
  ]);
  const widths = HEAD.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) => `| ${c.map((x, i) => x.padEnd(widths[i])).join(' | ')} |`;
  return [line(HEAD), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** Flags shared by run.mjs and every scenario file. */
export function parseFlags(argv = process.argv.slice(2)) {
  const flags = { quick: false, only: null, rounds: null, dbRounds: null, duration: null, memoryDuration: null, write: false, variants: null, pin: null, nodes: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new TypeError(`${a} needs a value`);
      return v;
    };
    if (a === '--quick') flags.quick = true;
    else if (a === '--write') flags.write = true;
    else if (a === '--only') flags.only = next().split(',');
    else if (a === '--rounds') flags.rounds = positive(a, next());
    else if (a === '--db-rounds') flags.dbRounds = positive(a, next());
    else if (a === '--duration') flags.duration = positive(a, next());
    else if (a === '--memory-duration') flags.memoryDuration = positive(a, next());
    else if (a === '--variants') flags.variants = next().split(',');
    else if (a === '--pin') flags.pin = oneOf(a, next(), ['on', 'off', 'both']);
    else if (a === '--nodes' || a === '--node') flags.nodes = next().split(',');
    else if (a === '--help' || a === '-h') flags.help = true;
    else
      throw new TypeError(
        `unknown flag ${a}; accepted: --quick, --only <scenario,...>, --rounds <n>, --db-rounds <n>, --duration <s>, --memory-duration <s>, --variants <name,...>, --pin <on|off|both>, --nodes <20,22,24 or paths>, --write`,
      );
  }
  return flags;
}

function oneOf(flag, v, accepted) {
  if (!accepted.includes(v)) throw new TypeError(`${flag} must be one of ${accepted.join(', ')}; got ${JSON.stringify(v)}`);
  return v;
}

function positive(flag, v) {
  const n = Number(v);
  if (!(n > 0)) throw new TypeError(`${flag} must be a positive number; got ${JSON.stringify(v)}`);
  return n;
}

/** Runs `fn`; on error prints it and sets exit code 1; always kills every child left. */
export async function killAllOnExit(fn) {
  try {
    await fn();
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  } finally {
    killAll();
  }
}

/** Runs a scenario file's `run` when the file is executed directly, printing its rows as a table. */
export async function mainIfRun(metaUrl, run) {
  if (process.argv[1] !== fileURLToPath(metaUrl)) return;
  await killAllOnExit(async () => console.log(table(await run(parseFlags()))));
}

export const log = (...a) => console.error(...a);
