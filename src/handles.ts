/**
 * Handles without the ceremony: from a name as users type it (`crontabs`, `deploy.apps`), from a
 * typed kind (the `kinds` map `kdyn types` generates), or from an object itself (its apiVersion, kind
 * and namespace). Each goes through the RESTMapper (the served resource for that group-version-kind)
 * and lands in the right namespace: the object's, else the one given, else the connection's; a
 * cluster-scoped resource ignores it. The handle is typed by what it was made from.
 *
 *   const crontabs = await handles.resource<CronTab>('crontabs');
 *   const h = await handles.for(obj); await h.apply(obj); await h.delete(obj);
 */
import { KdynError } from './core/errors.js';
import { parseGroupVersion } from './core/gvk.js';
import type { TypedKind, Unstructured } from './core/unstructured.js';
import type { RESTMapper, ResourceMapping } from './restmapper/types.js';
import type { DynamicClient, ResourceClient } from './dynamic/client.js';

export interface HandleOptions {
  /** The namespace of a namespaced resource (default: the connection's). */
  namespace?: string;
}

/** What `for(obj)` needs of an object: its apiVersion and kind, and where it lives. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { namespace?: string; name?: string; [key: string]: unknown } | undefined;
}

export interface Handles {
  /** A handle on a resource named as kubectl takes it (`crontabs`, `ct`, `CronTab.v1.stable.example.com`). */
  resource<T extends object = Unstructured>(name: string, opts?: HandleOptions): Promise<ResourceClient<T>>;
  /** A handle on a kind (`{ apiVersion, kind }`; typed when it comes from the generated `kinds`). */
  kind<T extends object = Unstructured>(kind: TypedKind<T>, opts?: HandleOptions): Promise<ResourceClient<T>>;
  /** The handle for an object: its apiVersion + kind through the mapper, its namespace (else `opts`, else the connection's). */
  for<T extends KubeObject>(obj: T, opts?: HandleOptions): Promise<ResourceClient<T>>;
}

export interface HandleDeps {
  mapper: RESTMapper;
  client: DynamicClient;
  /** The default namespace (the kubeconfig context's). */
  namespace: string;
}

export function createHandles(deps: HandleDeps): Handles {
  const handle = <T extends object>(m: ResourceMapping, ns: string | undefined): ResourceClient<T> => {
    const h = deps.client.resource<T>(m.gvr, m);
    return m.namespaced ? h.namespace(ns ?? deps.namespace) : h;
  };
  const byKind = async <T extends object>(apiVersion: unknown, kind: unknown, what: string, ns: string | undefined): Promise<ResourceClient<T>> => {
    if (typeof apiVersion !== 'string' || !apiVersion || typeof kind !== 'string' || !kind) {
      throw new KdynError(`${what}: apiVersion and kind are required to find its resource`);
    }
    const gv = parseGroupVersion(apiVersion);
    return handle<T>(await deps.mapper.mappingForKind(gv.group, gv.version, kind), ns);
  };
  return {
    resource: async (name, opts = {}) => handle(await deps.mapper.resourceFor(name), opts.namespace),
    kind: (k, opts = {}) => byKind(k.apiVersion, k.kind, `kind ${JSON.stringify(k)}`, opts.namespace),
    for: (obj, opts = {}) => {
      const name = obj.metadata?.name;
      const what = name ? `object ${JSON.stringify(name)}` : 'the object';
      return byKind(obj.apiVersion, obj.kind, what, obj.metadata?.namespace || opts.namespace);
    },
  };
}
