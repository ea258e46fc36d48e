/**
 * What applying would change (kubectl diff `--server-side`, `pkg/cmd/diff/diff.go`): for each
 * object, the live version (a GET, or one LIST for a collection holding many of the objects: apply's
 * read-ahead) and the merged one (a server-side apply with `dryRun=All`: nothing is persisted), with
 * kubectl's retries on a 409 (four tries; a warning before the last). An object whose live version
 * provably stays as it is (./unchanged.ts: this field manager's apply owns exactly its fields, with
 * its values) needs no request with `skipUnchanged: true` (opt in): its merged version is the live one. Kinds are mapped as apply maps
 * them (./../apply/resolve.ts: namespaces filled in, `-n` enforced, an unknown kind refuses the
 * input); an instance of a kind that only a CustomResourceDefinition of the input declares cannot be
 * sent, so it is shown as created, checked against that CRD's schema (./schema.ts); so is an object
 * whose namespace the server does not have yet and the input creates (as the input has it). Objects that
 * would be deleted (a prune) come from the caller's `pruned` and are shown as deleted.
 *
 * The first failure (in input order) stops the run and is thrown, as kubectl stops at its first
 * error. Each result carries kubectl's LIVE and MERGED file texts (./versions.ts) and whether they
 * differ; ./program.ts turns them into the unified diff.
 */
import { KdynError, StatusError } from '../core/errors.js';
import { formatGroupVersion, parseGroupVersion } from '../core/gvk.js';
import type { Unstructured } from '../core/unstructured.js';
import { parseLabelSelector } from '../core/label-selector.js';
import type { DynamicClient, ResourceClient } from '../dynamic/client.js';
import type { RESTMapper } from '../restmapper/types.js';
import { assertComplete, describeOrigin, type Manifest } from '../apply/manifests.js';
import { declaredKinds, objectKey } from '../apply/plan.js';
import { KindCache, resolveAll, type Target } from '../apply/resolve.js';
import { namespaceRule } from '../apply/apply.js';
import { runBounded } from '../apply/bounded.js';
import { getCurrent, LIST_THRESHOLD, prefetchCurrent, type Pending } from '../apply/current.js';
import { checkAgainstSchema, crdVersionSchema } from './schema.js';
import { compareVersions, diffFileName, prepareVersions, type VersionTexts } from './versions.js';
import { appliesAsIs } from './unchanged.js';

export const DEFAULT_DIFF_CONCURRENCY = 8;
/** kubectl diff's tries of one object while its server answers 409 Conflict. */
const MAX_TRIES = 4;

export interface DiffDeps {
  client: DynamicClient;
  mapper: RESTMapper;
}

export interface DiffOptions {
  /** The field manager of the dry-run apply (default `kdyn`, as `kdyn apply`). */
  fieldManager?: string;
  /** `--force-conflicts`: take over fields other managers own. */
  force?: boolean;
  /** Namespace for namespaced objects that have none (default `default`). */
  namespace?: string;
  /** `-n` was given: an object in another namespace is an error. */
  enforceNamespace?: boolean;
  /** `-l`: only the objects whose labels match this selector. */
  selector?: string;
  /** Objects worked on at once (default 8). */
  concurrency?: number;
  /**
   * Objects whose live version already holds exactly the input's fields and values, owned by this
   * field manager's apply (./unchanged.ts), are shown unchanged without a dry-run request (default
   * true; false sends every object).
   */
  skipUnchanged?: boolean;
  /** Keep `metadata.managedFields` in the texts (kubectl's `--show-managed-fields`). */
  showManagedFields?: boolean;
  /**
   * The objects a prune would delete, given the diffed ones (e.g. an ApplySet's members the input no
   * longer holds): each is shown as deleted (its live version against nothing).
   */
  pruned?: (diffed: readonly ObjectDiff[]) => Promise<readonly Unstructured[]>;
  /** Warnings: `klog` ones as kubectl logs them (`... keeps changing, diffing without lock`), `plain` ones as written (`Warning: ...`). */
  onWarning?: (message: string, style: 'klog' | 'plain') => void;
  signal?: AbortSignal;
}

/** `created`: nothing live; `deleted`: nothing merged (pruned); else the merged object `changed` or not. */
export type DiffAction = 'created' | 'changed' | 'unchanged' | 'deleted';

export interface ObjectDiff {
  /** kubectl's file name: `group.version.Kind.namespace.name`. */
  name: string;
  /** Where the object came from (absent for an object that would be deleted). */
  manifest?: Manifest;
  live: Unstructured | null;
  merged: Unstructured | null;
  action: DiffAction;
  /** Whether the LIVE and MERGED texts differ. */
  differs: boolean;
  /** kubectl's LIVE and MERGED file contents (managedFields removed, Secret data masked; encoded when first read). */
  readonly texts: VersionTexts;
  /**
   * Not answered by the server: an instance of a CRD only the input declares (checked against its
   * schema there, not sent), or an object in a namespace only the input creates (as the input has it).
   */
  checkedLocally?: boolean;
}

export interface DiffReport {
  /** In input order, then the objects that would be deleted. */
  objects: ObjectDiff[];
  /** Whether any object differs. */
  differs: boolean;
}

/** The library entry point: diff plain objects (their origin in messages is `"input" document N`). */
export function diff(objects: readonly Unstructured[], deps: DiffDeps, opts: DiffOptions = {}): Promise<DiffReport> {
  return diffManifests(objects.map((object, i) => ({ source: 'input', document: i + 1, object })), deps, opts);
}

export async function diffManifests(manifests: readonly Manifest[], deps: DiffDeps, opts: DiffOptions = {}): Promise<DiffReport> {
  assertComplete(manifests);
  const matches = opts.selector ? parseLabelSelector(opts.selector) : undefined;
  const selected = matches ? manifests.filter((m) => matches(m.object.metadata?.labels)) : [...manifests];
  const declared = declaredKinds(selected.map((m) => m.object));
  const resolved = (await resolveAll(selected, new KindCache(deps.mapper), declared, namespaceRule(opts))) as Target[];

  const results: Array<ObjectDiff | undefined> = selected.map(() => undefined);
  const errors: Array<unknown> = [];
  // The LISTs run while the objects of other collections are diffed; theirs wait for them.
  const ahead = prefetch(resolved, deps.client, opts);
  ahead.live.catch(() => undefined);
  const concurrency = opts.concurrency ?? DEFAULT_DIFF_CONCURRENCY;
  await runBounded(selected.map((_, i) => i), concurrency, async (i) => {
    try {
      // Not awaited here: the object's dry run is sent while its collection's LIST is on its way.
      const prefetched = ahead.listed.has(i) ? ahead.live.then((live) => live.get(i)) : undefined;
      results[i] = await diffOne(selected[i]!, resolved[i]!, prefetched, deps.client, opts, selected);
    } catch (e) {
      errors[i] = e;
    }
  }, () => errors.length > 0 || opts.signal?.aborted === true);
  const first = errors.findIndex((e) => e !== undefined);
  if (first >= 0) throw errors[first];
  if (opts.signal?.aborted) throw opts.signal.reason ?? new KdynError('interrupted');

  const objects = results as ObjectDiff[];
  for (const obj of (await opts.pruned?.(objects)) ?? []) {
    const md = obj.metadata ?? {};
    objects.push(result(diffFileName(String(obj.apiVersion), String(obj.kind), md.namespace, String(md.name)), undefined, obj, null, opts));
  }
  return { objects, differs: objects.some((o) => o.differs) };
}

/**
 * Live objects read ahead (null: absent) by one LIST per collection holding many of the objects
 * (`listed`: their indexes; a failed LIST leaves its objects to be read one by one).
 */
function prefetch(targets: readonly Target[], client: DynamicClient, opts: DiffOptions): { listed: Set<number>; live: Promise<Map<number, Unstructured | null>> } {
  const pending: Pending[] = [];
  const seen = new Set<string>();
  targets.forEach((t, index) => {
    const key = objectKey(t.object, t.namespace);
    if (!t.mapping || seen.has(key)) return;
    seen.add(key);
    const { group, version, resource } = t.mapping.gvr;
    pending.push({ index, collection: `${group}/${version}/${resource}/${t.namespace ?? ''}`, handle: () => handleFor(client, t), name: String(t.object.metadata!.name) });
  });
  const size = new Map<string, number>();
  for (const p of pending) size.set(p.collection, (size.get(p.collection) ?? 0) + 1);
  const listed = new Set(pending.filter((p) => size.get(p.collection)! >= LIST_THRESHOLD).map((p) => p.index));
  const live = listed.size ? prefetchCurrent(pending.filter((p) => listed.has(p.index)), opts.concurrency ?? DEFAULT_DIFF_CONCURRENCY, () => opts.signal?.aborted === true) : Promise.resolve(new Map<number, Unstructured | null>());
  return { listed, live };
}

function handleFor(client: DynamicClient, t: Target): ResourceClient {
  const h = client.resource(t.mapping!.gvr, { namespaced: t.mapping!.namespaced });
  return t.namespace !== undefined && t.mapping!.namespaced ? h.namespace(t.namespace) : h;
}

/**
 * One object: its live version and its dry-run apply. The dry run does not depend on the live
 * version, so both requests are on their way at once (kubectl sends them one after the other; the
 * answers are the same); with `skipUnchanged` the live version decides first whether to send it.
 * `prefetched` is the object's entry in its collection's LIST (undefined: not there, read it alone).
 */
async function diffOne(m: Manifest, t: Target, prefetched: Promise<Unstructured | null | undefined> | undefined, client: DynamicClient, opts: DiffOptions, all: readonly Manifest[]): Promise<ObjectDiff> {
  const name = String(t.object.metadata!.name);
  const file = diffFileName(String(t.object.apiVersion), String(t.object.kind), t.namespace, name);
  if (!t.mapping) return result(file, m, null, checkLocally(m, t, all, opts), opts, true);
  const handle = handleFor(client, t);
  const fieldManager = opts.fieldManager || 'kdyn';
  for (let attempt = 1; ; attempt++) {
    const reading = attempt === 1 && prefetched ? prefetched.then((p) => (p === undefined ? readLive(handle, name) : p)) : readLive(handle, name);
    if (attempt === 1 && opts.skipUnchanged === true) {
      const before = await reading;
      if (appliesAsIs(t.object, before, fieldManager)) {
        warnIfDeleting(before!, name, opts);
        return result(file, m, before, before!, opts);
      }
    }
    if (attempt === MAX_TRIES) {
      const gv = parseGroupVersion(String(t.object.apiVersion));
      opts.onWarning?.(`Object (${gv.group}/${gv.version}, Kind=${String(t.object.kind)}: ${name}) keeps changing, diffing without lock`, 'klog');
    }
    const applying = handle.patch(name, JSON.stringify(t.object), 'apply', { fieldManager, force: opts.force === true, dryRun: true });
    // The live read's failure is the answer when both fail (as when they were sent one after the other).
    applying.catch(() => undefined);
    const before = await reading;
    try {
      const merged = await applying;
      if (before) warnIfDeleting(before, name, opts);
      return result(file, m, before, merged, opts);
    } catch (e) {
      // Its namespace does not exist yet, and the input creates it: shown created, as the input has it.
      if (inNewNamespace(e, t, all)) return result(file, m, null, t.object, opts, true);
      if (!(e instanceof StatusError && e.code === 409) || attempt >= MAX_TRIES) throw e;
    }
  }
}

/** The server's `namespaces "x" not found` for an object whose namespace x the input creates. */
function inNewNamespace(e: unknown, t: Target, all: readonly Manifest[]): boolean {
  if (!(e instanceof StatusError && e.code === 404) || t.namespace === undefined) return false;
  const d = e.status.details;
  if (d?.kind !== 'namespaces' || d.name !== t.namespace) return false;
  return all.some((x) => x.object.kind === 'Namespace' && parseGroupVersion(String(x.object.apiVersion)).group === '' && x.object.metadata?.name === t.namespace);
}

/** kubectl's apply.WarnIfDeleting. */
function warnIfDeleting(live: Unstructured, name: string, opts: DiffOptions): void {
  if (live.metadata?.deletionTimestamp) opts.onWarning?.(`Warning: Detected changes to resource ${name} which is currently being deleted.\n`, 'plain');
}

async function readLive(handle: ResourceClient, name: string): Promise<Unstructured | null> {
  const got = await getCurrent(handle, name);
  if (got === undefined) return handle.get(name); // not a 404: the server's error, as kubectl reports it
  return got;
}

function result(name: string, manifest: Manifest | undefined, live: Unstructured | null, merged: Unstructured | null, opts: DiffOptions, checkedLocally?: boolean): ObjectDiff {
  // The texts are encoded when first read (the default diff program reads only those that differ).
  const { differs, texts } = compareVersions(prepareVersions(live, merged, opts));
  const action: DiffAction = merged === null ? 'deleted' : live === null ? 'created' : differs ? 'changed' : 'unchanged';
  const r = { name, ...(manifest ? { manifest } : {}), live, merged, action, differs, ...(checkedLocally ? { checkedLocally } : {}) };
  return Object.defineProperty(r, 'texts', { get: texts, enumerable: true }) as ObjectDiff;
}

/**
 * An instance of a kind only the input's CRD declares: the object as that CRD's schema makes it
 * (defaults, unknown fields pruned with a warning each), or an error naming the object and fields.
 */
function checkLocally(m: Manifest, t: Target, all: readonly Manifest[], opts: DiffOptions): Unstructured {
  const decl = t.declared!;
  const crd = all.find((x) => x.object.kind === 'CustomResourceDefinition' && x.object.metadata?.name === decl.crdName)!.object;
  const version = parseGroupVersion(String(t.object.apiVersion)).version;
  const schema = crdVersionSchema(crd, version);
  if (!schema) return t.object;
  const checked = checkAgainstSchema(t.object, schema);
  if (checked.problems.length) {
    const what = `${String(t.object.kind)}.${decl.group} ${JSON.stringify(String(t.object.metadata!.name))}`;
    const list = checked.problems.length === 1 ? checked.problems[0]! : `[${checked.problems.join(', ')}]`;
    throw new KdynError(`${what} from ${describeOrigin(m)} is invalid against the schema of ${formatGroupVersion({ group: decl.group, version })} in CustomResourceDefinition ${JSON.stringify(decl.crdName)} of the input: ${list}`);
  }
  for (const f of checked.unknown) opts.onWarning?.(`Warning: unknown field ${JSON.stringify(f)}\n`, 'plain');
  return checked.object;
}
