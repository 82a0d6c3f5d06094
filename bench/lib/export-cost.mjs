// What export costs per span on the thread the span ended on, measured from outside the preload: the CPU of a
// variant that exports minus that of the same variant without an exporter, in the same round (tracehook: span
// files − `OTEL_TRACES_EXPORTER=none`; the floor: its export level − its records level), divided by the spans that
// thread ends per op. Issue 30's goal: ≤ 2 µs per span.
import { medianDiff } from './stats.mjs';
import { goal, row, vsFloor } from './report.mjs';
import { VARIANTS } from './variants.mjs';

export const EXPORT_CPU_GOAL_US = 2;
/** [exporting variant, the same without export]. */
const PAIRS = [
  ['tracehook-files', 'tracehook-noexport'],
  ['floor-export', 'floor-records'],
];

/**
 * The export rows of one measure: tracehook's with the goal and its distance to the floor's own export cost, and
 * the floor's. `rounds`: [{ variant: CPU µs per op }]; `spansPerOp`: spans the measured thread ends per op;
 * pairs with a variant not run (not in `names`, or n/a in `na`) are left out.
 */
export function exportCostRows(scenario, measure, rounds, { names, na, spansPerOp = 1, note }) {
  const perSpan = (x, a, b) => (x[a] - x[b]) / spansPerOp;
  const rows = [];
  for (const [name, without] of PAIRS) {
    if (na[name] !== undefined || na[without] !== undefined || !names.includes(name) || !names.includes(without)) continue;
    const value = medianDiff(rounds, name, without) / spansPerOp;
    const tracehook = VARIANTS[name].tracehook;
    const floorRounds = rounds.map((x) => ({ [name]: perSpan(x, name, without), 'floor-export': perSpan(x, 'floor-export', 'floor-records') }));
    rows.push(
      row(scenario, measure, name, value, 'µs', {
        floor: tracehook ? vsFloor(floorRounds, name, 'floor-export', 'diff') : null,
        goal: tracehook ? goal(`≤ ${EXPORT_CPU_GOAL_US} µs`, value, (x) => x <= EXPORT_CPU_GOAL_US) : undefined,
        note: `(${name} − ${without}) ${note}`,
      }),
    );
  }
  return rows;
}
