/**
 * The one reader of `.status.conditions` (metav1.Condition lists), for `watch --for condition=...`
 * and `apply --wait`. Two matching rules, each as the kubectl code it follows:
 * - `fold`: type and status compared case-insensitively, as kubectl wait (`strings.EqualFold` in
 *   `kubectl/pkg/cmd/wait/wait.go`, ConditionalWait.checkCondition);
 * - `exact`: as `kubectl rollout status` and the controllers' helpers (`GetDeploymentCondition`
 *   compares `c.Type == condType`), which `apply --wait` follows.
 * Pure; entries that are not objects are skipped.
 */
import type { Unstructured } from '../core/unstructured.js';

/** One entry of `.status.conditions`, as read (fields unchecked). */
export type Condition = Readonly<Record<string, unknown>> & {
  readonly type?: unknown;
  readonly status?: unknown;
  readonly reason?: unknown;
  readonly message?: unknown;
  readonly observedGeneration?: unknown;
};

/** `exact`: kubectl rollout status; `fold`: kubectl wait (case-insensitive). */
export type ConditionMatch = 'exact' | 'fold';

/** The object's `.status.conditions` entries that are objects, in order ([] when there are none). */
export function statusConditions(obj: Unstructured): Condition[] {
  const conditions = (obj.status as { conditions?: unknown } | undefined)?.conditions;
  if (!Array.isArray(conditions)) return [];
  return conditions.filter((c): c is Condition => !!c && typeof c === 'object');
}

/** The first condition of the given type. */
export function findCondition(obj: Unstructured, type: string, match: ConditionMatch = 'exact'): Condition | undefined {
  return statusConditions(obj).find((c) => sameText(c.type, type, match));
}

/** Whether the object has a condition of `type` whose status is `status` (kubectl wait: `--for condition=TYPE=STATUS`). */
export function hasCondition(obj: Unstructured, type: string, status: string, match: ConditionMatch = 'exact'): boolean {
  const c = findCondition(obj, type, match);
  return c !== undefined && sameText(c.status ?? '', status, match);
}

function sameText(value: unknown, want: string, match: ConditionMatch): boolean {
  const s = String(value ?? '');
  return match === 'exact' ? s === want : s.toLowerCase() === want.toLowerCase();
}
