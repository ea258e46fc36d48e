/**
 * `-o name` (kubectl `CR/pkg/printers/name.go`): `kind/name` for the core group, `kind.group/name`
 * otherwise, the kind lower-cased (`pod/a`, `deployment.apps/web`, `crontab.stable.example.com/ct1`).
 */
import { parseGroupVersion } from '../core/gvk.js';
import type { Unstructured } from '../core/unstructured.js';
import { KdynError } from '../core/errors.js';

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

/** The `-o name` lines of a page of objects, as one string (one write per page). */
export function formatNames(items: readonly Unstructured[], fallback?: GroupKind): string {
  let out = '';
  for (const item of items) out += objectName(item, fallback) + '\n';
  return out;
}
