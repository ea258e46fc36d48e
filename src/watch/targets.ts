/**
 * What a watch of resolved arguments watches: each resource (and each name) in each namespace, as
 * MultiWatch targets (./multi.ts). The arguments are resolved elsewhere (the RESTMapper's
 * `resolveGetArgs`); this module needs only their mappings, so it stays below restmapper.
 */
import type { GroupVersionKind, GroupVersionResource } from '../core/gvk.js';
import type { DynamicClient } from '../dynamic/client.js';
import type { MultiWatchTarget } from './multi.js';

/** One resolved argument: a resource (its mapping) and the names asked for (none: every object). */
export interface WatchRequest {
  readonly mapping: { readonly gvr: GroupVersionResource; readonly gvk: GroupVersionKind; readonly namespaced: boolean };
  readonly names: readonly string[];
}

/** The targets of `requests` in each namespace (one undefined: the handle's scope). */
export function watchTargets(requests: readonly WatchRequest[], client: DynamicClient, namespaces: ReadonlyArray<string | undefined>): MultiWatchTarget[] {
  const targets: MultiWatchTarget[] = [];
  for (const req of requests) {
    const m = req.mapping;
    const gk = { group: m.gvk.group, kind: m.gvk.kind };
    const type = m.gvr.group ? `${m.gvr.resource}.${m.gvr.group}` : m.gvr.resource;
    for (const ns of m.namespaced ? namespaces : [undefined]) {
      let handle = client.resource(m.gvr, { namespaced: m.namespaced });
      if (m.namespaced && ns) handle = handle.namespace(ns);
      for (const name of req.names.length > 0 ? req.names : [undefined]) targets.push({ handle, gk, type, resource: m.gvr.resource, name });
    }
  }
  return targets;
}
