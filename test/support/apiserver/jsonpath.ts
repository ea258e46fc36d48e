/**
 * The JSONPath subset CRD additionalPrinterColumns use: `.a.b`, `.a[0]`, `.a['k.x']`, `.a[*]`,
 * `.a[?(@.type=="Ready")].status`. Returns every match (the printer uses the first).
 */
import type { Obj } from './types.js';

type Step = { field: string } | { index: number } | { all: true } | { filter: { path: string[]; op: '==' | '!='; value: unknown } };

function parse(expr: string): Step[] {
  let s = expr.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1);
  if (s.startsWith('$')) s = s.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '.') {
      i++;
      let j = i;
      while (j < s.length && s[j] !== '.' && s[j] !== '[') j++;
      if (j > i) steps.push({ field: s.slice(i, j) });
      i = j;
    } else if (c === '[') {
      const end = s.indexOf(']', i);
      if (end < 0) throw new Error(`unclosed [ in ${expr}`);
      const inner = s.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ all: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ field: inner.slice(1, -1) });
      else {
        const m = /^\?\(@((?:\.[\w-]+)+)\s*(==|!=)\s*(.+)\)$/.exec(inner);
        if (!m) throw new Error(`unsupported JSONPath element [${inner}] in ${expr}`);
        let value: unknown = m[3]!.trim();
        if (/^'.*'$|^".*"$/.test(value as string)) value = (value as string).slice(1, -1);
        else if (/^-?\d+(\.\d+)?$/.test(value as string)) value = Number(value);
        else if (value === 'true' || value === 'false') value = value === 'true';
        steps.push({ filter: { path: m[1]!.slice(1).split('.'), op: m[2] as '==' | '!=', value } });
      }
    } else {
      // bare leading field (`spec.x`)
      let j = i;
      while (j < s.length && s[j] !== '.' && s[j] !== '[') j++;
      steps.push({ field: s.slice(i, j) });
      i = j;
    }
  }
  return steps;
}

/** Parses once; the returned function finds every match in an object. Throws on unsupported syntax. */
export function compileJsonPath(expr: string): (obj: unknown) => unknown[] {
  const steps = parse(expr);
  return (obj) => run(steps, obj);
}

export function jsonPathFind(obj: unknown, expr: string): unknown[] {
  return run(parse(expr), obj);
}

function run(steps: Step[], obj: unknown): unknown[] {
  let cur: unknown[] = [obj];
  for (const st of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (v === null || v === undefined) continue;
      if ('field' in st) {
        if (typeof v === 'object' && !Array.isArray(v) && st.field in (v as Obj)) next.push((v as Obj)[st.field]);
      } else if ('index' in st) {
        if (Array.isArray(v)) {
          const k = st.index < 0 ? v.length + st.index : st.index;
          if (k >= 0 && k < v.length) next.push(v[k]);
        }
      } else if ('all' in st) {
        if (Array.isArray(v)) next.push(...v);
        else if (typeof v === 'object') next.push(...Object.values(v as Obj));
      } else {
        if (!Array.isArray(v)) continue;
        for (const item of v) {
          let x: unknown = item;
          for (const p of st.filter.path) x = x && typeof x === 'object' ? (x as Obj)[p] : undefined;
          if ((x === st.filter.value) === (st.filter.op === '==')) next.push(item);
        }
      }
    }
    cur = next;
  }
  return cur;
}
