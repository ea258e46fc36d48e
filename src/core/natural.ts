/**
 * Natural order for names with numbers in them: `f1, f2, f10` (not `f1, f10, f2`), `node-9` before
 * `node-10`. Runs of digits compare as numbers (names equal but for leading zeros: the one with fewer
 * first), everything else by UTF-16 code unit as `Array.prototype.sort` does. Pure.
 */
const RUNS = /\d+|\D+/g;

export function naturalCompare(a: string, b: string): number {
  if (a === b) return 0;
  const x = a.match(RUNS) ?? [];
  const y = b.match(RUNS) ?? [];
  /** Runs of equal value with more leading zeros in one: decides only when all else is equal. */
  let zeros = 0;
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    if (isDigit(p) && isDigit(q)) {
      const u = p.replace(/^0+(?=\d)/, '');
      const v = q.replace(/^0+(?=\d)/, '');
      if (u.length !== v.length) return u.length - v.length;
      if (u !== v) return u < v ? -1 : 1;
      zeros ||= p.length - q.length;
      continue;
    }
    return p < q ? -1 : 1;
  }
  return x.length - y.length || zeros || (a < b ? -1 : 1);
}

function isDigit(run: string): boolean {
  const c = run.charCodeAt(0);
  return c >= 48 && c <= 57;
}
