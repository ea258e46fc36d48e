/**
 * `delete` as one path over one or more contexts (one cluster is a fleet of one): per context, the
 * targets (./targets.ts), one DELETE each with bounded concurrency (kubectl's body: the propagation
 * policy, and the grace period when given), each result handed over in input order, the errors after
 * the deletions (kubectl aggregates them), discovery invalidated after a CRD or APIService is gone,
 * then `--wait` until the objects are gone (./wait.ts). The contexts are worked on with the fleet's
 * fan-out (../fleet/fanout.ts); every event carries its context, and the events of one context come
 * together, in the contexts' order (the first context's as they happen).
 */
import { systemClock, type Clock } from '../core/clock.js';
import { KdynError, StatusError } from '../core/errors.js';
import type { Unstructured } from '../core/unstructured.js';
import type { DynamicClient } from '../dynamic/client.js';
import type { RESTMapper } from '../restmapper/types.js';
import type { CachedDiscovery } from '../discovery/types.js';
import { invalidateAfterWrites } from '../discovery/invalidation.js';
import { OrderedEmitter, runBounded } from '../apply/bounded.js';
import { fanOut } from '../fleet/fanout.js';
import { resolveTargets, type DeleteSelection, type DeleteTarget } from './targets.js';
import { countInstances, crdWarning, isCrdMapping } from './crd.js';
import { ignorableWaitError, waitGone, type GoneItem } from './wait.js';

export type DryRun = 'none' | 'server' | 'client';

export interface DeleteRunOptions {
  /** kubectl's `--cascade` (default background). */
  cascade?: 'background' | 'foreground' | 'orphan';
  /** Seconds (0: immediately, with `force`); undefined: each object's default. */
  gracePeriodSeconds?: number;
  dryRun?: DryRun;
  /** A 404 is no error (kubectl's default with --all, -l and --field-selector). */
  ignoreNotFound?: boolean;
  /** Wait until every deleted object is gone (default true, as kubectl). */
  wait?: boolean;
  /** How long the wait may take (ms; 0 or undefined: kubectl's week). */
  timeoutMs?: number;
  /** DELETE requests in flight at once, per context (default 16). */
  concurrency?: number;
  /** Contexts worked on at once (default 16). */
  contextConcurrency?: number;
  /** No new request starts once aborted; the wait ends. */
  signal?: AbortSignal;
  clock?: Clock;
}

/** What one context needs (the CLI's lazily built layers, or ./connection.ts for a library connection). */
export interface DeleteMember {
  mapper(): Promise<RESTMapper>;
  dynamic(): Promise<DynamicClient>;
  /** The context's namespace (kubeconfig's, else `default`). */
  namespace(): Promise<string>;
  discovery?(): Promise<CachedDiscovery>;
  preconnect?(): Promise<void>;
  flush?(): Promise<void>;
  close?(): void;
}

/** One event of a delete run, tagged with its context. */
export type DeleteEvent = { context: string } & (
  | { type: 'deleted'; target: DeleteTarget; dryRun: DryRun; force: boolean }
  | { type: 'warning'; message: string }
  /** One object's error (kubectl's `Error from server (NotFound): ...`), after the deletions. */
  | { type: 'error'; error: unknown }
  /** Nothing matched (kubectl's `No resources found`). */
  | { type: 'none' }
  /** The context failed as a whole (unreachable, a type it does not serve...): nothing more comes from it. */
  | { type: 'failed'; error: unknown }
  | { type: 'done'; deleted: number; errors: number; interrupted: boolean }
);

const WEEK_MS = 168 * 3600 * 1000;

/**
 * Deletes `selection` in every context (`open` gives a context's connection), yielding each
 * context's events together, in the contexts' order. `selection.namespace` undefined: each context's own.
 */
export async function* deleteResources(
  contexts: readonly string[],
  open: (context: string) => DeleteMember | Promise<DeleteMember>,
  selection: DeleteSelection,
  options: DeleteRunOptions = {},
): AsyncGenerator<DeleteEvent, void, undefined> {
  const queues = contexts.map(() => ({ events: [] as DeleteEvent[], done: false }));
  const index = new Map(contexts.map((c, i) => [c, i]));
  let wake: (() => void) | undefined;
  const push = (i: number, ev?: DeleteEvent) => {
    if (ev) queues[i]!.events.push(ev);
    else queues[i]!.done = true;
    wake?.();
  };
  const run = fanOut<DeleteMember, void>(contexts, (m, context, signal) => deleteInContext(m, context, selection, { ...options, signal }, (ev) => push(index.get(context)!, ev)), {
    open,
    close: async (m) => {
      await m.flush?.();
      m.close?.();
    },
    concurrency: options.contextConcurrency,
    signal: options.signal,
    clock: options.clock,
    onResult: (r, i) => {
      if (!r.ok) push(i, { context: r.context, type: 'failed', error: r.error });
      push(i);
    },
  });
  run.catch(() => undefined);
  for (let cur = 0; cur < contexts.length; ) {
    const q = queues[cur]!;
    if (q.events.length > 0) yield q.events.shift()!;
    else if (q.done) cur++;
    else await new Promise<void>((r) => (wake = r));
  }
  await run;
}

/** One context's delete; its events go to `emit`. Throws what makes the whole context fail. */
export async function deleteInContext(m: DeleteMember, context: string, selection: DeleteSelection, o: DeleteRunOptions, emit: (ev: DeleteEvent) => void): Promise<void> {
  await m.preconnect?.();
  const [mapper, client, namespace, discovery] = await Promise.all([m.mapper(), m.dynamic(), selection.namespace ?? m.namespace(), m.discovery?.()]);
  const { items, trailing } = await resolveTargets({ ...selection, namespace }, { mapper, client });
  const dryRun = o.dryRun ?? 'none';
  const force = o.gracePeriodSeconds === 0;
  const signal = o.signal;
  const errors: unknown[] = [];
  const waits: Array<GoneItem & { target: DeleteTarget }> = [];
  const gone: Unstructured[] = [];
  let found = 0;
  let warnClusterScope = selection.enforceNamespace === true && selection.allNamespaces !== true;

  type Outcome = { warnings: string[]; deleted?: DeleteTarget; error?: unknown };
  const outcomes: Outcome[] = items.map(() => ({ warnings: [] }));
  const emitter = new OrderedEmitter<number>(items.map((_, i) => i), (i) => {
    const item = items[i]!;
    const r = outcomes[i]!;
    if (!('error' in item) && !item.mapping.namespaced && warnClusterScope) {
      warnClusterScope = false;
      emit({ context, type: 'warning', message: 'deleting cluster-scoped resources, not scoped to the provided namespace' });
    }
    for (const message of r.warnings) emit({ context, type: 'warning', message });
    if (r.deleted) emit({ context, type: 'deleted', target: r.deleted, dryRun, force });
    if (r.error !== undefined) errors.push(r.error);
  });

  const one = async (i: number): Promise<void> => {
    const item = items[i]!;
    const r = outcomes[i]!;
    try {
      if ('error' in item) {
        r.error = item.error;
        return;
      }
      found++;
      if (isCrdMapping(item.mapping)) {
        const n = await countInstances(item.name, { mapper, client }, signal).catch(() => undefined);
        if (n && n.count > 0) r.warnings.push(crdWarning(item.name, n.count, dryRun !== 'none'));
      }
      if (dryRun === 'client') {
        r.deleted = item;
        return;
      }
      let handle = client.resource(item.mapping.gvr, { namespaced: item.mapping.namespaced });
      if (item.mapping.namespaced && item.namespace) handle = handle.namespace(item.namespace);
      let answer: Unstructured;
      try {
        answer = (await handle.delete(item.name, { dryRun: dryRun === 'server', gracePeriodSeconds: o.gracePeriodSeconds, propagationPolicy: policy(o.cascade) })) as Unstructured; // not aborted: a DELETE in flight finishes
      } catch (e) {
        if (o.ignoreNotFound && e instanceof StatusError && e.code === 404) return;
        r.error = withSource(e, item.source);
        return;
      }
      r.deleted = item;
      if (dryRun !== 'none') return;
      gone.push({ apiVersion: item.mapping.gvk.group ? `${item.mapping.gvk.group}/${item.mapping.gvk.version}` : item.mapping.gvk.version, kind: item.mapping.gvk.kind, metadata: { name: item.name } });
      // A Status answer: the object is gone. The object itself: it is terminating (finalizers, a grace period).
      if (answer.kind !== 'Status') waits.push({ handle, name: item.name, uid: typeof answer.metadata?.uid === 'string' ? answer.metadata.uid : undefined, target: item });
    } finally {
      emitter.set(i, i);
    }
  };
  const notStarted = await runBounded(items.map((_, i) => i), o.concurrency ?? 16, one, () => signal?.aborted === true);
  for (const i of notStarted) emitter.set(i, i);
  errors.push(...trailing);
  // Discovery changed: the next kdyn and kubectl runs ask the server (written when the context is flushed).
  if (discovery && gone.length > 0) invalidateAfterWrites(discovery, gone);
  for (const error of errors) emit({ context, type: 'error', error });
  const deleted = outcomes.filter((r) => r.deleted).length;
  if (found === 0 && errors.length === 0 && !signal?.aborted) emit({ context, type: 'none' });
  let waitErrors = 0;
  if (o.wait !== false && dryRun === 'none' && errors.length === 0 && !signal?.aborted && waits.length > 0) {
    const timeoutMs = o.timeoutMs && o.timeoutMs > 0 ? o.timeoutMs : WEEK_MS;
    const results = await waitGone(waits, { clock: o.clock ?? systemClock, timeoutMs, signal });
    // kubectl stops at the first object that is not gone, and reports it alone.
    const k = results.findIndex((w) => w.state === 'timeout' || (w.state === 'error' && !ignorableWaitError(w.error)));
    if (k >= 0) {
      const w = results[k]!;
      const t = waits[k]!.target;
      waitErrors = 1;
      emit({ context, type: 'error', error: w.state === 'error' ? w.error : new KdynError(`timed out waiting for the condition on ${t.mapping.gvr.resource}/${t.name}`) });
    }
  }
  emit({ context, type: 'done', deleted, errors: errors.length + waitErrors, interrupted: signal?.aborted === true });
}

function policy(cascade: DeleteRunOptions['cascade']): 'Background' | 'Foreground' | 'Orphan' {
  return cascade === 'foreground' ? 'Foreground' : cascade === 'orphan' ? 'Orphan' : 'Background';
}

/** kubectl's AddSourceToErr: `error when deleting "m.yaml": ...` in the server's message. */
function withSource(e: unknown, source: string | undefined): unknown {
  if (!source) return e;
  if (e instanceof StatusError) {
    const status = { ...e.status, message: `error when deleting ${JSON.stringify(source)}: ${e.status.message ?? ''}` };
    return new StatusError(status, e.httpStatus);
  }
  return new KdynError(`error when deleting ${JSON.stringify(source)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}
