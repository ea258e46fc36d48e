/**
 * Waiting for objects to reach a state (kubectl wait's `--for` forms), for `kdyn watch --for` and
 * library users: parsing, evaluation on every event, and the text of the last state at the end.
 * Pure; the watching is the caller's.
 * - `delete`: no selected object is left;
 * - `create`: at least one exists;
 * - `condition=NAME[=VALUE]`: `.status.conditions[type=NAME].status` is VALUE (default True;
 *   type and value compared case-insensitively, as kubectl: ./conditions.ts);
 * - `jsonpath={EXPR}[=VALUE]`: the expression yields VALUE (as kubectl formats it), or anything
 *   when no value is given.
 * `--for` may repeat: every condition must hold (kubectl wait takes one; kubernetes/kubernetes#95759).
 * The report at the end is worded as kubectl wait's, which scripts grep (`configmap/x condition met`
 * on stdout; `error: timed out waiting for the condition on configmaps/x` on stderr).
 * The --timeout that goes with it is read by the CLI (src/cli/wait-timeout.ts).
 */
import { UsageError } from '../core/errors.js';
import type { Unstructured } from '../core/unstructured.js';
import { evaluatePath, formatGoValue } from '../jsonpath/index.js';
import { objectName, type GroupKind } from '../core/object-name.js';
import { findCondition, hasCondition } from './conditions.js';

/** Every `--for` given; `delete` cannot be combined with another condition (it never could hold). */
export function parseWaitFors(specs: readonly string[]): WaitCondition[] {
  const conds = specs.map(parseWaitFor);
  if (conds.length > 1 && conds.some((c) => c.kind === 'delete')) throw new UsageError('--for delete cannot be combined with another --for: a deleted object satisfies no other condition');
  return conds;
}

export type WaitCondition =
  | { kind: 'delete' }
  | { kind: 'create' }
  | { kind: 'condition'; type: string; status: string }
  | { kind: 'jsonpath'; expr: string; value?: string };

export function parseWaitFor(spec: string): WaitCondition {
  const s = spec.trim();
  if (s.toLowerCase() === 'delete') return { kind: 'delete' };
  if (s.toLowerCase() === 'create') return { kind: 'create' };
  const lower = s.toLowerCase();
  if (lower.startsWith('condition=')) {
    const rest = s.slice('condition='.length);
    const eq = rest.indexOf('=');
    const type = eq < 0 ? rest : rest.slice(0, eq);
    const status = eq < 0 ? 'True' : rest.slice(eq + 1);
    if (!type || !status) throw new UsageError(`--for: condition needs a name: condition=NAME[=VALUE] (got ${JSON.stringify(spec)})`);
    return { kind: 'condition', type, status };
  }
  if (lower.startsWith('jsonpath=')) {
    const rest = s.slice('jsonpath='.length);
    let expr = rest;
    let value: string | undefined;
    if (rest.startsWith('{')) {
      const close = rest.lastIndexOf('}');
      if (close < 0) throw new UsageError(`--for: unclosed JSONPath expression in ${JSON.stringify(spec)}`);
      expr = rest.slice(0, close + 1);
      const after = rest.slice(close + 1);
      if (after !== '') {
        if (!after.startsWith('=')) throw new UsageError(`--for: expected "=VALUE" after ${expr} in ${JSON.stringify(spec)}`);
        value = after.slice(1);
      }
    } else {
      const eq = rest.indexOf('=');
      if (eq >= 0) {
        expr = rest.slice(0, eq);
        value = rest.slice(eq + 1);
      }
    }
    if (expr === '' || expr === '{}') throw new UsageError(`--for: jsonpath needs an expression: jsonpath={.status.phase}=Running (got ${JSON.stringify(spec)})`);
    try {
      evaluatePath(expr, {});
    } catch (e) {
      throw new UsageError(`--for: invalid JSONPath ${JSON.stringify(expr)}: ${(e as Error).message}`);
    }
    return { kind: 'jsonpath', expr, value };
  }
  throw new UsageError(`--for: unrecognized condition ${JSON.stringify(spec)}: use delete, create, condition=NAME[=VALUE] or jsonpath={EXPR}[=VALUE]`);
}

/** Whether the selected objects (the watch's current view) satisfy every condition. */
export function allSatisfyAll(conds: readonly WaitCondition[], objects: readonly Unstructured[]): boolean {
  return conds.every((c) => allSatisfy(c, objects));
}

/** Whether the selected objects (the watch's current view) satisfy the condition. */
export function allSatisfy(cond: WaitCondition, objects: readonly Unstructured[]): boolean {
  if (cond.kind === 'delete') return objects.length === 0;
  if (objects.length === 0) return false;
  return cond.kind === 'create' || objects.every((o) => satisfies(cond, o));
}

export function satisfies(cond: WaitCondition, obj: Unstructured): boolean {
  switch (cond.kind) {
    case 'delete':
      return false;
    case 'create':
      return true;
    case 'condition': {
      return hasCondition(obj, cond.type, cond.status, 'fold');
    }
    case 'jsonpath': {
      const found = evaluatePath(cond.expr, obj);
      if (cond.value === undefined) return found.length > 0;
      return found.length === 1 && isScalar(found[0]) && formatGoValue(found[0]) === cond.value;
    }
  }
}

/** What an object shows for the condition, for the line printed at a timeout. */
export function observed(cond: WaitCondition, obj: Unstructured): string {
  switch (cond.kind) {
    case 'delete':
      return `still exists (resourceVersion ${obj.metadata?.resourceVersion ?? '?'})`;
    case 'create':
      return 'exists';
    case 'condition': {
      const c = findCondition(obj, cond.type, 'fold');
      return c ? `condition ${cond.type}=${String(c.status)}${c.reason ? ` (${String(c.reason)})` : ''}` : `no condition ${cond.type}`;
    }
    case 'jsonpath': {
      const found = evaluatePath(cond.expr, obj);
      if (found.length === 0) return `${cond.expr} not found`;
      return `${cond.expr}=${found.map((v) => formatGoValue(v)).join(' ')}`;
    }
  }
}

function isScalar(v: unknown): boolean {
  return v === null || typeof v !== 'object';
}

/** One watched resource (one name, or a selector) as the wait saw it. */
export interface WaitSubject {
  /** The resource, without its group, as kubectl wait names objects (`widgets/w3`). */
  resource: string;
  gk: GroupKind;
  name?: string;
  /** The objects as they are now. */
  objects: readonly Unstructured[];
  /** Objects seen during the wait and gone since, in the order seen (what `--for delete` waited for). */
  gone: readonly Unstructured[];
}

/** kubectl wait's stdout: `kind[.group]/name condition met` per object that satisfies every condition. */
export function metLines(conds: readonly WaitCondition[], subjects: readonly WaitSubject[]): string {
  let text = '';
  for (const s of subjects) {
    // An object already gone when the wait began prints nothing, as kubectl's.
    const met = conds[0]?.kind === 'delete' ? s.gone : s.objects.filter((o) => conds.every((c) => satisfies(c, o)));
    for (const o of met) text += `${objectName(o, s.gk)} condition met\n`;
  }
  return text;
}

/**
 * The wait ended unmet (`checkedOnce`: --timeout 0): the last state of each object that does not
 * satisfy every condition (stdout, kdyn's addition) and kubectl's error for each (stderr): one line
 * `error: timed out waiting for the condition on configmaps/x`, or several without `error: `, as
 * kubectl prints an aggregate of errors.
 */
export function unmetReport(conds: readonly WaitCondition[], subjects: readonly WaitSubject[], checkedOnce: boolean): { stdout: string; stderr: string } {
  let stdout = '';
  const names: string[] = [];
  for (const s of subjects) {
    if (s.objects.length === 0 && conds[0]?.kind !== 'delete') {
      const label = s.name !== undefined ? `${s.resource}/${s.name}` : s.resource;
      stdout += `${label}: not found\n`;
      names.push(label);
    }
    for (const o of s.objects) {
      const unmet = conds.filter((c) => !satisfies(c, o));
      if (unmet.length === 0) continue;
      stdout += `${objectName(o, s.gk)}: ${unmet.map((c) => observed(c, o)).join('; ')}\n`;
      names.push(`${s.resource}/${o.metadata?.name ?? ''}`);
    }
  }
  const lines = names.map((n) => (checkedOnce ? `condition not met for ${n}` : `timed out waiting for the condition on ${n}`));
  const stderr = lines.length === 1 ? `error: ${lines[0]}\n` : lines.map((l) => `${l}\n`).join('');
  return { stdout, stderr };
}
