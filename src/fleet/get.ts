/**
 * `get` over one or more contexts, the fetching half alone (kubectl's `resource.Builder` → `Visit`):
 * one context is a fleet of one. Per context, the arguments are resolved with that context's own
 * RESTMapper (its own discovery cache; a name missing from a cached discovery refetches it once),
 * each selected namespace is listed page by page (or the named objects fetched), and every page goes
 * to the visitor tagged with its context and its resource, as it arrives. Printing is the visitor's
 * (../printers/context.ts decorates the output with the context).
 * - A collection that is gone (a 404 on it: its CRD was deleted) refreshes the context's mapping and
 *   lists again (../restmapper/stale.ts), with kubectl's `Unable to list ...` wording otherwise.
 * - A named object that is not found is that context's error (none with ignoreNotFound).
 * - A request that fails is that context's error; the others go on. A context whose every request
 *   failed is `failed`: its visitor should print nothing of it (the output never depends on whether
 *   its discovery came from a warm cache, where the lists fail, or had to be fetched, where it fails).
 * - A context that fails before its requests (down with a cold cache, a bad kubeconfig) settles with
 *   that error; the others are not affected (./fanout.ts).
 */
import { StatusError } from '../core/errors.js';
import type { Table } from '../core/table.js';
import type { Unstructured } from '../core/unstructured.js';
import type { IncludeObject } from '../dynamic/types.js';
import type { ResourceClient } from '../dynamic/client.js';
import type { ResourceMapping } from '../restmapper/types.js';
import { resolveGetArgs } from '../restmapper/args.js';
import { listError, withFreshMapping } from '../restmapper/stale.js';
import { fanOut, type ContextResult } from './fanout.js';
import type { Member } from './member.js';

export type { Member } from './member.js';

export interface FetchGetOptions {
  /** kubectl's resource arguments (`cm,secrets`, `cm/a`, `cm a b`). */
  args: readonly string[];
  prog?: string;
  /** Namespaces to list (undefined: each context's own; ignored with allNamespaces). */
  namespaces?: readonly string[];
  allNamespaces: boolean;
  labelSelector?: string;
  fieldSelector?: string;
  /** List page size; 0: one request. */
  chunkSize: number;
  ignoreNotFound: boolean;
  /**
   * The server's Tables instead of the objects (the default and wide output), with what each row
   * carries (kubectl's includeObject: 'Object' for --sort-by, which also turns chunking off;
   * 'Metadata' for label columns; a NAMESPACE column adds 'Metadata' here).
   */
  table?: { includeObject: IncludeObject; unchunked: boolean };
  /** Contexts worked on at once. */
  concurrency?: number;
  /** Releases a context's connection (default: flush, then close). */
  close?(member: Member, context: string): void | Promise<void>;
}

/** One request of a context, as fetched: its mapping changes when a stale one was refreshed. */
export interface FetchedResource {
  mapping: ResourceMapping;
  readonly arg: string;
  readonly names: readonly string[];
}

/** A context's arguments, resolved: given to the visitor before its first page. */
export interface ContextPlan {
  /** The user named exactly one object of one namespace (kubectl's singleItemImplied). */
  singleItemImplied: boolean;
  /** The one namespace listed in (undefined with -A or several). */
  namespace: string | undefined;
  /** Several namespaces or -A: each row needs its namespace. */
  withNamespace: boolean;
  resources: readonly FetchedResource[];
}

export interface ContextFetched {
  /** Every request failed: print nothing of this context, only its errors. */
  failed: boolean;
  /** The context's errors, in order (failed requests, objects not found). */
  errors: unknown[];
}

export interface GetVisitor {
  /** The context's arguments resolved; an error here is the context's error. */
  start(context: string, plan: ContextPlan): void | Promise<void>;
  /** One page (objects, or a server Table) of one resource, as it arrives. */
  page(context: string, page: Unstructured[] | Table, resource: FetchedResource): void;
  /** The context's requests are done (in any order, as soon as they are). */
  done?(context: string, fetched: ContextFetched): void;
  /** Each context's outcome, in the contexts' order, as soon as it and every earlier one settled. */
  settled(result: ContextResult<ContextFetched>): void;
}

/** Fetches `o.args` from every context, each page to `visitor`; resolves once every context settled. */
export async function visitGet(contexts: readonly string[], open: (context: string) => Member, o: FetchGetOptions, visitor: GetVisitor): Promise<void> {
  await fanOut<Member, ContextFetched>(contexts, (m, context) => oneContext(m, context, o, visitor), {
    open,
    close: o.close ?? (async (m) => {
      await m.flush?.();
      m.close();
    }),
    concurrency: o.concurrency,
    onResult: (r) => visitor.settled(r),
  });
}

async function oneContext(m: Member, context: string, o: FetchGetOptions, visitor: GetVisitor): Promise<ContextFetched> {
  await m.preconnect?.(); // every get asks the server: handshake while discovery and names are resolved
  const [mapper, client] = await Promise.all([m.mapper(), m.dynamic()]);
  const [plan, own] = await Promise.all([resolveGetArgs(o.args, mapper, o.prog), o.allNamespaces || o.namespaces ? undefined : m.namespace()]);
  const namespaces: ReadonlyArray<string | undefined> = o.allNamespaces ? [undefined] : (o.namespaces ?? [own]);
  const withNamespace = o.allNamespaces || namespaces.length > 1;
  const resources: FetchedResource[] = plan.requests.map((r) => ({ mapping: r.mapping, arg: r.arg, names: r.names }));
  await visitor.start(context, { singleItemImplied: plan.singleItemImplied && namespaces.length === 1, namespace: namespaces.length === 1 ? namespaces[0] : undefined, withNamespace, resources });

  const fetched: ContextFetched = { failed: false, errors: [] };
  let answered = false;
  for (const resource of resources) {
    const list = async (mapping: ResourceMapping, ns: string | undefined) => {
      resource.mapping = mapping;
      const all = client.resource(mapping.gvr, { namespaced: mapping.namespaced });
      const handle = ns !== undefined && mapping.namespaced ? all.namespace(ns) : all;
      await fetchResource(handle, resource, o, withNamespace, (page) => visitor.page(context, page, resource), fetched);
    };
    for (const ns of resource.mapping.namespaced ? namespaces : [undefined]) {
      try {
        await withFreshMapping(mapper, resource.arg, resource.mapping, (mapping) => list(mapping, ns));
        answered = true;
      } catch (e) {
        fetched.errors.push(listError(e, { gvr: resource.mapping.gvr, named: resource.names.length > 0, labelSelector: o.labelSelector, fieldSelector: o.fieldSelector }));
      }
      // The mapping refreshed to a cluster-scoped resource (its CRD replaced by one of that scope): its
      // one list (or error) stands for every namespace.
      if (!resource.mapping.namespaced) break;
    }
  }
  fetched.failed = !answered && resources.length > 0;
  visitor.done?.(context, fetched);
  return fetched;
}

/** One request in one namespace: its list page by page, or the objects it names. */
async function fetchResource(handle: ResourceClient, r: FetchedResource, o: FetchGetOptions, withNamespace: boolean, page: (p: Unstructured[] | Table) => void, fetched: ContextFetched): Promise<void> {
  const selection = { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector };
  const t = o.table && { includeObject: o.table.includeObject === 'None' && withNamespace ? 'Metadata' as const : o.table.includeObject };
  if (r.names.length === 0) {
    if (t) for await (const table of handle.listTable({ ...selection, limit: o.table!.unchunked ? 0 : o.chunkSize, ...t })) page(table);
    else for await (const p of handle.list({ ...selection, limit: o.chunkSize })) page(p.items);
    return;
  }
  for (const name of r.names) {
    try {
      page(t ? await handle.getTable(name, t) : [await handle.get(name)]);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404 && e.status.details?.name !== undefined)) throw e;
      if (!o.ignoreNotFound) fetched.errors.push(e);
    }
  }
}
