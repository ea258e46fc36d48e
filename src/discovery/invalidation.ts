/**
 * Discovery after kdyn's own writes: an object that changes what the server serves (a
 * CustomResourceDefinition or an APIService, created, changed or deleted) makes the discovery it
 * was resolved with out of date. The commands that write (`apply`; `delete` when it comes) hand the
 * objects they wrote to invalidateAfterWrites, which forgets discovery in memory and marks the disk
 * cache stale for kdyn and kubectl alike (cached.ts invalidateStored), so the next run of either
 * tool asks the server instead of answering from a cache that predates the change.
 */
import type { Unstructured } from '../core/unstructured.js';
import { isObject, str } from '../core/guards.js';
import type { CachedDiscovery } from './types.js';

/**
 * The API groups whose discovery a write of `object` changes: a CRD's `spec.group`, an APIService's
 * `spec.group` ('' for a core APIService such as `v1.`); undefined for every other object. Without a
 * spec (a delete by name) the group comes from the name: `<plural>.<group>`, `<version>.<group>`.
 */
export function discoveryGroupsChangedBy(object: Unstructured): string[] | undefined {
  const apiGroup = String(object.apiVersion ?? '').split('/')[0];
  const kind = String(object.kind ?? '');
  const isCrd = kind === 'CustomResourceDefinition' && apiGroup === 'apiextensions.k8s.io';
  const isApiService = kind === 'APIService' && apiGroup === 'apiregistration.k8s.io';
  if (!isCrd && !isApiService) return undefined;
  const spec = isObject(object.spec) ? object.spec : undefined;
  if (spec && typeof spec.group === 'string') return [spec.group];
  const name = str(object.metadata?.name);
  const dot = name.indexOf('.');
  return dot < 0 ? [] : [name.slice(dot + 1)];
}

/**
 * After writes to the server (objects created, changed or deleted; not dry runs, not unchanged
 * ones): when any of them is a CRD or an APIService, invalidates `discovery` in memory and on disk
 * (kdyn's combined file, kubectl's servergroups.json and the groups' serverresources.json), so the
 * next run of kdyn or kubectl asks the server. Returns the groups concerned, in first-seen order, or
 * undefined when no object changes discovery (nothing invalidated). Call `flush()` before the
 * process exits, as after any discovery use. `applyObjects` calls it when given `discovery`.
 */
export function invalidateAfterWrites(discovery: CachedDiscovery, written: Iterable<Unstructured>): string[] | undefined {
  const groups = new Set<string>();
  let any = false;
  for (const o of written) {
    const g = discoveryGroupsChangedBy(o);
    if (!g) continue;
    any = true;
    for (const x of g) groups.add(x);
  }
  if (!any) return undefined;
  if (discovery.invalidateStored) discovery.invalidateStored([...groups]);
  else discovery.invalidate();
  return [...groups];
}
