/**
 * Aggregated discovery (apidiscovery.k8s.io/v2 and v2beta1 `APIGroupDiscoveryList`) -> DiscoverySnapshot.
 * Pure. Mirrors client-go's `discovery/aggregated_discovery.go`:
 * - versions are in preference order; the first non-stale one is the preferred version;
 * - a `Stale` version is dropped from its group and reported as a `stale` failure;
 * - a resource without `responseKind` is skipped (its subresources are still kept, as client-go does);
 * - a subresource becomes `parent/sub` with the parent's singular name and scope.
 */
import type { APIGroup, APIResource, DiscoveryFailure, DiscoverySnapshot } from './types.js';
import { isObject, str, strings } from '../core/guards.js';

/** kubectl's Accept header for aggregated discovery (v2, then v2beta1, then plain JSON). */
export const AGGREGATED_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,' +
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

/** True when a Content-Type names an aggregated discovery document (parameters in any order). */
export function isAggregatedContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const parts = contentType.split(';').map((p) => p.trim().toLowerCase());
  if (parts[0] !== 'application/json') return false;
  const params = new Map<string, string>();
  for (const p of parts.slice(1)) {
    const i = p.indexOf('=');
    if (i > 0) params.set(p.slice(0, i).trim(), p.slice(i + 1).trim());
  }
  const v = params.get('v');
  return params.get('g') === 'apidiscovery.k8s.io' && params.get('as') === 'apigroupdiscoverylist' && (v === 'v2' || v === 'v2beta1');
}

/** True when `doc` looks like an APIGroupDiscoveryList (used to validate cached documents). */
export function isAggregatedDocument(doc: unknown): boolean {
  if (!isObject(doc) || doc.kind !== 'APIGroupDiscoveryList') return false;
  const av = doc.apiVersion;
  return (av === 'apidiscovery.k8s.io/v2' || av === 'apidiscovery.k8s.io/v2beta1') && (doc.items === undefined || doc.items === null || Array.isArray(doc.items));
}

/**
 * Converts the `/api` and `/apis` aggregated documents into a snapshot. Either may be undefined
 * (e.g. only one was fetched). Throws TypeError when a present document is not an APIGroupDiscoveryList.
 */
export function parseAggregatedDiscovery(apiDoc: unknown, apisDoc: unknown): DiscoverySnapshot {
  const snapshot: DiscoverySnapshot = { groups: [], resources: new Map(), failures: [] };
  for (const [doc, where] of [[apiDoc, '/api'], [apisDoc, '/apis']] as const) {
    if (doc === undefined) continue;
    if (!isAggregatedDocument(doc)) throw new TypeError(`${where}: not an APIGroupDiscoveryList`);
    const items = (doc as { items?: unknown[] | null }).items ?? [];
    for (const item of items) addGroup(snapshot, item, where === '/api');
  }
  return snapshot;
}

function addGroup(snapshot: DiscoverySnapshot, item: unknown, core: boolean): void {
  if (!isObject(item)) return;
  const name = core ? '' : str(isObject(item.metadata) ? item.metadata.name : undefined);
  if (!core && name === '') return;
  const group: APIGroup = { name, versions: [], preferredVersion: '' };
  const versions = Array.isArray(item.versions) ? item.versions : [];
  for (const v of versions) {
    if (!isObject(v)) continue;
    const version = str(v.version);
    if (!version) continue;
    const gv = name ? `${name}/${version}` : version;
    if (v.freshness === 'Stale') {
      snapshot.failures.push(staleFailure(gv));
      continue;
    }
    group.versions.push(version);
    if (!group.preferredVersion) group.preferredVersion = version;
    snapshot.resources.set(gv, convertResources(name, version, v.resources));
  }
  // A group whose every version is stale is still listed (kubectl writes it with `"versions": null`).
  snapshot.groups.push(group);
}

export function staleFailure(gv: string): DiscoveryFailure {
  return { groupVersion: gv, reason: 'stale', message: `stale GroupVersion discovery: ${gv}` };
}

function convertResources(group: string, version: string, resources: unknown): APIResource[] {
  const out: APIResource[] = [];
  if (!Array.isArray(resources)) return out;
  for (const r of resources) {
    if (!isObject(r)) continue;
    const name = str(r.resource);
    if (!name) continue;
    const parent: APIResource = {
      name,
      singularName: str(r.singularResource),
      namespaced: r.scope === 'Namespaced',
      group,
      version,
      kind: '',
      verbs: strings(r.verbs),
      shortNames: strings(r.shortNames),
      categories: strings(r.categories),
    };
    const rk = r.responseKind;
    if (isObject(rk) && str(rk.kind)) {
      parent.kind = str(rk.kind);
      setKindGV(parent, rk);
      out.push(parent);
    }
    if (!Array.isArray(r.subresources)) continue;
    for (const s of r.subresources) {
      if (!isObject(s) || !str(s.subresource)) continue;
      const srk = s.responseKind;
      if (!isObject(srk) || !str(srk.kind)) continue;
      const sub: APIResource = {
        name: `${name}/${str(s.subresource)}`,
        singularName: parent.singularName,
        namespaced: parent.namespaced,
        group,
        version,
        kind: str(srk.kind),
        verbs: strings(s.verbs),
        shortNames: [],
        categories: [],
      };
      setKindGV(sub, srk);
      out.push(sub);
    }
  }
  return out;
}

/** Records the response kind's group/version only where it differs from the entry's own (CRDs repeat theirs). */
function setKindGV(r: APIResource, rk: Record<string, unknown>): void {
  const g = str(rk.group);
  const v = str(rk.version);
  if ((g && g !== r.group) || (v && v !== r.version)) {
    r.kindGroup = g || r.group;
    r.kindVersion = v || r.version;
  }
}
