/**
 * `apply --prune --applyset=...` for one cluster, in kubectl v1.32's order of operations (KEP-3659):
 *
 * 1. The parent is resolved (`[RESOURCE][.GROUP]/NAME`; a custom resource only where its CRD carries
 *    `applyset.kubernetes.io/is-parent-type`), read, and checked: its ID label, its tooling (another
 *    tool's set is refused unless `takeover`). Every input object gets the part-of label.
 * 2. The parent is updated to the union of the group-kinds and namespaces it recorded and those of
 *    the input, so an interrupted run leaks nothing.
 * 3. The objects are applied (../apply/apply.ts). Any failure stops here: nothing is pruned and the
 *    parent keeps the union.
 * 4. Each recorded group-kind is listed with the part-of selector in each recorded namespace (never
 *    elsewhere); what the input does not hold is deleted (a member with a foreign owner is a
 *    conflict, kept). A pruned CRD or APIService invalidates discovery.
 * 5. When everything went, the parent is updated to the input's group-kinds and namespaces.
 *
 * `dryRun: 'server'` sends every write with dryRun=All; `'client'` sends no write at all (reads
 * only: the parent, the member lists) and applies nothing. The I/O is the injected client.
 */
import { KdynError, StatusError } from '../core/errors.js';
import type { Unstructured } from '../core/unstructured.js';
import { gvrString } from '../core/gvk.js';
import { VERSION } from '../core/version.js';
import type { DynamicClient, ResourceClient } from '../dynamic/client.js';
import type { RESTMapper, ResourceMapping } from '../restmapper/types.js';
import type { CachedDiscovery } from '../discovery/types.js';
import { invalidateAfterWrites } from '../discovery/invalidation.js';
import type { Clock } from '../core/clock.js';
import { applyManifests, namespaceRule, type ApplyOptions, type ApplyReport } from '../apply/apply.js';
import { assertComplete, type Manifest } from '../apply/manifests.js';
import { declaredKinds } from '../apply/plan.js';
import { KindCache, resolveAll } from '../apply/resolve.js';
import { runBounded } from '../apply/bounded.js';
import { isApplyConflict } from '../apply/conflict.js';
import {
  ApplySetError,
  PARENT_TYPE_LABEL,
  applySetId,
  checkParent,
  formatGroupKind,
  labelMember,
  memberSelector,
  parentPatch,
  parseGroupKind,
  parseParentRef,
  recordedSet,
  type ParentVerdict,
  type RecordedSet,
} from './spec.js';
import { compareMembers, memberKey, pruneSet, type Member, type PruneConflict } from './prune.js';

export interface ApplySetDeps {
  client: DynamicClient;
  mapper: RESTMapper;
  clock?: Clock;
  /** Invalidated after a CRD or APIService is applied or pruned (as apply does). */
  discovery?: CachedDiscovery;
}

/** The `--applyset` parent: which object, in which namespace. */
export interface ParentOptions {
  /** `[RESOURCE][.GROUP]/NAME` (`configmap/app`, `secrets/app`, `applysets.example.com/app`); no `/`: a Secret. */
  parent: string;
  /** The parent's namespace (a namespaced parent needs one: kubectl takes it from `-n` only). */
  parentNamespace?: string;
}

export interface ApplySetOptions extends ParentOptions, Omit<ApplyOptions, 'dryRun'> {
  /** `server`: every write with dryRun=All; `client`: no write (reads only), nothing applied. */
  dryRun?: 'server' | 'client';
  /** Take over a set another tool (kubectl) manages: its tooling annotation is rewritten to kdyn's. */
  takeover?: boolean;
  /** The tooling annotation written (default `kdyn/<version>`). */
  tooling?: string;
  /** Each pruned member (or its failure), in a stable order (group-kind, namespace, name). */
  onPruned?: (p: PruneResult) => void;
}

export interface PruneResult {
  member: Member;
  dryRun: boolean;
  error?: Error;
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

export interface ApplySetReport {
  parent: ParentInfo;
  /** The input as applied: each object with the set's part-of label. */
  manifests: Manifest[];
  /** Set when another tool's set was taken over: its former tooling ('' when it had none). */
  takenOverFrom?: string;
  /** The apply's report (undefined for a client dry run: nothing is applied). */
  apply?: ApplyReport;
  pruned: PruneResult[];
  conflicts: PruneConflict[];
  /** What the parent records after the run: the input's set, or the union when anything failed. */
  recorded: RecordedSet;
  /** Whether every step succeeded (the parent then records only the input's set). */
  complete: boolean;
}

const BUILTIN_PARENTS = new Set(['/secrets', '/configmaps']);
const FIELD_MANAGER = 'kdyn-applyset';
export const DEFAULT_TOOLING = `kdyn/${VERSION}`;

/**
 * Resolves the parent and reads it: the checks of step 1 (mapping, namespace, a permitted custom
 * resource, the ID and tooling of a parent that exists). Reads only. Throws ApplySetError.
 */
export async function openParent(deps: ApplySetDeps, o: ParentOptions & { takeover?: boolean; tool?: string }): Promise<{ parent: ParentInfo; verdict?: ParentVerdict }> {
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
  const verdict = checkParent(live, { ref: parent.ref, id, tool: toolName(o.tool), takeover: o.takeover === true });
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

function parentHandle(client: DynamicClient, p: Pick<ParentInfo, 'mapping' | 'namespace'>): ResourceClient {
  const h = client.resource(p.mapping.gvr, { namespaced: p.mapping.namespaced });
  return p.namespace ? h.namespace(p.namespace) : h;
}

/** The apply with its set: steps 1 to 5 above. Bad input and refusals throw before any write. */
export async function applyManifestsWithSet(manifests: readonly Manifest[], deps: ApplySetDeps, o: ApplySetOptions): Promise<ApplySetReport> {
  assertComplete(manifests);
  const tooling = o.tooling ?? DEFAULT_TOOLING;
  const { parent, verdict } = await openParent(deps, { ...o, tool: tooling });
  const labelled = manifests.map((m) => ({ ...m, object: structuredClone(m.object) }));
  for (const m of labelled) labelMember(m.object, parent.id);
  // Where each object goes (its kind and namespace), as apply will place it; bad input throws here.
  const resolved = await resolveAll(labelled, new KindCache(deps.mapper), declaredKinds(labelled.map((m) => m.object)), namespaceRule(o), undefined, 'keep');
  const kept = new Set<string>();
  const inputSet: RecordedSet = { groupKinds: [], namespaces: [] };
  resolved.forEach((r, i) => {
    const obj = labelled[i]!.object;
    const gk = { group: String(obj.apiVersion).includes('/') ? String(obj.apiVersion).split('/')[0]! : '', kind: String(obj.kind) };
    const namespace = 'error' in r ? (obj.metadata?.namespace ?? '') : (r.namespace ?? '');
    inputSet.groupKinds.push(formatGroupKind(gk));
    if (namespace) inputSet.namespaces.push(namespace);
    kept.add(memberKey({ ...gk, namespace, name: String(obj.metadata?.name) }));
  });
  const union: RecordedSet = { groupKinds: [...parent.recorded.groupKinds, ...inputSet.groupKinds], namespaces: [...parent.recorded.namespaces, ...inputSet.namespaces] };
  const report: ApplySetReport = { parent, manifests: labelled, takenOverFrom: verdict?.kind === 'takeover' ? verdict.from : undefined, pruned: [], conflicts: [], recorded: union, complete: false };
  const write = o.dryRun !== 'client';
  const dryRun = o.dryRun === 'server';

  // 2. The union first: interrupted anywhere after this, no object is left outside the set.
  if (write) await updateParent(deps.client, parent, union, { tooling, dryRun, force: verdict?.kind === 'takeover', validation: o.fieldValidation });

  // 3. Apply; any failure ends the run here (a failed apply prunes nothing).
  if (o.dryRun !== 'client') {
    report.apply = await applyManifests(labelled, deps, { ...o, dryRun });
    if (report.apply.failed + report.apply.unknown + report.apply.skipped > 0 || report.apply.interrupted) return report;
  }
  if (o.signal?.aborted) return report;

  // 4. Prune: the recorded kinds, in the recorded namespaces only.
  const members = await listMembers(deps, parent);
  const { prune, conflicts } = pruneSet(members, kept, parent.live?.metadata?.uid);
  report.conflicts = conflicts;
  const results: PruneResult[] = new Array(prune.length);
  const notStarted = await runBounded(prune.map((_, i) => i), o.concurrency ?? 8, async (i) => {
    results[i] = await deleteMember(deps.client, prune[i]!, o.dryRun);
  }, () => o.signal?.aborted === true);
  report.pruned = results.filter((r): r is PruneResult => r !== undefined);
  for (const r of report.pruned) o.onPruned?.(r);
  if (deps.discovery && !o.dryRun) invalidateAfterWrites(deps.discovery, report.pruned.filter((r) => !r.error).map((r) => r.member.object));
  if (notStarted.length > 0 || conflicts.length > 0 || report.pruned.some((r) => r.error)) return report;

  // 5. Everything went: the parent records the input's set only.
  if (write) await updateParent(deps.client, parent, inputSet, { tooling, dryRun, force: false, validation: o.fieldValidation });
  report.recorded = { groupKinds: sortedUnique(inputSet.groupKinds), namespaces: sortedUnique(inputSet.namespaces) };
  report.complete = true;
  return report;
}

function sortedUnique(v: string[]): string[] {
  return [...new Set(v)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The parent's server-side apply (field manager `kdyn-applyset`); a conflict is retried with force, as kubectl does. */
async function updateParent(client: DynamicClient, parent: ParentInfo, set: RecordedSet, o: { tooling: string; dryRun: boolean; force: boolean; validation?: ApplyOptions['fieldValidation'] }): Promise<void> {
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

/**
 * The set's members on the server: each recorded group-kind listed with the part-of selector, in
 * each recorded namespace (namespaced kinds) or cluster-wide. A recorded kind the server no longer
 * maps is an error, as in kubectl (its objects cannot be told apart from nothing).
 */
export async function listMembers(deps: Pick<ApplySetDeps, 'client' | 'mapper'>, parent: Pick<ParentInfo, 'id' | 'recorded' | 'ref'>): Promise<Member[]> {
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

async function deleteMember(client: DynamicClient, m: Member, dryRun: ApplySetOptions['dryRun']): Promise<PruneResult> {
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

export type { ParentVerdict };
export { ApplySetError };

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
export async function readApplySet(deps: Pick<ApplySetDeps, 'client' | 'mapper'>, o: ParentOptions): Promise<ApplySetView> {
  const { parent } = await openParent(deps, { ...o, takeover: true });
  if (!parent.live) throw new ApplySetError(`ApplySet parent object ${JSON.stringify(parent.ref)} not found${parent.namespace ? ` in namespace ${JSON.stringify(parent.namespace)}` : ''}`);
  const members = await listMembers(deps, parent);
  members.sort(compareMembers);
  return { parent, tooling: parent.live.metadata?.annotations?.['applyset.kubernetes.io/tooling'] ?? '', members };
}

/**
 * The library entry point: apply plain objects as the ApplySet of `parent` and prune what the set
 * held that `objects` no longer do (`kdyn apply --prune --applyset`; origins in messages are
 * `"input" document N`). Refusals (another tool's set without `takeover`, a wrong ID, bad input)
 * throw before any write; apply and prune failures are in the report (`complete: false`).
 */
export function applySet(objects: readonly Unstructured[], deps: ApplySetDeps, opts: ApplySetOptions): Promise<ApplySetReport> {
  return applyManifestsWithSet(objects.map((object, i) => ({ source: 'input', document: i + 1, object })), deps, opts);
}
