/**
 * An ApplySet's parent on the server: resolved from `[RESOURCE][.GROUP]/NAME`, read and checked
 * before anything is written (its ID label, its tooling, a permitted custom resource type), and
 * updated by server-side apply with the set's labels and annotations (field manager
 * `kdyn-applyset`). The checks themselves are ./spec.ts's.
 */
import { StatusError } from '../core/errors.js';
import type { Unstructured } from '../core/unstructured.js';
import { gvrString } from '../core/gvk.js';
import { VERSION } from '../core/version.js';
import type { DynamicClient, ResourceClient } from '../dynamic/client.js';
import type { RESTMapper, ResourceMapping } from '../restmapper/types.js';
import type { ApplyOptions } from '../apply/apply.js';
import { isApplyConflict } from '../apply/conflict.js';
import { ApplySetError, PARENT_TYPE_LABEL, applySetId, checkParent, formatGroupKind, parentPatch, parseParentRef, recordedSet, type ParentVerdict, type RecordedSet } from './spec.js';

/** What reading and writing a parent needs: the dynamic client and the RESTMapper. */
export interface ParentDeps {
  client: DynamicClient;
  mapper: RESTMapper;
}

/** The `--applyset` parent: which object, in which namespace. */
export interface ParentOptions {
  /** `[RESOURCE][.GROUP]/NAME` (`configmap/app`, `secrets/app`, `applysets.example.com/app`); no `/`: a Secret. */
  parent: string;
  /** The parent's namespace (a namespaced parent needs one: kubectl takes it from `-n` only). */
  parentNamespace?: string;
}


/** The parent as resolved and found. */
export interface ParentInfo {
  /** kubectl's form in messages: `configmaps./app`. */
  ref: string;
  mapping: ResourceMapping;
  name: string;
  /** '' for a cluster-scoped parent. */
  namespace: string;
  id: string;
  /** The live parent (undefined: it does not exist yet). */
  live?: Unstructured;
  /** What the live parent records (empty for a new parent). */
  recorded: RecordedSet;
}


const BUILTIN_PARENTS = new Set(['/secrets', '/configmaps']);
const FIELD_MANAGER = 'kdyn-applyset';
export const DEFAULT_TOOLING = `kdyn/${VERSION}`;

/**
 * Resolves the parent and reads it: the checks of step 1 (mapping, namespace, a permitted custom
 * resource, the ID and tooling of a parent that exists). Reads only. Throws ApplySetError.
 */
export async function openParent(deps: ParentDeps, o: ParentOptions & { takeover?: boolean; readOnly?: boolean; tool?: string }): Promise<{ parent: ParentInfo; verdict?: ParentVerdict }> {
  const ref = parseParentRef(o.parent);
  let mapping: ResourceMapping;
  try {
    mapping = await deps.mapper.resourceFor(ref.resource);
  } catch (e) {
    throw new ApplySetError(`invalid parent reference ${JSON.stringify(o.parent)}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const builtin = BUILTIN_PARENTS.has(`${mapping.gvr.group}/${mapping.gvr.resource}`);
  const namespace = mapping.namespaced ? (o.parentNamespace ?? '') : '';
  if (mapping.namespaced && !namespace) throw new ApplySetError('namespace is required to use namespace-scoped ApplySet');
  if (!builtin) await assertParentType(deps.client, mapping);
  const id = applySetId({ name: ref.name, namespace, kind: mapping.gvk.kind, group: mapping.gvk.group });
  const parent: ParentInfo = { ref: `${mapping.gvr.resource}.${mapping.gvr.group}/${ref.name}`, mapping, name: ref.name, namespace, id, recorded: { groupKinds: [], namespaces: namespace ? [namespace] : [] } };
  let live: Unstructured;
  try {
    live = await parentHandle(deps.client, parent).get(ref.name);
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 404)) throw new ApplySetError(`failed to fetch ApplySet parent object ${JSON.stringify(parent.ref)}: ${e instanceof Error ? e.message : String(e)}`);
    if (!builtin) throw new ApplySetError('custom resource ApplySet parents cannot be created automatically');
    return { parent };
  }
  const verdict = checkParent(live, { ref: parent.ref, id, tool: toolName(o.tool), takeover: o.takeover === true, readOnly: o.readOnly });
  const recorded = recordedSet(live.metadata?.annotations ?? {}, namespace);
  if (recorded.groupResources) {
    // The deprecated annotation (resources): mapped to kinds, rewritten as kinds on the next update.
    for (const gr of recorded.groupResources) recorded.groupKinds.push(formatGroupKind((await deps.mapper.resourceFor(gr)).gvk));
  }
  return { parent: { ...parent, live, recorded: { groupKinds: recorded.groupKinds, namespaces: recorded.namespaces } }, verdict };
}

function toolName(tooling = DEFAULT_TOOLING): string {
  const slash = tooling.lastIndexOf('/');
  return slash < 0 ? tooling : tooling.slice(0, slash);
}

/** A custom resource parent: its CRD must carry the is-parent-type label (kubectl's check and message). */
async function assertParentType(client: DynamicClient, mapping: ResourceMapping): Promise<void> {
  const crds = await client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }, { namespaced: false }).listAll({ labelSelector: PARENT_TYPE_LABEL });
  const wanted = `${mapping.gvr.resource}.${mapping.gvr.group}`;
  if (!crds.items.some((c) => c.metadata?.name === wanted)) {
    throw new ApplySetError(`resource ${JSON.stringify(gvrString(mapping.gvr))} is not permitted as an ApplySet parent (CRD needs ${JSON.stringify(PARENT_TYPE_LABEL)} label)`);
  }
}

export function parentHandle(client: DynamicClient, p: Pick<ParentInfo, 'mapping' | 'namespace'>): ResourceClient {
  const h = client.resource(p.mapping.gvr, { namespaced: p.mapping.namespaced });
  return p.namespace ? h.namespace(p.namespace) : h;
}


/** The parent's server-side apply (field manager `kdyn-applyset`); a conflict is retried with force, as kubectl does. */
export async function updateParent(client: DynamicClient, parent: ParentInfo, set: RecordedSet, o: { tooling: string; dryRun: boolean; force: boolean; validation?: ApplyOptions['fieldValidation'] }): Promise<void> {
  const body = parentPatch({ apiVersion: apiVersionOf(parent.mapping), kind: parent.mapping.gvk.kind, name: parent.name, namespace: parent.namespace, id: parent.id, tooling: o.tooling, ...set });
  const send = (force: boolean) => parentHandle(client, parent).patch(parent.name, JSON.stringify(body), 'apply', { fieldManager: FIELD_MANAGER, force, dryRun: o.dryRun, fieldValidation: o.validation ?? 'Strict' });
  try {
    await send(o.force).catch((e: unknown) => {
      if (!o.force && isApplyConflict(e)) return send(true);
      throw e;
    });
  } catch (e) {
    throw new ApplySetError(`failed to update ApplySet: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

function apiVersionOf(m: ResourceMapping): string {
  return m.gvk.group ? `${m.gvk.group}/${m.gvk.version}` : m.gvk.version;
}

