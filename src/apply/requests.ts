/**
 * The client dry run (`--dry-run=client`): the requests an apply would send, in the order it would
 * send them (stages), without sending any. Kinds the server does not serve yet but the input's own
 * CRDs declare use the declaration's plural. Reads discovery only.
 */
import { parseGroupVersion } from '../core/gvk.js';
import type { Unstructured } from '../core/unstructured.js';
import { resourcePath } from '../dynamic/url.js';
import { DEFAULT_FIELD_MANAGER, namespaceRule, type ApplyDeps, type ApplyOptions } from './apply.js';
import { assertComplete, type Manifest } from './manifests.js';
import { declaredKinds, planStages } from './plan.js';
import { KindCache, resolveAll } from './resolve.js';

/** One request as it would go out. */
export interface PlannedRequest {
  index: number;
  manifest: Manifest;
  method: 'PATCH';
  path: string;
  /** In Go's (sorted) order, as kubectl sends them. */
  query: Record<string, string>;
  body: Unstructured;
}

export async function planRequests(
  manifests: readonly Manifest[],
  deps: Pick<ApplyDeps, 'mapper'>,
  opts: ApplyOptions = {},
): Promise<{ requests: PlannedRequest[]; errors: Array<{ index: number; error: Error }> }> {
  assertComplete(manifests);
  const objects = manifests.map((m) => m.object);
  const resolved = await resolveAll(manifests, new KindCache(deps.mapper), declaredKinds(objects), namespaceRule(opts));
  const query: Record<string, string> = {};
  if (opts.dryRun) query.dryRun = 'All';
  query.fieldManager = opts.fieldManager || DEFAULT_FIELD_MANAGER;
  query.fieldValidation = opts.fieldValidation ?? 'Strict';
  query.force = String(opts.force === true);
  const requests: PlannedRequest[] = [];
  const errors: Array<{ index: number; error: Error }> = [];
  for (const { indexes } of planStages(objects)) {
    for (const i of indexes) {
      const r = resolved[i]!;
      if ('error' in r) {
        errors.push({ index: i, error: r.error });
        continue;
      }
      const gvr = r.mapping?.gvr ?? { group: r.declared!.group, version: parseGroupVersion(String(r.object.apiVersion)).version, resource: r.declared!.plural };
      const path = resourcePath({ gvr, namespace: r.namespace, name: String(r.object.metadata!.name) });
      requests.push({ index: i, manifest: manifests[i]!, method: 'PATCH', path, query: { ...query }, body: r.object });
    }
  }
  return { requests, errors };
}
