/**
 * An ApplySet's members on the server: listed as a prune lists them (each recorded group-kind in
 * each recorded namespace, with the part-of selector), deleted one by one for a prune, and read
 * for `kdyn applyset` (any tool's set: reading mutates nothing).
 */
import { KdynError, StatusError } from '../core/errors.js';
import type { DynamicClient, ResourceClient } from '../dynamic/client.js';
import type { ResourceMapping } from '../restmapper/types.js';
import { ApplySetError, memberSelector, parseGroupKind } from './spec.js';
import { compareMembers, type Member } from './prune.js';
import { openParent, type ParentDeps, type ParentInfo, type ParentOptions } from './parent.js';

export interface PruneResult {
  member: Member;
  dryRun: boolean;
  error?: Error;
}


/**
 * The set's members on the server: each recorded group-kind listed with the part-of selector, in
 * each recorded namespace (namespaced kinds) or cluster-wide. A recorded kind the server no longer
 * maps is an error, as in kubectl (its objects cannot be told apart from nothing).
 */
export async function listMembers(deps: ParentDeps, parent: Pick<ParentInfo, 'id' | 'recorded' | 'ref'>): Promise<Member[]> {
  const selector = memberSelector(parent.id);
  const tasks: Array<{ mapping: ResourceMapping; namespace: string }> = [];
  for (const gkString of parent.recorded.groupKinds) {
    const gk = parseGroupKind(gkString);
    let mapping: ResourceMapping;
    try {
      mapping = await deps.mapper.mappingForKind(gk.group, '', gk.kind);
    } catch (e) {
      throw new ApplySetError(`parsing ApplySet annotation on ${JSON.stringify(parent.ref)}: could not find mapping for kind ${gkString}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (mapping.namespaced) for (const namespace of parent.recorded.namespaces) tasks.push({ mapping, namespace });
    else tasks.push({ mapping, namespace: '' });
  }
  const lists = await Promise.all(
    tasks.map(async ({ mapping, namespace }) => {
      const h = deps.client.resource(mapping.gvr, { namespaced: mapping.namespaced });
      try {
        const list = await (namespace ? h.namespace(namespace) : h).listAll({ labelSelector: selector });
        return list.items.map((object): Member => ({ group: mapping.gvk.group, kind: mapping.gvk.kind, namespace, name: String(object.metadata?.name), object, gvr: mapping.gvr, namespaced: mapping.namespaced }));
      } catch (e) {
        throw new KdynError(`listing ${mapping.gvk.group}/${mapping.gvk.version}, Kind=${mapping.gvk.kind} objects for pruning: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
    }),
  );
  return lists.flat();
}

export async function deleteMember(client: DynamicClient, m: Member, dryRun: 'server' | 'client' | undefined): Promise<PruneResult> {
  if (dryRun === 'client') return { member: m, dryRun: true };
  try {
    await memberHandle(client, m).delete(m.name, { dryRun: dryRun === 'server', propagationPolicy: 'Background' });
    return { member: m, dryRun: dryRun === 'server' };
  } catch (e) {
    // Already gone: what prune wanted.
    if (e instanceof StatusError && e.code === 404) return { member: m, dryRun: dryRun === 'server' };
    return { member: m, dryRun: dryRun === 'server', error: e instanceof Error ? e : new KdynError(String(e)) };
  }
}

/** A member's handle: its resource, as listed. */
function memberHandle(client: DynamicClient, m: Member): ResourceClient {
  const h = client.resource(m.gvr, { namespaced: m.namespaced });
  return m.namespace ? h.namespace(m.namespace) : h;
}


/** A set as found on the server: its parent, the tooling that manages it, and its members. */
export interface ApplySetView {
  parent: ParentInfo;
  /** The parent's tooling annotation (`kubectl/v1.32.5`, `kdyn/0.1.0`). */
  tooling: string;
  members: Member[];
}

/**
 * The members of an existing set (any tool's: reading mutates nothing), listed as a prune would
 * list them: each recorded group-kind in each recorded namespace, with the part-of selector. The
 * parent's ID label is verified first; a missing parent is an error.
 */
export async function readApplySet(deps: ParentDeps, o: ParentOptions): Promise<ApplySetView> {
  const { parent } = await openParent(deps, { ...o, readOnly: true });
  if (!parent.live) throw new ApplySetError(`ApplySet parent object ${JSON.stringify(parent.ref)} not found${parent.namespace ? ` in namespace ${JSON.stringify(parent.namespace)}` : ''}`);
  const members = await listMembers(deps, parent);
  members.sort(compareMembers);
  return { parent, tooling: parent.live.metadata?.annotations?.['applyset.kubernetes.io/tooling'] ?? '', members };
}

