/**
 * Comparing two tables whose AGE cells were computed at different moments (the real kube-apiserver
 * computes them per request, from its own clock): kdyn's and kubectl's runs of the same command can
 * straddle a second, or on a loaded machine be seconds apart, and an AGE cell one character wider
 * moves the columns after it. `assertSameTables` asserts the two texts are byte for byte the same
 * but for the AGE cells, which must each be a duration as kubectl prints it (`duration.HumanDuration`)
 * and agree within `AGE_SKEW_S`; the padding after each AGE cell must be kubectl's (the widest cell of
 * the column plus three spaces), so a misaligned column still fails.
 */
import assert from 'node:assert/strict';

/** How far apart (in seconds) the two runs' AGE cells may be: the runs were started together. */
export const AGE_SKEW_S = 60;

/** `[lo, hi)` in seconds for an age as `duration.HumanDuration` prints it (`7s`, `2m5s`, `3h`, `4d2h`, `3y10d`); undefined for anything else. */
export function ageRange(cell: string): [number, number] | undefined {
  const m = /^(?:(\d+)y)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(cell);
  if (!m || cell === '') return undefined;
  const units = [365 * 86_400, 86_400, 3_600, 60, 1];
  const parts = m.slice(1).map((p) => (p === undefined ? undefined : Number(p)));
  const lo = parts.reduce<number>((sum, p, i) => sum + (p ?? 0) * units[i]!, 0);
  // The smallest unit printed is the precision: `10m` is any age from 10m0s to 10m59s.
  const finest = units[parts.reduce<number>((last, p, i) => (p === undefined ? last : i), 0)]!;
  return [lo, lo + finest];
}

export interface MaskedTable {
  /** The text with each AGE cell (and the padding after it, where it is kubectl's) as `<age>`. */
  text: string;
  /** The AGE cells masked, in order. */
  ages: string[];
}

/**
 * Masks the AGE column of every table in `text` (a table: a header line holding an `AGE` column at
 * the start of the text or after an empty line, and its rows up to the next empty line). A cell that
 * is no age, or padding that is not kubectl's, is left as it is, so it still shows in a comparison.
 */
export function maskAges(text: string): MaskedTable {
  const lines = text.split('\n');
  const ages: string[] = [];
  for (let start = 0; start < lines.length; ) {
    let end = start;
    while (end < lines.length && lines[end] !== '') end++;
    const at = /(?<=^| {2})AGE(?= {2}|$)/.exec(lines[start] ?? '');
    if (at && end > start) {
      const col = at.index;
      const last = !/\S/.test(lines[start]!.slice(col + 3));
      const cells = lines.slice(start, end).map((l) => (col === 0 || l[col - 1] === ' ' ? /^\S+/.exec(l.slice(col))?.[0] : undefined));
      // kubectl's tabwriter: the column is its widest cell plus 3 spaces (the next cell may be empty).
      const width = Math.max(...cells.map((c) => c?.length ?? 0)) + 3;
      cells.forEach((cell, i) => {
        if (cell === undefined || (i > 0 && !ageRange(cell))) return;
        const line = lines[start + i]!;
        const aligned = last ? line.length === col + cell.length : line.slice(col, col + width) === cell.padEnd(width);
        if (!aligned) return;
        if (i > 0) ages.push(cell);
        lines[start + i] = line.slice(0, col) + (last ? '<age>' : `<age> ${line.slice(col + width)}`);
      });
    }
    start = end + 1;
  }
  return { text: lines.join('\n'), ages };
}

/**
 * `actual` is `expected` byte for byte, but for AGE cells that may differ by up to `AGE_SKEW_S`
 * (with the columns after them moved as kubectl moves them).
 */
export function assertSameTables(actual: string, expected: string, message?: string): void {
  if (actual === expected) return;
  const a = maskAges(actual);
  const e = maskAges(expected);
  assert.equal(a.text, e.text, `${message ?? 'tables'} (AGE cells masked)`);
  assert.equal(a.ages.length, e.ages.length, message);
  a.ages.forEach((age, i) => {
    const [alo, ahi] = ageRange(age)!;
    const [elo, ehi] = ageRange(e.ages[i]!)!;
    assert.ok(Math.max(alo, elo) - Math.min(ahi, ehi) < AGE_SKEW_S, `${message ?? 'tables'}: AGE ${age} and ${e.ages[i]} are more than ${AGE_SKEW_S}s apart`);
  });
}
