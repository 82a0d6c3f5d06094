/**
 * The text of `tracehook view --critical-path` (a column on the tree and a summary under it) and
 * `tracehook view --compare` (a table of the spans that grew or shrank).
 */
import { escapeControlChars as printable } from '../diag/control-chars';
import type { CriticalPath } from '../span-file/critical-path';
import { noPaint, paintCell, type Paint } from '../span-file/paint';
import type { TraceSummary } from '../span-file/span-index';
import { formatMs, processLabel, requestTarget, rootLabel } from '../span-file/span-label';
import type { TraceComparison } from '../span-file/trace-compare';
import { columnWidths, type RenderOptions } from '../span-file/tree';
import type { DecodedSpan } from '../span-file/types';

/** Spans listed under a tree as where the critical path spent its time, longest first. */
export const CRITICAL_SPANS_SHOWN = 10;

/** Rows of each part of a comparison shown (largest change first). */
export const COMPARE_ROWS_SHOWN = 25;

/** The tree column of `--critical-path`: each span's self time, `●` on spans of the critical path. */
export function criticalPathAnnotation(path: CriticalPath): NonNullable<RenderOptions['annotate']> {
  return (span) => {
    const marked = path.onPath.has(span.spanId);
    return { marked, note: `${marked ? '●' : ' '} self ${formatMs((path.selfTime.get(span.spanId) ?? 0) / 1000)} ms` };
  };
}

/**
 * The lines under a tree for `--critical-path`: the path's length and the spans it spent most time
 * in (time on the path, share of the trace, name, kind, process). Ends with a newline.
 */
export function renderCriticalSummary(spans: readonly DecodedSpan[], path: CriticalPath, paint: Paint = noPaint): string {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const total = path.segments.reduce((n, s) => n + s.end - s.start, 0);
  const ranked = [...path.onPath].sort((a, b) => b[1] - a[1]);
  const rows = ranked.slice(0, CRITICAL_SPANS_SHOWN).map(([id, us]) => {
    const span = byId.get(id) as DecodedSpan;
    return [
      `${formatMs(us / 1000)} ms`,
      `${total > 0 ? ((100 * us) / total).toFixed(1) : '0.0'}%`,
      printable(rootLabel({ name: span.name, target: requestTarget(span.attributes) })),
      span.kind,
      printable(processLabel(span)),
    ];
  });
  const count = path.onPath.size;
  const head = `  critical path: ${formatMs(total / 1000)} ms through ${count} span${count === 1 ? '' : 's'}${count > rows.length ? `, the ${rows.length} longest on it:` : ':'}`;
  const widths = rows.length > 0 ? columnWidths(rows) : [];
  const lines = rows.map((row) =>
    row
      .map((cell, col) => (col < 2 ? cell.padStart(widths[col]) : cell.padEnd(widths[col])))
      .map((cell, col) => (col === 0 ? paintCell(paint, 'yellow', cell) : cell))
      .join('  ')
      .trimEnd(),
  );
  return `${paint('bold', head)}\n${lines.map((l) => `    ${l}`).join('\n')}\n`;
}

/**
 * The text of `--compare`: a header naming both traces and their durations, then the matched spans
 * that changed, largest change first (A, B, delta, ratio, span path), then the spans found in one
 * trace only; each part at most {@link COMPARE_ROWS_SHOWN} rows. Durations arrive in µs. Ends with a newline.
 */
export function renderComparison(a: TraceSummary, b: TraceSummary, c: TraceComparison, paint: Paint = noPaint): string {
  const out: string[] = [];
  const name = (s: TraceSummary) => printable(`${rootLabel(s.root)} (${s.root.service})`);
  const diff = b.durationMs - a.durationMs;
  out.push(paint('bold', `compare A ${a.traceId} ${name(a)} ${formatMs(a.durationMs)} ms`));
  out.push(paint('bold', `   with B ${b.traceId} ${name(b)} ${formatMs(b.durationMs)} ms: ${signedMs(diff)}${a.durationMs > 0 ? ` (×${(b.durationMs / a.durationMs).toFixed(2)})` : ''}`));
  if (a.root.name !== b.root.name || a.root.target !== b.root.target) out.push(paint('yellow', '  note: the roots differ; spans are matched by name and place, so few may match'));

  const changed = c.matched.filter((m) => m.delta !== 0);
  const unchanged = c.matched.length - changed.length;
  out.push('', `  ${c.matched.length} span${c.matched.length === 1 ? '' : 's'} in both (${unchanged} unchanged), ${c.onlyA.length} only in A, ${c.onlyB.length} only in B`);
  if (changed.length > 0) {
    const rows = [
      ['A', 'B', 'delta', 'ratio', 'span'],
      ...changed
        .slice(0, COMPARE_ROWS_SHOWN)
        .map((m) => [
          `${formatMs(m.durationA / 1000)} ms`,
          `${formatMs(m.durationB / 1000)} ms`,
          signedMs(m.delta / 1000),
          m.ratio === null ? '' : `×${m.ratio.toFixed(2)}`,
          printable(shortKey(m.key)),
        ]),
    ];
    out.push('', ...table(rows, paint, (row) => (row[2].startsWith('+') ? 'red' : 'green')));
    if (changed.length > COMPARE_ROWS_SHOWN) out.push(`  and ${changed.length - COMPARE_ROWS_SHOWN} more changed`);
  }
  for (const [label, list] of [
    ['only in A', c.onlyA],
    ['only in B', c.onlyB],
  ] as const) {
    if (list.length === 0) continue;
    const rows = list.slice(0, COMPARE_ROWS_SHOWN).map((u) => [`${formatMs(u.duration / 1000)} ms`, printable(shortKey(u.key))]);
    out.push('', `  ${label}:`, ...table(rows, paint));
    if (list.length > COMPARE_ROWS_SHOWN) out.push(`  and ${list.length - COMPARE_ROWS_SHOWN} more`);
  }
  return `${out.join('\n')}\n`;
}

/** A span path key (`a > b > c > d`) cut to its last {@link KEY_LEVELS_SHOWN} levels, for a table row. */
function shortKey(key: string): string {
  const levels = key.split(' > ');
  return levels.length > KEY_LEVELS_SHOWN ? `… > ${levels.slice(-KEY_LEVELS_SHOWN).join(' > ')}` : key;
}

const KEY_LEVELS_SHOWN = 3;

/** Milliseconds with a sign: `+12.0 ms`, `-0.50 ms`. */
function signedMs(ms: number): string {
  return `${ms < 0 ? '-' : '+'}${formatMs(Math.abs(ms))} ms`;
}

// Columns but the last right-aligned; the delta column painted by `deltaStyle` when given.
function table(rows: string[][], paint: Paint, deltaStyle?: (row: string[]) => 'red' | 'green'): string[] {
  const widths = columnWidths(rows);
  return rows.map((row, r) =>
    `    ${row
      .map((cell, col) => (col < row.length - 1 ? cell.padStart(widths[col]) : cell))
      .map((cell, col) => (deltaStyle && r > 0 && col === 2 ? paintCell(paint, deltaStyle(row), cell) : cell))
      .join('  ')}`.trimEnd(),
  );
}
