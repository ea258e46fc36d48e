/**
 * What one context's `delete` deletes, in kubectl's order (cli-runtime's resource builder as
 * `kubectl delete` drives it): the objects of `-f` manifests (each kind mapped, kubectl's namespace
 * rules applied, no request per object), the named objects of `TYPE NAME...` / `TYPE/NAME` (no GET:
 * a DELETE each), or the objects a list with `-l`, `--field-selector` or `--all` finds (in a namespace
 * or, with `-A`, in all). A manifest that cannot be placed is that object's error, as kubectl's
 * ContinueOnError visitor collects it; a kind that maps to nothing is an error reported after every
 * other (kubectl's decoding errors come last).
 */
import { KdynError } from '../core/errors.js';
import type { DynamicClient } from '../dynamic/client.js';
import type { RESTMapper, ResourceMapping } from '../restmapper/types.js';
import { resolveGetArgs } from '../restmapper/args.js';
import { NoKindMatchError, NoResourceMatchError } from '../restmapper/errors.js';
import type { Manifest } from '../apply/manifests.js';
import { placeNamespace } from '../apply/plan.js';
import { KindCache, mappingError } from '../apply/resolve.js';

/** One object to delete. */
export interface DeleteTarget {
  mapping: ResourceMapping;
  /** Its namespace (undefined: cluster-scoped). */
  namespace?: string;
  name: string;
  /** The `-f` source it came from (`error when deleting "m.yaml": ...`). */
  source?: string;
}

/** What to delete: manifests (`-f`) or resource arguments with their selection. */
export interface DeleteSelection {
  /** `-f`: the objects of these manifests (their kinds and names; nothing else is read). */
  manifests?: readonly Manifest[];
  /** `TYPE NAME...`, `TYPE/NAME...`, `TYPE1,TYPE2 -l ...` (kubectl's resource-argument grammar). */
  args?: readonly string[];
  labelSelector?: string;
  fieldSelector?: string;
  /** `--all`: every object of the types (in the namespace, or with `allNamespaces` everywhere). */
  all?: boolean;
  allNamespaces?: boolean;
  /** The namespace for namespaced objects that name none (`-n`, else the context's). */
  namespace?: string;
  /** `-n` was given: a manifest naming another namespace is an error, and a cluster-scoped object is warned about. */
  enforceNamespace?: boolean;
  /** How the user runs kdyn, for kubectl's argument messages (default `kdyn`). */
  prog?: string;
}

/** A target, or the error that stands in its place. */
export type TargetOrError = DeleteTarget | { error: unknown };

/** The selection resolved against one context: targets in order, then the errors kubectl reports last. */
export interface ResolvedTargets {
  items: TargetOrError[];
  /** Errors reported after every object's (kinds that map to nothing). */
  trailing: unknown[];
}

/** List page size when selecting by label, field or --all (kubectl's chunk size). */
const LIST_CHUNK = 500;

export async function resolveTargets(sel: DeleteSelection, deps: { mapper: RESTMapper; client: DynamicClient }): Promise<ResolvedTargets> {
  if (sel.manifests) return fromManifests(sel.manifests, deps.mapper, sel);
  return { items: await fromArgs(sel, deps), trailing: [] };
}

async function fromManifests(manifests: readonly Manifest[], mapper: RESTMapper, sel: DeleteSelection): Promise<ResolvedTargets> {
  const kinds = new KindCache(mapper);
  const rule = { namespace: sel.namespace ?? 'default', enforce: sel.enforceNamespace === true };
  const items: TargetOrError[] = [];
  const trailing: unknown[] = [];
  for (const m of manifests) {
    let mapping: ResourceMapping;
    try {
      mapping = await kinds.mapping(m.object);
    } catch (e) {
      if (!(e instanceof NoKindMatchError || e instanceof NoResourceMatchError)) throw e;
      trailing.push(mappingError(m, e));
      continue;
    }
    const placed = placeNamespace(m.object, mapping.namespaced, rule);
    if ('error' in placed) items.push({ error: new KdynError(placed.error) });
    else items.push({ mapping, namespace: placed.namespace, name: String(m.object.metadata?.name), source: m.source });
  }
  return { items, trailing };
}

async function fromArgs(sel: DeleteSelection, deps: { mapper: RESTMapper; client: DynamicClient }): Promise<TargetOrError[]> {
  const plan = await resolveGetArgs(sel.args ?? [], deps.mapper, sel.prog);
  const out: TargetOrError[] = [];
  const selecting = sel.all === true || !!sel.labelSelector || !!sel.fieldSelector;
  for (const request of plan.requests) {
    const { mapping } = request;
    const namespace = mapping.namespaced ? sel.namespace : undefined;
    if (request.names.length > 0) {
      for (const name of request.names) out.push({ mapping, namespace, name });
      continue;
    }
    if (!selecting) throw new KdynError('resource(s) were provided, but no name was specified');
    let handle = deps.client.resource(mapping.gvr, { namespaced: mapping.namespaced });
    if (mapping.namespaced && !sel.allNamespaces && namespace) handle = handle.namespace(namespace);
    for await (const page of handle.list({ labelSelector: sel.labelSelector, fieldSelector: sel.fieldSelector, limit: LIST_CHUNK })) {
      for (const obj of page.items) {
        const ns = mapping.namespaced ? obj.metadata?.namespace : undefined;
        out.push({ mapping, namespace: typeof ns === 'string' ? ns : undefined, name: String(obj.metadata?.name) });
      }
    }
  }
  return out;
}
