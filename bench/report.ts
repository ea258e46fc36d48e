/**
 * The benchmark's closing summary as a bordered console table. This is where cli-table3 fits: a
 * few dozen rows for a person to read (right-aligned numbers, borders, coloured verdicts off), not
 * kubectl-style output, and not thousands of rows (it takes ~9 s for 10,000; see docs/package-choices.md).
 */
import Table from 'cli-table3';
import { describeTarget, fmt } from './stats.js';
import type { CaseResult } from './types.js';

export function summaryTable(results: readonly CaseResult[]): string {
  const table = new Table({
    head: ['case', 'server', 'kdyn median', 'baseline median', 'ratio', 'target', 'result'],
    colAligns: ['left', 'left', 'right', 'right', 'right', 'left', 'left'],
    style: { head: [], border: [] },
  });
  for (const r of results) {
    if (r.status !== 'ok') {
      table.push([r.name, r.server, { colSpan: 3, hAlign: 'left', content: `${r.status === 'skipped' ? 'skipped' : 'not ready'}: ${r.reason ?? ''}` }, describeTarget(r.target), '']);
      continue;
    }
    const v = (x: number) => `${fmt(x)} ${r.unit}`;
    table.push([
      r.name,
      r.server,
      v(r.kdyn!.median),
      r.baseline ? v(r.baseline.median) : '-',
      r.ratio !== undefined ? `${r.ratio.toFixed(2)}x` : '-',
      describeTarget(r.target),
      r.pass === undefined ? '?' : r.pass ? 'pass' : 'MISS',
    ]);
  }
  return table.toString();
}
