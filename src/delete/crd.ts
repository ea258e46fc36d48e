/**
 * Deleting a CustomResourceDefinition deletes every object of its resource in every namespace; the
 * warning says how many before it happens. Counted with one list request of one item
 * (`limit=1`: the server's `remainingItemCount` says how many more there are), paging through the
 * rest only where the server gives no count.
 */
import type { DynamicClient } from '../dynamic/client.js';
import type { RESTMapper, ResourceMapping } from '../restmapper/types.js';

export const CRD_GROUP = 'apiextensions.k8s.io';

/** Whether the mapping is the CustomResourceDefinition resource. */
export function isCrdMapping(m: ResourceMapping): boolean {
  return m.gvr.group === CRD_GROUP && m.gvr.resource === 'customresourcedefinitions';
}

/**
 * How many objects of the CRD named `crdName` (`<plural>.<group>`) exist in the whole cluster, and
 * the resource they are (`rockets.demo.kdyn.dev`); undefined when the server does not serve it (a
 * CRD not established, or one that is already gone).
 */
export async function countInstances(crdName: string, deps: { mapper: RESTMapper; client: DynamicClient }, signal?: AbortSignal): Promise<{ count: number; resource: string } | undefined> {
  let mapping: ResourceMapping;
  try {
    mapping = await deps.mapper.resourceFor(crdName);
  } catch {
    return undefined;
  }
  if (`${mapping.gvr.resource}.${mapping.gvr.group}` !== crdName) return undefined;
  const handle = deps.client.resource(mapping.gvr, { namespaced: mapping.namespaced });
  const first = await handle.listPage({ limit: 1, signal });
  let count = first.items.length;
  const remaining = first.metadata.remainingItemCount;
  if (typeof remaining === 'number') count += remaining;
  else if (first.metadata.continue) {
    for await (const page of handle.list({ limit: 500, continue: first.metadata.continue, signal })) count += page.items.length;
  }
  return { count, resource: crdName };
}

/** `Warning: ` is put in front by the caller: `deleting customresourcedefinition ... also deletes its 3 rockets.demo.kdyn.dev objects`. */
export function crdWarning(crdName: string, count: number, dryRun: boolean): string {
  const objects = `${count} ${crdName} object${count === 1 ? '' : 's'}`;
  return `deleting customresourcedefinition.apiextensions.k8s.io ${JSON.stringify(crdName)} ${dryRun ? 'would also delete' : 'also deletes'} its ${objects} (in every namespace)`;
}
