/**
 * What `kubectl delete` prints for one deleted object (`KC/pkg/cmd/delete/delete.go` PrintObj):
 * `configmap "x" deleted`, `pod "p" force deleted`, ` (dry run)` / ` (server dry run)`, or with
 * `-o name` `configmap/x`. Pure.
 */
import { groupKindPrefix } from '../core/object-name.js';
import type { DryRun } from './delete.js';
import type { DeleteTarget } from './targets.js';

/** One deleted object's line, without the newline. */
export function deletedLine(target: DeleteTarget, o: { dryRun: DryRun; force: boolean; output?: 'name' }): string {
  const kind = groupKindPrefix({ group: target.mapping.gvk.group, kind: target.mapping.gvk.kind });
  if (o.output === 'name') return `${kind}/${target.name}`;
  let operation = o.force ? 'force deleted' : 'deleted';
  if (o.dryRun === 'client') operation += ' (dry run)';
  else if (o.dryRun === 'server') operation += ' (server dry run)';
  return `${kind} "${target.name}" ${operation}`;
}
