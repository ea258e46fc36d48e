/**
 * `--sort-by` (kubectl `KC/pkg/cmd/get/sorter.go`): a relaxed JSONPath evaluated per object (or per
 * Table row's object); the first value found is the key. Numbers compare numerically, strings that
 * are both resource quantities by amount, other strings as Go compares them (kubectl v1.32: `cm10` < `cm2`); objects
 * without the field sort first. Errors when no object has the field, as kubectl.
 */
import { KdynError } from '../core/errors.js';
import type { Table, TableRow } from '../core/table.js';
import type { Unstructured } from '../core/unstructured.js';
import { compileJSONPath, relaxedJSONPathExpression, type JSONPathTemplate } from '../jsonpath/index.js';

import type { Sorter } from './types.js';

export class SortError extends KdynError {}

export type { Sorter } from './types.js';

const MISSING = Symbol('missing');
type Key = unknown | typeof MISSING;

export function createSorter(sortBy: string): Sorter {
  const field = relaxedJSONPathExpression(sortBy);
  const template: JSONPathTemplate = compileJSONPath(field, { allowMissingKeys: true });
  const keyOf = (obj: unknown): Key => {
    const groups = template.findResults(obj);
    return groups.length > 0 && groups[0]!.length > 0 ? groups[0]![0] : MISSING;
  };
  const sortBy2 = <T>(items: T[], get: (t: T) => unknown): void => {
    if (items.length === 0) return;
    const keyed = items.map((item, i) => ({ item, i, key: keyOf(get(item)) }));
    if (!keyed.some((k) => k.key !== MISSING)) throw new SortError(`couldn't find any field with path ${JSON.stringify(field)} in the list of objects`);
    keyed.sort((a, b) => compareKeys(a.key, b.key, field) || a.i - b.i);
    for (let i = 0; i < items.length; i++) items[i] = keyed[i]!.item;
  };
  return {
    field,
    sortObjects: (objs) => sortBy2(objs, (o) => o),
    sortTable: (table) => sortBy2<TableRow>(table.rows, (r) => r.object),
  };
}

function compareKeys(a: Key, b: Key, field: string): number {
  if (a === MISSING) return b === MISSING ? 0 : -1;
  if (b === MISSING) return 1;
  if (a === null && b === null) return 0;
  if (typeof a !== typeof b || a === null || b === null) {
    throw new SortError(`Field ${field} is an unsortable type: cannot compare ${goType(a)} with ${goType(b)}`);
  }
  if (typeof a === 'number') return a < (b as number) ? -1 : a > (b as number) ? 1 : 0;
  if (typeof a === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (typeof a === 'string') {
    const s = b as string;
    const qa = parseQuantity(a);
    const qb = qa === undefined ? undefined : parseQuantity(s);
    if (qa !== undefined && qb !== undefined) return qa < qb ? -1 : qa > qb ? 1 : 0;
    return goStringLess(a, s) ? -1 : goStringLess(s, a) ? 1 : 0;
  }
  throw new SortError(`Field ${field} is an unsortable type: ${goType(a)}`);
}

function goType(v: unknown): string {
  if (v === null) return 'nil';
  if (Array.isArray(v)) return 'slice';
  if (typeof v === 'object') return 'map';
  return typeof v;
}

/**
 * Go's `a < b` on strings (bytewise over UTF-8), as kubectl v1.32's sorter compares strings that are
 * not both quantities: `a1 < a10 < a2` (natural order came to kubectl after v1.32). JavaScript's `<`
 * compares UTF-16 units, which orders differently only above U+D7FF.
 */
export function goStringLess(a: string, b: string): boolean {
  if (!WIDE.test(a) && !WIDE.test(b)) return a < b;
  return Buffer.compare(Buffer.from(a), Buffer.from(b)) < 0;
}
const WIDE = /[\ud800-\uffff]/;

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;
const SUFFIX: Record<string, number> = {
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
  n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
};

/** A Kubernetes resource.Quantity's value (`100m` -> 0.1, `1Gi`), or undefined when `s` is not one. */
export function parseQuantity(s: string): number | undefined {
  const m = QUANTITY.exec(s);
  if (!m) return undefined;
  let v = Number(m[1]);
  if (m[2]) v *= 10 ** Number(m[2].slice(1));
  else if (m[3]) v *= SUFFIX[m[3]]!;
  return v;
}
