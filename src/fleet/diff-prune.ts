/**
 * `kdyn diff --prune --applyset=...`: the diff of what `kdyn apply --prune --applyset` of the same
 * input would do (../applyset/): each input object carries the set's part-of label, as that apply
 * sends it, and the set's members on the server that the input no longer holds, less those another
 * object owns (a conflict, never pruned), are shown as deleted through diff's `pruned` seam
 * (../diff/diff.ts). Reads only: the parent and the member lists. A set whose parent does not exist
 * yet has no members.
 */
import type { DynamicClient } from '../dynamic/client.js';
import type { RESTMapper } from '../restmapper/types.js';
import type { Unstructured } from '../core/unstructured.js';
import { parseGroupVersion } from '../core/gvk.js';
import type { Manifest } from '../apply/manifests.js';
import type { ObjectDiff } from '../diff/diff.js';
import { openParent } from '../applyset/parent.js';
import { listMembers } from '../applyset/members.js';
import { memberKey, pruneSet } from '../applyset/prune.js';
import { labelMember } from '../applyset/spec.js';

export interface ApplySetDiff {
  /** The input as the apply would send it: with the set's part-of label (the manifests are changed in place). */
  labelled: Manifest[];
  pruned: (diffed: readonly ObjectDiff[]) => Promise<Unstructured[]>;
}

export async function applySetDiff(deps: { client: DynamicClient; mapper: RESTMapper }, manifests: Manifest[], parent: string, parentNamespace: string): Promise<ApplySetDiff> {
  const { parent: p } = await openParent(deps, { parent, parentNamespace });
  for (const m of manifests) labelMember(m.object, p.id);
  return {
    labelled: manifests,
    pruned: async (diffed) => {
      if (!p.live) return [];
      const members = await listMembers(deps, p);
      const kept = new Set(diffed.map((d) => key((d.merged ?? d.live)!)));
      return pruneSet(members, kept, p.live.metadata?.uid).prune.map((m) => m.object);
    },
  };
}

function key(o: Unstructured): string {
  return memberKey({ group: parseGroupVersion(String(o.apiVersion)).group, kind: String(o.kind), namespace: o.metadata?.namespace ?? '', name: String(o.metadata?.name) });
}
