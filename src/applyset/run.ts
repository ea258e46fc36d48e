/**
 * `apply --prune --applyset=...` for one cluster, in kubectl v1.32's order of operations (KEP-3659):
 *
 * 1. The parent is resolved (`[RESOURCE][.GROUP]/NAME`; a custom resource only where its CRD carries
 *    `applyset.kubernetes.io/is-parent-type`), read, and checked: its ID label, its tooling (another
 *    tool's set is refused; `takeover` takes over a set kubectl manages, and only that). Every input object gets the part-of label.
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
import type { Unstructured } from '../core/unstructured.js';
import type { CachedDiscovery } from '../discovery/types.js';
import { invalidateAfterWrites } from '../discovery/invalidation.js';
import type { Clock } from '../core/clock.js';
import { applyManifests, namespaceRule, type ApplyOptions, type ApplyReport } from '../apply/apply.js';
import { assertComplete, type Manifest } from '../apply/manifests.js';
import { declaredKinds } from '../apply/plan.js';
import { KindCache, resolveAll } from '../apply/resolve.js';
import { runBounded } from '../apply/bounded.js';
import { formatGroupKind, labelMember, type RecordedSet } from './spec.js';
import { memberKey, pruneSet, type PruneConflict } from './prune.js';
import { DEFAULT_TOOLING, openParent, updateParent, type ParentDeps, type ParentInfo, type ParentOptions } from './parent.js';
import { deleteMember, listMembers, type PruneResult } from './members.js';

export { readApplySet, type ApplySetView, type PruneResult } from './members.js';
export { DEFAULT_TOOLING, type ParentInfo, type ParentOptions } from './parent.js';

export interface ApplySetDeps extends ParentDeps {
  clock?: Clock;
  /** Invalidated after a CRD or APIService is applied or pruned (as apply does). */
  discovery?: CachedDiscovery;
}


export interface ApplySetOptions extends ParentOptions, Omit<ApplyOptions, 'dryRun'> {
  /** `server`: every write with dryRun=All; `client`: no write (reads only), nothing applied. */
  dryRun?: 'server' | 'client';
  /** Take over a set kubectl manages (tooling `kubectl/<version>`): its tooling annotation is rewritten to kdyn's. Any other tool's set is still refused. */
  takeover?: boolean;
  /** The tooling annotation written (default `kdyn/<version>`). */
  tooling?: string;
  /** Each pruned member (or its failure), in a stable order (group-kind, namespace, name). */
  onPruned?: (p: PruneResult) => void;
}


export interface ApplySetReport {
  parent: ParentInfo;
  /** The input as applied: each object with the set's part-of label. */
  manifests: Manifest[];
  /** Set when kubectl's set was taken over: its former tooling (`kubectl/v1.32.5`). */
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

/**
 * The library entry point: apply plain objects as the ApplySet of `parent` and prune what the set
 * held that `objects` no longer do (`kdyn apply --prune --applyset`; origins in messages are
 * `"input" document N`). Refusals (another tool's set: kubectl's without `takeover`, any other always; a wrong ID; bad input)
 * throw before any write; apply and prune failures are in the report (`complete: false`).
 */
export function applySet(objects: readonly Unstructured[], deps: ApplySetDeps, opts: ApplySetOptions): Promise<ApplySetReport> {
  return applyManifestsWithSet(objects.map((object, i) => ({ source: 'input', document: i + 1, object })), deps, opts);
}

