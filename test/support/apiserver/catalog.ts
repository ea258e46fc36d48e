/**
 * What the local API server serves: the recorded v1.32 built-in API (data/builtins-v1.32.json) plus the
 * served versions of established CustomResourceDefinitions. Lookups are indexed and kept up to date
 * incrementally on every crdChanged; the ordered group list (for discovery and OpenAPI) is rebuilt
 * lazily, once per change, when first asked for.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createHash } from 'node:crypto';
import { byVersionPriority } from './versions.js';
import { loadBuiltins, type BuiltinData } from './builtins.js';
import { createDiscoveryHandler } from './discovery.js';
import { createOpenApiHandler } from './openapi.js';
import type { Catalog, Obj, RawResponse, ServedResource, SubresourceInfo } from './types.js';

/** A served resource as the catalog keeps it: ServedResource plus what discovery prints. */
export interface CatalogResource extends ServedResource {
  /** apiserver's storageVersionHash (legacy discovery), absent for resources without storage. */
  storageVersionHash?: string;
}

export interface ServedVersion {
  version: string;
  /** Sorted by plural name, as the real server lists them. */
  resources: CatalogResource[];
}

export interface ServedGroup {
  name: string; // '' = core
  /** Preferred version first. */
  versions: ServedVersion[];
  builtin: boolean;
}

/** The read side discovery.ts and openapi.ts build their documents from. */
export interface CatalogView {
  /** Increases on every change that can alter a document. */
  revision(): number;
  /** Core group first, then the built-in groups in recorded order, then CRD groups by name. */
  groups(): readonly ServedGroup[];
  group(name: string): ServedGroup | undefined;
  /** The recorded `/version` document. */
  versionInfo(): Obj;
  discoveryMode: 'aggregated' | 'legacy';
}

export interface CatalogOptions {
  discovery: 'aggregated' | 'legacy';
  /** Built-in data; loaded from data/builtins-v1.32.json when omitted. */
  builtins?: BuiltinData;
  /**
   * Recorded OpenAPI v3 documents by key (`api/v1`): their paths and component schemas replace the
   * generated ones of that group-version's document (openapi-fixtures.ts loads a real server's).
   */
  openapiDocuments?: ReadonlyMap<string, Obj>;
}

export interface LocalCatalog extends Catalog, CatalogView {
  /** The CRDs currently contributing resources (established ones), by CRD name. */
  crdNames(): string[];
}

const CRD_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
const SUB_VERBS = ['get', 'patch', 'update'];

export function createCatalog(options: CatalogOptions): LocalCatalog {
  const data = options.builtins ?? loadBuiltins();
  const builtinGroups = data.groups.map(builtinGroup);
  const byPath = new Map<string, CatalogResource>(); // g/v/plural
  const byKindKey = new Map<string, CatalogResource>(); // g/v/Kind
  const byGroupResource = new Map<string, CatalogResource[]>(); // g/plural -> by version priority
  const crds = new Map<string, CatalogResource[]>(); // CRD name -> its served resources
  let revision = 0;
  let cached: { revision: number; groups: ServedGroup[]; index: Map<string, ServedGroup> } | undefined;

  const add = (r: CatalogResource, builtinOrder: boolean) => {
    const gv = `${r.group}/${r.version}`;
    if (!byPath.has(`${gv}/${r.resource}`)) byPath.set(`${gv}/${r.resource}`, r);
    if (!byKindKey.has(`${gv}/${r.kind}`)) byKindKey.set(`${gv}/${r.kind}`, r);
    const key = `${r.group}/${r.resource}`;
    const list = byGroupResource.get(key) ?? [];
    list.push(r);
    if (!builtinOrder) list.sort((a, b) => byVersionPriority(a.version, b.version));
    byGroupResource.set(key, list);
  };
  const remove = (r: CatalogResource) => {
    const gv = `${r.group}/${r.version}`;
    if (byPath.get(`${gv}/${r.resource}`) === r) byPath.delete(`${gv}/${r.resource}`);
    if (byKindKey.get(`${gv}/${r.kind}`) === r) byKindKey.delete(`${gv}/${r.kind}`);
    const key = `${r.group}/${r.resource}`;
    const list = (byGroupResource.get(key) ?? []).filter((x) => x !== r);
    if (list.length) byGroupResource.set(key, list);
    else byGroupResource.delete(key);
  };
  for (const g of builtinGroups) for (const v of g.versions) for (const r of v.resources) add(r, true);

  const view = {
    revision: () => revision,
    groups: () => current().groups,
    group: (name: string) => current().index.get(name),
    versionInfo: () => data.version,
    discoveryMode: options.discovery,
  } satisfies CatalogView;

  function current() {
    if (cached?.revision === revision) return cached;
    const groups = buildGroups(builtinGroups, [...crds.values()].flat());
    cached = { revision, groups, index: new Map(groups.map((g) => [g.name, g])) };
    return cached;
  }

  const discovery = createDiscoveryHandler(view);
  const openapi = createOpenApiHandler(view, options.openapiDocuments);

  return {
    ...view,
    lookup: (group, version, resource) => byPath.get(`${group}/${version}/${resource}`),
    byKind: (group, version, kind) => byKindKey.get(`${group}/${version}/${kind}`),
    versionsOf: (group, resource) => [...(byGroupResource.get(`${group}/${resource}`) ?? [])],
    crdNames: () => [...crds.keys()],
    crdChanged(crd: Obj, deleted: boolean) {
      const name = String(crd?.metadata?.name ?? '');
      const before = crds.get(name);
      const after = deleted ? [] : crdResources(crd);
      if (!before && after.length === 0) return;
      for (const r of before ?? []) remove(r);
      if (after.length) crds.set(name, after);
      else crds.delete(name);
      for (const r of after) add(r, false);
      revision++;
    },
    serveDiscovery(method: string, path: string, headers: IncomingHttpHeaders): RawResponse | undefined {
      // `path` may carry the query string: OpenAPI uses `?hash=`, discovery ignores it.
      if (path.startsWith('/openapi/')) return openapi(method, path, headers);
      const q = path.indexOf('?');
      return discovery(method, q < 0 ? path : path.slice(0, q), headers);
    },
  };
}

function builtinGroup(g: BuiltinData['groups'][number]): ServedGroup {
  return {
    name: g.name,
    builtin: true,
    versions: g.versions.map((v) => ({
      version: v.version,
      resources: v.resources.map((r) => {
        const res: CatalogResource = {
          group: g.name,
          version: v.version,
          resource: r.resource,
          singular: r.singularResource,
          kind: r.responseKind.kind,
          namespaced: r.scope === 'Namespaced',
          verbs: r.verbs,
          shortNames: r.shortNames ?? [],
          categories: r.categories ?? [],
          subresources: (r.subresources ?? []).map((s) => ({
            name: s.subresource,
            kind: {
              group: s.responseKind.group || s.responseKind.version ? s.responseKind.group : g.name,
              version: s.responseKind.version || v.version,
              kind: s.responseKind.kind,
            },
            verbs: s.verbs,
          })),
        };
        if (r.storageVersionHash) res.storageVersionHash = r.storageVersionHash;
        return res;
      }),
    })),
  };
}

/** True when the CRD's status carries `Established=True`. */
export function isEstablished(crd: Obj): boolean {
  const conditions: unknown = crd?.status?.conditions;
  return Array.isArray(conditions) && conditions.some((c) => c?.type === 'Established' && c?.status === 'True');
}

/** The resources an established CRD serves, one per served version, in version priority order. */
export function crdResources(crd: Obj): CatalogResource[] {
  if (!isEstablished(crd)) return [];
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const group = String(spec.group ?? '');
  const kind = String(names.kind ?? '');
  const plural = String(names.plural ?? '');
  if (!group || !kind || !plural) return [];
  const versions: Obj[] = (Array.isArray(spec.versions) ? spec.versions : []).filter((v: Obj) => v?.served === true);
  const storage = (Array.isArray(spec.versions) ? spec.versions : []).find((v: Obj) => v?.storage === true)?.name ?? versions[0]?.name;
  const hash = createHash('sha256').update(`${group}/${storage}/${kind}`).digest().subarray(0, 8).toString('base64');
  return versions
    .map((v) => String(v.name))
    .sort(byVersionPriority)
    .map((version) => {
      const v = versions.find((x) => x.name === version)!;
      const subresources: SubresourceInfo[] = [];
      if (v.subresources?.status) subresources.push({ name: 'status', kind: { group, version, kind }, verbs: SUB_VERBS });
      if (v.subresources?.scale) subresources.push({ name: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: SUB_VERBS });
      return {
        group,
        version,
        resource: plural,
        singular: String(names.singular || kind.toLowerCase()),
        kind,
        namespaced: spec.scope !== 'Cluster',
        verbs: CRD_VERBS,
        shortNames: Array.isArray(names.shortNames) ? names.shortNames.map(String) : [],
        categories: Array.isArray(names.categories) ? names.categories.map(String) : [],
        subresources,
        crd,
        storageVersionHash: hash,
      };
    });
}

/** Built-in groups as recorded, then CRD groups by name; a CRD group's versions by priority. */
function buildGroups(builtins: ServedGroup[], custom: CatalogResource[]): ServedGroup[] {
  const byGroup = new Map<string, Map<string, CatalogResource[]>>();
  for (const r of custom) {
    const versions = byGroup.get(r.group) ?? new Map<string, CatalogResource[]>();
    byGroup.set(r.group, versions);
    versions.set(r.version, [...(versions.get(r.version) ?? []), r]);
  }
  const byName = (a: CatalogResource, b: CatalogResource) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0);
  const out: ServedGroup[] = builtins.map((g) => {
    const extra = byGroup.get(g.name);
    if (!extra) return g;
    byGroup.delete(g.name);
    const versions = g.versions.map((v) => ({ version: v.version, resources: [...v.resources, ...(extra.get(v.version) ?? [])].sort(byName) }));
    for (const [version, resources] of extra) if (!g.versions.some((v) => v.version === version)) versions.push({ version, resources: resources.sort(byName) });
    return { ...g, versions };
  });
  const names = [...byGroup.keys()].sort();
  for (const name of names) {
    const versions = [...byGroup.get(name)!.entries()]
      .sort(([a], [b]) => byVersionPriority(a, b))
      .map(([version, resources]) => ({ version, resources: resources.sort(byName) }));
    out.push({ name, versions, builtin: false });
  }
  return out;
}
