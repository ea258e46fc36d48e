/**
 * Discovery faults: rewrites of the `/apis` (and `/api`) documents the catalog serves.
 * - markStale: the chosen group-versions carry `freshness: "Stale"` in aggregated discovery (as when
 *   an aggregated API server stops answering);
 * - hostileDiscovery: an extra group whose names contain `/`, `..` or NUL, or are 10 kB long; a
 *   50 MB document; or invalid JSON. Legacy (`APIGroupList`) and aggregated forms alike.
 */
import { createHash } from 'node:crypto';
import type { Catalog, Obj, RawResponse } from './types.js';
import type { HostileDiscovery } from './faults.js';

const isAggregated = (r: RawResponse) => /as=APIGroupDiscoveryList/.test(r.headers['content-type'] ?? '');

function withBody(r: RawResponse, body: string): RawResponse {
  const headers = { ...r.headers };
  if (headers.etag) headers.etag = `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"`;
  return { ...r, headers, body };
}

/** The aggregated document with the given group-versions (`apps/v1`, `v1`) marked Stale. */
export function markStale(r: RawResponse, gvs: string[]): RawResponse {
  if (r.status !== 200 || !isAggregated(r) || !gvs.length) return r;
  const doc = JSON.parse(String(r.body)) as Obj;
  for (const g of doc.items ?? []) {
    for (const v of g.versions ?? []) {
      const gv = g.metadata?.name ? `${g.metadata.name}/${v.version}` : v.version;
      if (gvs.includes(gv)) v.freshness = 'Stale';
    }
  }
  return withBody(r, JSON.stringify(doc));
}

/**
 * The `/apis` document without the given groups (aggregated or legacy): kube-apiserver publishes a
 * new CRD's group in discovery a moment after the CRD is Established.
 */
export function withoutGroups(r: RawResponse, groups: string[]): RawResponse {
  if (r.status !== 200 || !groups.length) return r;
  const doc = JSON.parse(String(r.body)) as Obj;
  const key = isAggregated(r) ? 'items' : 'groups';
  const nameOf = (g: Obj): unknown => (key === 'items' ? g.metadata?.name : g.name);
  doc[key] = (doc[key] ?? []).filter((g: Obj) => !groups.includes(String(nameOf(g))));
  return withBody(r, JSON.stringify(doc));
}

/** Names for one hostile group: [group, version, resource]. */
function hostileNames(kind: HostileDiscovery): [string, string, string] {
  switch (kind) {
    case 'slash':
      return ['evil/group.example.com', 'v1/../../x', 'things/../../secrets'];
    case 'dotdot':
      return ['..', '..', '..'];
    case 'nul':
      return ['evil\u0000group.example.com', 'v1\u0000', 'things\u0000'];
    case 'long':
      return [`${'a'.repeat(10 * 1024)}.example.com`, `v${'1'.repeat(10 * 1024)}`, 'r'.repeat(10 * 1024)];
    default:
      return ['huge.example.com', 'v1', 'things'];
  }
}

/** How many resources make the `huge` document about 50 MB. */
const HUGE_RESOURCES = 200_000;

/**
 * The `huge` documents made so far, by the document they were made from: making one (200,000
 * entries, 71 or 151 MiB of JSON, hashed for its ETag) stops the server's event loop for seconds, 12 s
 * on a loaded machine, and every server of the process with it; made once (`prepareHugeDiscovery`
 * before the clients run), a request costs only the write.
 */
const hugeDocuments = new Map<string, RawResponse>();

/** Makes the `huge` documents a client sending `accept` will be served, now rather than on its request. */
export function prepareHugeDiscovery(catalog: Pick<Catalog, 'serveDiscovery'>, accept: string): void {
  for (const path of ['/api', '/apis']) {
    const r = catalog.serveDiscovery('GET', path, { accept });
    if (r) hostileDiscovery(r, 'huge');
  }
}

export function hostileDiscovery(r: RawResponse, kind: HostileDiscovery): RawResponse {
  if (r.status !== 200) return r;
  if (kind === 'huge') {
    const key = `${r.headers['content-type'] ?? ''}\0${String(r.body)}`;
    let made = hugeDocuments.get(key);
    if (!made) {
      const m = makeHostile(r, kind);
      hugeDocuments.set(key, (made = { ...m, body: typeof m.body === 'string' ? Buffer.from(m.body) : m.body }));
    }
    return { ...made, headers: { ...made.headers } };
  }
  return makeHostile(r, kind);
}

function makeHostile(r: RawResponse, kind: HostileDiscovery): RawResponse {
  if (kind === 'invalid-json') return withBody(r, `${String(r.body).slice(0, Math.max(1, Math.floor(String(r.body).length / 2)))}\u0000not json`);
  const [group, version, resource] = hostileNames(kind);
  const doc = JSON.parse(String(r.body)) as Obj;
  const count = kind === 'huge' ? HUGE_RESOURCES : 1;
  if (isAggregated(r)) {
    const resources = Array.from({ length: count }, (_, i) => ({
      resource: count > 1 ? `${resource}${i}-${'x'.repeat(200)}` : resource,
      responseKind: { group, version, kind: 'Thing' },
      scope: 'Namespaced',
      singularResource: 'thing',
      verbs: ['get', 'list'],
    }));
    doc.items = [...(doc.items ?? []), { metadata: { name: group, creationTimestamp: null }, versions: [{ version, resources, freshness: 'Current' }] }];
  } else if (Array.isArray(doc.groups)) {
    const groups = Array.from({ length: count }, (_, i) => {
      const name = count > 1 ? `g${i}-${'x'.repeat(200)}.${group}` : group;
      const gv = { groupVersion: `${name}/${version}`, version };
      return { name, versions: [gv], preferredVersion: gv };
    });
    doc.groups = [...doc.groups, ...groups];
  } else return r; // /api (APIVersions): left alone
  return withBody(r, JSON.stringify(doc));
}
