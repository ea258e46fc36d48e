/**
 * Discovery documents as a v1.32 API server serves them: `/version`, legacy `/api`, `/apis`, `/apis/G`,
 * `/api/v1`, `/apis/G/V`, and aggregated `/api`, `/apis` (apidiscovery.k8s.io v2 and v2beta1, chosen
 * by Accept, with ETag / If-None-Match / Vary). Documents are cached per catalog revision, so a
 * thousand CRD groups cost one rebuild per change, not one per request.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createHash } from 'node:crypto';
import type { CatalogResource, CatalogView, ServedGroup } from './catalog.js';
import type { Obj, RawResponse } from './types.js';

const JSON_TYPE = 'application/json';
const LEGACY_HEADERS = { 'cache-control': 'no-cache, private', 'content-type': JSON_TYPE };
const AGGREGATED_GROUP = 'apidiscovery.k8s.io';
const AGGREGATED_AS = 'APIGroupDiscoveryList';
export type AggregatedVersion = 'v2' | 'v2beta1';

/** The real server's answer for a path nobody serves. */
export function notFound(): RawResponse {
  return {
    status: 404,
    headers: { 'cache-control': 'no-cache, private', 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
    body: '404 page not found\n',
  };
}

export type DiscoveryHandler = (method: string, path: string, headers: IncomingHttpHeaders) => RawResponse | undefined;

export function createDiscoveryHandler(view: CatalogView): DiscoveryHandler {
  let cacheRevision = -1;
  const cache = new Map<string, { body: string; etag?: string }>();
  const cached = (key: string, build: () => Obj, withEtag = false) => {
    if (cacheRevision !== view.revision()) {
      cache.clear();
      cacheRevision = view.revision();
    }
    let hit = cache.get(key);
    if (!hit) {
      const body = JSON.stringify(build());
      hit = withEtag ? { body, etag: `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"` } : { body };
      cache.set(key, hit);
    }
    return hit;
  };
  const legacy = (key: string, build: () => Obj): RawResponse => ({ status: 200, headers: { ...LEGACY_HEADERS }, body: cached(key, build).body });

  return (method, path, headers) => {
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    if (path === '/version' || path === '/version/') {
      return { status: 200, headers: { ...LEGACY_HEADERS }, body: JSON.stringify(view.versionInfo()) };
    }
    const parts = path.split('/').filter(Boolean);
    if (parts[0] === 'api' && parts.length <= 2) {
      if (parts.length === 1) {
        const choice = negotiate(headers.accept, view.discoveryMode);
        if (choice === undefined) return notAcceptable();
        if (choice === 'legacy') return { status: 200, headers: { ...LEGACY_HEADERS }, body: JSON.stringify(apiVersions(view, headers.host)) };
        return aggregated(cached(`api:${choice}`, () => aggregatedList(view, 'core', choice), true), choice, headers);
      }
      const core = view.group('');
      const version = core?.versions.find((v) => v.version === parts[1]);
      if (!version) return notFound();
      return legacy(`api/${parts[1]}`, () => resourceList('', version.version, version.resources));
    }
    if (parts[0] === 'apis' && parts.length <= 3) {
      if (parts.length === 1) {
        const choice = negotiate(headers.accept, view.discoveryMode);
        if (choice === undefined) return notAcceptable();
        if (choice === 'legacy') return legacy('apis', () => groupList(view));
        return aggregated(cached(`apis:${choice}`, () => aggregatedList(view, 'groups', choice), true), choice, headers);
      }
      const group = parts[1] ? view.group(parts[1]) : undefined;
      if (!group || group.name === '') return notFound();
      if (parts.length === 2) return legacy(`apis/${group.name}`, () => ({ kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group) }));
      const version = group.versions.find((v) => v.version === parts[2]);
      if (!version) return notFound();
      return legacy(`apis/${group.name}/${version.version}`, () => resourceList(group.name, version.version, version.resources));
    }
    return undefined;
  };
}

/**
 * Picks the document for an Accept header: an aggregated version, 'legacy', or undefined (406).
 * Entries are tried by q value, then in order; legacy mode ignores the aggregated media types,
 * as servers before v1.26 did.
 */
export function negotiate(accept: string | string[] | undefined, mode: 'aggregated' | 'legacy'): AggregatedVersion | 'legacy' | undefined {
  const value = Array.isArray(accept) ? accept.join(',') : accept;
  if (!value || !value.trim()) return 'legacy';
  const entries = value.split(',').map((raw, i) => {
    const [type = '', ...params] = raw.split(';').map((s) => s.trim());
    const p: Record<string, string> = {};
    for (const kv of params) {
      const eq = kv.indexOf('=');
      if (eq > 0) p[kv.slice(0, eq).trim().toLowerCase()] = kv.slice(eq + 1).trim();
    }
    const q = p.q === undefined ? 1 : Number(p.q);
    return { type: type.toLowerCase(), p, q: Number.isFinite(q) ? q : 0, i };
  });
  entries.sort((a, b) => b.q - a.q || a.i - b.i);
  for (const e of entries) {
    if (e.q <= 0) continue;
    const json = e.type === JSON_TYPE || e.type === 'application/*' || e.type === '*/*';
    if (!json) continue;
    if (e.p.g || e.p.v || e.p.as) {
      if (mode === 'legacy' || e.type !== JSON_TYPE) continue;
      if (e.p.g === AGGREGATED_GROUP && e.p.as === AGGREGATED_AS && (e.p.v === 'v2' || e.p.v === 'v2beta1')) return e.p.v;
      continue;
    }
    return 'legacy';
  }
  return undefined;
}

function aggregated(doc: { body: string; etag?: string }, version: AggregatedVersion, headers: IncomingHttpHeaders): RawResponse {
  const base = { 'cache-control': 'public', etag: doc.etag!, vary: 'Accept' };
  const inm = headers['if-none-match'];
  if (inm && inm.split(',').some((t) => t.trim() === doc.etag)) return { status: 304, headers: base, body: '' };
  return {
    status: 200,
    headers: { 'cache-control': 'public', 'content-type': `${JSON_TYPE};g=${AGGREGATED_GROUP};v=${version};as=${AGGREGATED_AS}`, etag: doc.etag!, vary: 'Accept' },
    body: doc.body,
  };
}

function notAcceptable(): RawResponse {
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'only the following media types are accepted: application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
    reason: 'NotAcceptable',
    code: 406,
  };
  return { status: 406, headers: { ...LEGACY_HEADERS }, body: JSON.stringify(status) };
}

function apiVersions(view: CatalogView, host: string | undefined): Obj {
  return {
    kind: 'APIVersions',
    versions: (view.group('')?.versions ?? []).map((v) => v.version),
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: host || '127.0.0.1:6443' }],
  };
}

function apiGroup(g: ServedGroup): Obj {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v.version}`, version: v.version }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

function groupList(view: CatalogView): Obj {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: view.groups().filter((g) => g.name !== '').map(apiGroup) };
}

/** Legacy `APIResourceList`; subresources as `pods/status`, sorted by path as apiserver installs them. */
export function resourceList(group: string, version: string, resources: readonly CatalogResource[]): Obj {
  const out: Obj[] = [];
  for (const r of resources) {
    const entry: Obj = { name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: r.verbs };
    if (r.shortNames.length) entry.shortNames = r.shortNames;
    if (r.categories.length) entry.categories = r.categories;
    if (r.storageVersionHash) entry.storageVersionHash = r.storageVersionHash;
    out.push(entry);
    const subs = r.crd ? r.subresources : [...r.subresources].sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const s of subs) {
      const sub: Obj = { name: `${r.resource}/${s.name}`, singularName: '', namespaced: r.namespaced };
      if (s.kind && (s.kind.group !== group || s.kind.version !== version)) {
        sub.group = s.kind.group;
        sub.version = s.kind.version;
      }
      sub.kind = s.kind?.kind ?? r.kind;
      sub.verbs = s.verbs;
      out.push(sub);
    }
  }
  const list: Obj = { kind: 'APIResourceList' };
  if (group) list.apiVersion = 'v1';
  list.groupVersion = group ? `${group}/${version}` : version;
  list.resources = out;
  return list;
}

/** `APIGroupDiscoveryList` for `/api` (core) or `/apis` (groups). */
export function aggregatedList(view: CatalogView, which: 'core' | 'groups', version: AggregatedVersion): Obj {
  const groups = view.groups().filter((g) => (which === 'core' ? g.name === '' : g.name !== ''));
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `${AGGREGATED_GROUP}/${version}`,
    metadata: {},
    items: groups.map((g) => ({
      metadata: g.name ? { name: g.name, creationTimestamp: null } : { creationTimestamp: null },
      versions: g.versions.map((v) => ({ version: v.version, resources: v.resources.map(aggregatedResource), freshness: 'Current' })),
    })),
  };
}

function aggregatedResource(r: CatalogResource): Obj {
  // Built-ins print their own group-version as empty strings; CRDs spell it out (as recorded).
  const kindOf = (k: { group: string; version: string; kind: string }) =>
    r.crd || k.group !== r.group || k.version !== r.version ? { group: k.group, version: k.version, kind: k.kind } : { group: '', version: '', kind: k.kind };
  const entry: Obj = {
    resource: r.resource,
    responseKind: kindOf({ group: r.group, version: r.version, kind: r.kind }),
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: r.verbs,
  };
  if (r.shortNames.length) entry.shortNames = r.shortNames;
  if (r.categories.length) entry.categories = r.categories;
  if (r.subresources.length) {
    entry.subresources = r.subresources.map((s) => ({
      subresource: s.name,
      responseKind: kindOf(s.kind ?? { group: r.group, version: r.version, kind: r.kind }),
      verbs: s.verbs,
    }));
  }
  return entry;
}
