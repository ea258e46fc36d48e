/**
 * An object's name as kubectl writes it (`CR/pkg/printers/name.go`): `kind/name` for the core group,
 * `kind.group/name` otherwise, the kind lower-cased (`pod/a`, `deployment.apps/web`,
 * `crontab.stable.example.com/ct1`). `-o name` prints it; `watch --for` names what it waited for.
 */
import { parseGroupVersion } from './gvk.js';
import type { Unstructured } from './unstructured.js';
import { KdynError } from './errors.js';

export interface GroupKind {
  group: string;
  kind: string;
}

/** `kind[.group]` lower-cased kind (the prefix kubectl puts before `/name`). */
export function groupKindPrefix(gk: GroupKind): string {
  const kind = gk.kind.toLowerCase();
  return gk.group ? `${kind}.${gk.group}` : kind;
}

/** The `-o name` line of one object (without the newline). `fallback` fills a missing apiVersion/kind. */
export function objectName(obj: Unstructured, fallback?: GroupKind): string {
  const kind = typeof obj.kind === 'string' && obj.kind ? obj.kind : fallback?.kind;
  const group = typeof obj.apiVersion === 'string' && obj.apiVersion ? parseGroupVersion(obj.apiVersion).group : fallback?.group ?? '';
  const name = obj.metadata?.name || '<unknown>';
  if (!kind) throw new KdynError(`missing kind for resource with name ${name}`);
  return `${groupKindPrefix({ group, kind })}/${name}`;
}
