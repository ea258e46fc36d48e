/**
 * Server-side apply of a list of manifests, in three stages: Namespaces, then
 * CustomResourceDefinitions, then everything else. Every kind is mapped and every namespace checked
 * before the first write (reads only: discovery); a kind that maps to nothing and that no CRD of the
 * input declares refuses the whole input (ManifestError). When some objects' kinds are served only
 * once the input's own CRDs exist, those CRDs are awaited until Established, discovery is refreshed
 * once, and the objects are mapped again; a kind that still maps to nothing fails that object alone.
 *
 * Within a stage, objects are applied with bounded concurrency; results are delivered in input
 * order (`onResult`). One object failing never stops the others. Once `signal` is aborted no new
 * request starts, requests in flight finish, and the rest are reported `skipped`.
 *
 * Each object is one `PATCH` with `application/apply-patch+yaml` (the object as JSON), preceded by a
 * GET when `detectUnchanged` (the default) so the result can say created / configured / unchanged
 * (unchanged: the server kept the resourceVersion).
 */
import { systemClock, type Clock } from '../core/clock.js';
import { KdynError } from '../core/errors.js';
import type { DynamicClient, ResourceClient } from '../dynamic/client.js';
import type { Unstructured } from '../core/unstructured.js';
import type { RESTMapper, ResourceMapping } from '../restmapper/types.js';
import { NoKindMatchError } from '../restmapper/errors.js';
import { parseGroupVersion } from '../core/gvk.js';
import { OrderedEmitter, runBounded } from './bounded.js';
import { assertComplete, type Manifest } from './manifests.js';
import { declaredKinds, kindKey, objectKey, planStages, stageOf, type DeclaredKind, type NamespaceRule } from './plan.js';
import { KindCache, mappingError, resolveAll, type Resolved, type Target } from './resolve.js';
import { waitReady } from './wait.js';
import { getCurrent, prefetchCurrent, type Pending } from './current.js';
import type { CachedDiscovery } from '../discovery/types.js';
import { invalidateAfterWrites } from '../discovery/invalidation.js';
import { sentWithoutAnswer } from './outcome.js';

export const DEFAULT_FIELD_MANAGER = 'kdyn';
export const DEFAULT_CONCURRENCY = 8;
/** How long to wait for the input's CRDs to become Established before mapping their instances. */
export const DEFAULT_ESTABLISH_TIMEOUT_MS = 60_000;

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface ApplyDeps {
  client: DynamicClient;
  mapper: RESTMapper;
  clock?: Clock;
  /**
   * The discovery `mapper` reads: once a CRD or an APIService was created or changed, it is
   * invalidated, in memory and on disk for kdyn and kubectl (discovery/invalidation.ts), so the next
   * run sees the change. Without it only this run's mapper refreshes (when instances follow).
   */
  discovery?: CachedDiscovery;
}

export interface ApplyOptions {
  /** `fieldManager` (default `kdyn`). */
  fieldManager?: string;
  /** `force=true`: take over fields other managers own (`--force-conflicts`). */
  force?: boolean;
  /** Server-side dry run (`dryRun=All`): validated, nothing persisted. */
  dryRun?: boolean;
  /** `fieldValidation` (default `Strict`, as kubectl's `--validate=strict`). */
  fieldValidation?: FieldValidation;
  /** Objects applied at once within a stage (default 8). */
  concurrency?: number;
  /** Namespace for namespaced objects that have none (default `default`). */
  namespace?: string;
  /** `-n` was given: an object in another namespace is an error (kubectl's RequireNamespace). */
  enforceNamespace?: boolean;
  /** Once aborted, no new request starts (SIGINT). */
  signal?: AbortSignal;
  /** GET each object first to tell created / configured / unchanged (default true). */
  detectUnchanged?: boolean;
  establishTimeoutMs?: number;
  /** Each result, in input order, as soon as it and every earlier one are known. */
  onResult?: (result: ApplyResult) => void;
}

/**
 * `applied`: succeeded, without a prior read to tell more. `unknown`: the request was sent but its
 * answer never came (the connection closed before the response, or the request timed out): the
 * server may or may not have applied it (./outcome.ts); applying again tells.
 */
export type ApplyStatus = 'created' | 'configured' | 'unchanged' | 'applied' | 'failed' | 'unknown' | 'skipped';

export interface ApplyResult {
  /** Position in the input. */
  index: number;
  manifest: Manifest;
  status: ApplyStatus;
  dryRun: boolean;
  /** The object as sent (namespace filled in or removed). */
  sent?: Unstructured;
  mapping?: ResourceMapping;
  /** The server's answer. */
  object?: Unstructured;
  error?: Error;
}

export interface ApplyReport {
  results: ApplyResult[];
  succeeded: number;
  failed: number;
  /** Sent, but no answer came back (`unknown`): neither succeeded nor failed as far as the client can tell. */
  unknown: number;
  /** Not attempted because the run was interrupted. */
  skipped: number;
  interrupted: boolean;
}

/** The library entry point: apply plain objects (their origin in messages is `"input" document N`). */
export function applyObjects(objects: readonly Unstructured[], deps: ApplyDeps, opts: ApplyOptions = {}): Promise<ApplyReport> {
  return applyManifests(objects.map((object, i) => ({ source: 'input', document: i + 1, object })), deps, opts);
}

export async function applyManifests(manifests: readonly Manifest[], deps: ApplyDeps, opts: ApplyOptions = {}): Promise<ApplyReport> {
  assertComplete(manifests);
  return new ApplyRun(manifests, deps, opts).execute();
}

/** The namespace rule of these options: `namespace` (else `default`), enforced when `enforceNamespace`. */
export function namespaceRule(opts: Pick<ApplyOptions, 'namespace' | 'enforceNamespace'>): NamespaceRule {
  return { namespace: opts.namespace || 'default', enforce: opts.enforceNamespace === true };
}

class ApplyRun {
  readonly #results: Array<ApplyResult | undefined>;
  readonly #emitter: OrderedEmitter<ApplyResult>;
  readonly #kinds: KindCache;
  readonly #declared: ReadonlyMap<string, DeclaredKind>;
  readonly #clock: Clock;
  readonly #dryRun: boolean;

  constructor(
    private readonly manifests: readonly Manifest[],
    private readonly deps: ApplyDeps,
    private readonly opts: ApplyOptions,
  ) {
    this.#results = manifests.map(() => undefined);
    this.#emitter = new OrderedEmitter(manifests.map((_, i) => i), (r) => opts.onResult?.(r));
    this.#kinds = new KindCache(deps.mapper);
    this.#declared = declaredKinds(manifests.map((m) => m.object));
    this.#clock = deps.clock ?? systemClock;
    this.#dryRun = opts.dryRun === true;
  }

  get #stopped(): boolean {
    return this.opts.signal?.aborted === true;
  }

  async execute(): Promise<ApplyReport> {
    // Namespace conflicts and kinds nothing can serve are bad input: refused (thrown) here, before the first write.
    const resolved = await resolveAll(this.manifests, this.#kinds, this.#declared, namespaceRule(this.opts));

    for (const { stage, indexes } of planStages(this.manifests.map((m) => m.object))) {
      if (stage === 'resources' && !this.#stopped) await this.#remapAfterCrds(indexes, resolved);
      if (this.#stopped) {
        for (const i of indexes) this.#finish(i, { status: 'skipped' });
        continue;
      }
      const ready: number[] = [];
      for (const i of indexes) {
        const r = resolved[i]!;
        if ('error' in r) this.#finish(i, { status: 'failed', error: r.error });
        else if (!r.mapping) this.#finish(i, { status: 'failed', sent: r.object, error: this.#unservedError(i, r.declared!) });
        else ready.push(i);
      }
      if (this.opts.detectUnchanged !== false && !this.#stopped) await this.#prefetch(ready, resolved);
      const inFlight = new Map<string, Promise<void>>(); // the same object twice: the later waits for the earlier
      const notStarted = await runBounded(ready, this.opts.concurrency ?? DEFAULT_CONCURRENCY, (i) => {
        const t = resolved[i] as Target;
        const key = objectKey(t.object, t.namespace);
        const p = (inFlight.get(key) ?? Promise.resolve()).then(() => this.#applyOne(i, t));
        inFlight.set(key, p);
        return p;
      }, () => this.#stopped);
      for (const i of notStarted) this.#finish(i, { status: 'skipped', sent: (resolved[i] as Target).object });
    }

    const results = this.#results as ApplyResult[];
    if (this.deps.discovery && !this.#dryRun) {
      const changed = results.filter((r) => r.status === 'created' || r.status === 'configured' || r.status === 'applied');
      invalidateAfterWrites(this.deps.discovery, changed.map((r) => r.object ?? r.sent ?? r.manifest.object));
    }
    const count = (s: (r: ApplyResult) => boolean) => results.filter(s).length;
    return {
      results,
      succeeded: count((r) => r.status !== 'failed' && r.status !== 'unknown' && r.status !== 'skipped'),
      failed: count((r) => r.status === 'failed'),
      unknown: count((r) => r.status === 'unknown'),
      skipped: count((r) => r.status === 'skipped'),
      interrupted: this.#stopped,
    };
  }

  /**
   * Before the objects whose kinds the input's own CRDs declare (or that did not map): wait until
   * those CRDs are Established (a CRD applied a moment ago may not serve yet, even where a stale
   * discovery cache already maps its kind); then, if some objects did not map, refresh discovery
   * and map them again, as long as an established CRD's kind is still missing from discovery (within
   * the establish timeout). Nothing to do in a dry run (dry-run CRDs are not created).
   */
  async #remapAfterCrds(indexes: readonly number[], resolved: Resolved[]): Promise<void> {
    const unmapped = indexes.filter((i) => {
      const r = resolved[i]!;
      return 'error' in r || !r.mapping;
    });
    const crds = this.#results.filter((r): r is ApplyResult => r !== undefined && stageOf(r.manifest.object) === 'crds' && r.status !== 'failed' && r.status !== 'skipped');
    const usesDeclared = indexes.some((i) => {
      const o = this.manifests[i]!.object;
      return this.#declared.has(kindKey(parseGroupVersion(String(o.apiVersion)).group, String(o.kind)));
    });
    if ((unmapped.length === 0 && !usesDeclared) || crds.length === 0 || this.#dryRun) return;
    const outcomes = await waitReady(
      crds.map((r) => ({ handle: this.#handle(r.mapping!, undefined), name: String(r.sent!.metadata!.name), last: r.object })),
      { clock: this.#clock, timeoutMs: this.opts.establishTimeoutMs ?? DEFAULT_ESTABLISH_TIMEOUT_MS, signal: this.opts.signal },
    );
    this.#notEstablished = new Map(crds.flatMap((r, k) => {
      const o = outcomes[k]!;
      return o.state === 'ready' ? [] : [[String(r.sent!.metadata!.name), o.message] as [string, string]];
    }));
    if (this.#stopped || unmapped.length === 0) return;
    // kube-apiserver lists an Established CRD's group in discovery a moment later (its discovery
    // document is updated on its own): a kind of a CRD this run established that is not served yet is
    // asked again, backing off, within the establish timeout, instead of failing on the first refresh.
    const established = new Set(crds.map((r) => String(r.sent!.metadata!.name)).filter((n) => !this.#notEstablished.has(n)));
    const deadline = this.#clock.now() + (this.opts.establishTimeoutMs ?? DEFAULT_ESTABLISH_TIMEOUT_MS);
    let pending = unmapped;
    for (let delayMs = 50; ; delayMs = Math.min(delayMs * 2, 1_000)) {
      this.#kinds.reset();
      await this.deps.mapper.refresh();
      const again = await resolveAll(this.manifests, this.#kinds, this.#declared, namespaceRule(this.opts), pending, 'keep');
      for (const i of pending) resolved[i] = again[i]!;
      pending = pending.filter((i) => {
        const r = resolved[i]!;
        return !('error' in r) && !r.mapping && r.declared !== undefined && established.has(r.declared.crdName);
      });
      if (pending.length === 0 || this.#stopped || this.#clock.now() + delayMs > deadline) return;
      await this.#clock.sleep(delayMs, this.opts.signal).catch(() => undefined);
    }
  }

  #notEstablished = new Map<string, string>();
  /** Live objects read ahead by a LIST (null: absent), by input index. */
  #current = new Map<number, Unstructured | null>();

  /**
   * Reads ahead the live objects of collections holding many of the stage's objects. Instances of a
   * CRD this run created need no read: they cannot have existed before it.
   */
  async #prefetch(indexes: readonly number[], resolved: Resolved[]): Promise<void> {
    const created = new Set(this.#results.flatMap((r) => (r?.status === 'created' && !r.dryRun && stageOf(r.manifest.object) === 'crds' ? [String(r.sent!.metadata!.name)] : [])));
    const seen = new Set<string>();
    const pending: Pending[] = [];
    const absent: number[] = [];
    for (const i of indexes) {
      const t = resolved[i] as Target;
      const key = objectKey(t.object, t.namespace);
      if (seen.has(key)) continue; // a repeated object must see its predecessor's result: GET it
      seen.add(key);
      const { group, version, resource } = t.mapping!.gvr;
      if (created.has(`${resource}.${group}`)) absent.push(i);
      else pending.push({ index: i, collection: `${group}/${version}/${resource}/${t.namespace ?? ''}`, handle: () => this.#handle(t.mapping!, t.namespace), name: String(t.object.metadata!.name) });
    }
    this.#current = await prefetchCurrent(pending, this.opts.concurrency ?? DEFAULT_CONCURRENCY, () => this.#stopped);
    for (const i of absent) this.#current.set(i, null);
  }

  /** A kind only the input's own CRD declares, still not served when its turn came. */
  #unservedError(i: number, decl: DeclaredKind): Error {
    const m = this.manifests[i]!;
    const gv = parseGroupVersion(String(m.object.apiVersion));
    const cause = new NoKindMatchError(gv.group, gv.version, String(m.object.kind));
    const crd = this.#results.find((r) => r && stageOf(r.manifest.object) === 'crds' && r.manifest.object.metadata?.name === decl.crdName);
    let why = 'ensure CRDs are installed first';
    if (this.#dryRun) why = `its CustomResourceDefinition ${JSON.stringify(decl.crdName)} is only applied in this dry run`;
    else if (crd?.status === 'failed') why = `applying its CustomResourceDefinition ${JSON.stringify(decl.crdName)} failed`;
    else if (this.#notEstablished.has(decl.crdName)) why = `its CustomResourceDefinition ${JSON.stringify(decl.crdName)} is not established: ${this.#notEstablished.get(decl.crdName)}`;
    return mappingError(m, cause, why);
  }

  #handle(mapping: ResourceMapping, namespace: string | undefined): ResourceClient {
    const h = this.deps.client.resource(mapping.gvr, { namespaced: mapping.namespaced });
    return namespace !== undefined && mapping.namespaced ? h.namespace(namespace) : h;
  }

  async #applyOne(i: number, t: Target): Promise<void> {
    const mapping = t.mapping!;
    const name = String(t.object.metadata!.name);
    const base = { sent: t.object, mapping };
    let patching = false;
    try {
      const handle = this.#handle(mapping, t.namespace);
      let before: Unstructured | null | undefined; // null: absent; undefined: not read
      if (this.#current.has(i)) before = this.#current.get(i);
      else if (this.opts.detectUnchanged !== false) before = await getCurrent(handle, name);
      if (this.#stopped) return this.#finish(i, { ...base, status: 'skipped' });
      patching = true;
      const object = await handle.patch(name, JSON.stringify(t.object), 'apply', {
        fieldManager: this.opts.fieldManager || DEFAULT_FIELD_MANAGER,
        fieldValidation: this.opts.fieldValidation ?? 'Strict',
        force: this.opts.force === true,
        dryRun: this.#dryRun,
      });
      this.#finish(i, { ...base, object, status: outcome(before, object, this.#dryRun) });
    } catch (e) {
      const error = e instanceof Error ? e : new KdynError(String(e));
      // Only the PATCH can have been applied without an answer (a failed GET before it sent nothing).
      this.#finish(i, { ...base, status: patching && sentWithoutAnswer(e) ? 'unknown' : 'failed', error });
    }
  }

  #finish(i: number, r: Omit<ApplyResult, 'index' | 'manifest' | 'dryRun'>): void {
    const result: ApplyResult = { index: i, manifest: this.manifests[i]!, dryRun: this.#dryRun, ...r };
    this.#results[i] = result;
    this.#emitter.set(i, result);
  }
}

function outcome(before: Unstructured | null | undefined, after: Unstructured, dryRun: boolean): ApplyStatus {
  if (before === undefined) return 'applied';
  if (before === null) return 'created';
  // A dry run never changes the resourceVersion: compare what the object would become instead.
  const same = dryRun ? sameObject(before, after) : before.metadata?.resourceVersion === after.metadata?.resourceVersion;
  return same ? 'unchanged' : 'configured';
}

/** Equal apart from managedFields (their timestamps move on every apply). */
function sameObject(a: Unstructured, b: Unstructured): boolean {
  const strip = (o: Unstructured) => JSON.stringify({ ...o, metadata: { ...o.metadata, managedFields: undefined } }, sortedKeys);
  return strip(a) === strip(b);
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, (value as Record<string, unknown>)[k]]));
}
