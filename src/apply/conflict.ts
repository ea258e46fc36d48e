/**
 * One-line descriptions of apply failures. A server-side apply conflict (409, reason Conflict,
 * causes of reason FieldManagerConflict: `AM/pkg/util/managedfields/internal/conflict.go`) names
 * every other manager and the fields it owns, and says how to go on: `--force-conflicts` takes the
 * fields over; when one other applier owns them all (an Apply manager: `conflict with "kubectl"`,
 * without kube-apiserver's ` using v1` of an Update manager), `--field-manager=NAME` applies as it.
 * The typical case: kdyn's default manager is `kdyn`, and the object was last applied by
 * `kubectl apply --server-side` (manager `kubectl`). The server's own message is multi-line from two
 * conflicts on.
 */
import { oneLine, StatusError } from '../core/errors.js';

export const FORCE_HINT = 'rerun with --force-conflicts to take these fields over';

/** Whether `e` is a server-side apply conflict. */
export function isApplyConflict(e: unknown): e is StatusError {
  return e instanceof StatusError && e.code === 409 && (e.status.details?.causes ?? []).some((c) => c.reason === 'FieldManagerConflict');
}

/** `Apply failed with 2 conflicts: conflict with "m1": .a, .b; conflict with "m2" using v1: .c` */
export function conflictSummary(e: StatusError): string {
  const causes = (e.status.details?.causes ?? []).filter((c) => c.reason === 'FieldManagerConflict');
  const byManager = new Map<string, string[]>();
  for (const c of causes) {
    const who = c.message ?? 'conflict';
    const fields = byManager.get(who) ?? [];
    if (c.field) fields.push(c.field);
    byManager.set(who, fields);
  }
  const parts = [...byManager].map(([who, fields]) => (fields.length ? `${who}: ${fields.join(', ')}` : who));
  return `Apply failed with ${causes.length} conflict${causes.length === 1 ? '' : 's'}: ${parts.join('; ')}`;
}

/** The one applier that owns every conflicting field (`kubectl`), if there is one. */
export function soleApplier(e: StatusError): string | undefined {
  const managers = new Set((e.status.details?.causes ?? []).filter((c) => c.reason === 'FieldManagerConflict').map((c) => c.message ?? ''));
  if (managers.size !== 1) return undefined;
  // `conflict with "kubectl"`; an Update manager reads `conflict with "x" using v1` and is not an applier.
  const quoted = /^conflict with ("[\w.:/@-]+")$/.exec([...managers][0]!)?.[1];
  return quoted ? (JSON.parse(quoted) as string) : undefined;
}

/** How to go on after a conflict: take the fields over, or apply as the applier that owns them. */
function conflictHint(e: StatusError): string {
  const owner = soleApplier(e);
  return owner ? `${FORCE_HINT}, or with --field-manager=${owner} to apply as ${JSON.stringify(owner)}, which owns them` : FORCE_HINT;
}

/** The server's (or client's) reason for one failed object, on one line, without the `Error from server` prefix. */
export function failureReason(e: unknown): string {
  if (isApplyConflict(e)) return `${conflictSummary(e)} (${conflictHint(e)})`;
  if (e instanceof StatusError) return oneLine(e.status.message || e.message);
  return oneLine(e instanceof Error ? e.message : String(e));
}
