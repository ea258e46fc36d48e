/**
 * Label selectors as apimachinery's `labels.Parse` reads them (`-l`): comma-separated requirements
 * `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k` (exists), `!k` (does not exist). A
 * selector matches an object's labels when every requirement holds (`!=` and `notin` also hold for
 * an absent key). Pure.
 */
import { UsageError } from './errors.js';

type Requirement =
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | '!' };

export type LabelSelector = (labels: Readonly<Record<string, string>> | undefined) => boolean;

/** Parses `s` (empty: everything matches); a UsageError naming the selector when it cannot be read. */
export function parseLabelSelector(s: string): LabelSelector {
  const reqs = splitRequirements(s).map((part) => requirement(part.trim(), s));
  return (labels) => reqs.every((r) => holds(r, labels ?? {}));
}

/** Splits at the commas outside parentheses. */
function splitRequirements(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur.trim() !== '' || out.length > 0) out.push(cur);
  return out;
}

const KEY = '[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?';
const VALUE = '([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?';

function requirement(part: string, whole: string): Requirement {
  let m: RegExpExecArray | null;
  if ((m = new RegExp(`^!\\s*(${KEY})$`).exec(part))) return { key: m[1]!, op: '!' };
  if ((m = new RegExp(`^(${KEY})\\s*(==|!=|=)\\s*(${VALUE})$`).exec(part))) return { key: m[1]!, op: m[3] === '!=' ? 'notin' : 'in', values: [m[4]!] };
  if ((m = new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^)]*)\\)$`).exec(part))) {
    const values = m[4]!.split(',').map((v) => v.trim());
    if (values.every((v) => new RegExp(`^${VALUE}$`).test(v))) return { key: m[1]!, op: m[3] as 'in' | 'notin', values };
  }
  if (new RegExp(`^${KEY}$`).test(part)) return { key: part, op: 'exists' };
  throw new UsageError(`the provided selector ${JSON.stringify(whole)} is not valid: unable to parse requirement: ${JSON.stringify(part)}`);
}

function holds(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  switch (r.op) {
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'in':
      return has && r.values.includes(labels[r.key]!);
    case 'notin':
      return !has || !r.values.includes(labels[r.key]!);
  }
}
