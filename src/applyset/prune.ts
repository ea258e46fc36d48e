/**
 * Which members of a set go, pure: the objects listed with the set's part-of label (each recorded
 * group-kind in each recorded namespace), minus those this apply wrote. A member another object
 * owns (an ownerReference to anything but the parent) is a conflict, never pruned: its owner, not
 * this set, decides its life. The order is kubectl's output order made stable: by group-kind, then
 * namespace, then name.
 */
import type { Unstructured } from '../core/unstructured.js';
import type { GroupVersionResource } from '../core/gvk.js';
import { groupKindPrefix } from '../core/object-name.js';

/** One object of the set on the server. */
export interface Member {
  group: string;
  kind: string;
  /** '' for a cluster-scoped object. */
  namespace: string;
  name: string;
  object: Unstructured;
  /** Where it was listed (and is deleted). */
  gvr: GroupVersionResource;
  namespaced: boolean;
}

/** A member that is not pruned because something else owns it. */
export interface PruneConflict {
  member: Member;
  /** `ReplicaSet "web-5d4"` (the owners but the parent). */
  owners: string[];
}

/** The identity apply and prune compare: group, kind, namespace, name. */
export function memberKey(m: { group: string; kind: string; namespace: string; name: string }): string {
  return `${m.group}\u0000${m.kind}\u0000${m.namespace}\u0000${m.name}`;
}

/**
 * The members to prune and the conflicts. `kept`: the keys of the objects of this apply (what the
 * input holds); `parentUid`: the parent's uid (an owner reference to it is the set's own).
 */
export function pruneSet(members: readonly Member[], kept: ReadonlySet<string>, parentUid: string | undefined): { prune: Member[]; conflicts: PruneConflict[] } {
  const prune: Member[] = [];
  const conflicts: PruneConflict[] = [];
  for (const m of [...members].sort(compareMembers)) {
    if (kept.has(memberKey(m))) continue;
    const owners = (m.object.metadata?.ownerReferences ?? []).filter((r) => !parentUid || r.uid !== parentUid);
    if (owners.length > 0) conflicts.push({ member: m, owners: owners.map((r) => `${String(r.kind)} ${JSON.stringify(String(r.name))}`) });
    else prune.push(m);
  }
  return { prune, conflicts };
}

/** group-kind, then namespace, then name. */
export function compareMembers(a: Member, b: Member): number {
  return cmp(groupKindPrefix(a), groupKindPrefix(b)) || cmp(a.namespace, b.namespace) || cmp(a.name, b.name);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `configmap/b`, `deployment.apps/d`: how kubectl names a pruned object. */
export function memberRef(m: Pick<Member, 'group' | 'kind' | 'name'>): string {
  return `${groupKindPrefix(m)}/${m.name}`;
}

/** A conflict as one line for stderr. */
export function conflictLine(c: PruneConflict): string {
  const where = c.member.namespace ? ` in namespace ${JSON.stringify(c.member.namespace)}` : '';
  return `error: not pruning ${memberRef(c.member)}${where}: it is owned by ${c.owners.join(', ')}, outside the ApplySet (remove its ${'applyset.kubernetes.io/part-of'} label or its owner reference)`;
}
