/**
 * Legacy discovery documents (`APIVersions`, `APIGroupList`, `APIResourceList`), both as the server
 * serves them and as kubectl writes them to its disk cache. Pure.
 */
import type { APIGroup, APIResource } from './types.js';
import { isObject, strings } from '../core/guards.js';

type Obj = Record<string, unknown>;

/** `/api` → the core versions (`APIVersions.versions`). Throws TypeError on a wrong document. */
export function parseAPIVersions(doc: unknown): string[] {
  if (!isObject(doc) || !Array.isArray(doc.versions)) throw new TypeError('/api: not an APIVersions document');
  return strings(doc.versions);
}

/** `/apis` or `servergroups.json` → groups, server order kept, preferred version as given. */
export function parseAPIGroupList(doc: unknown): APIGroup[] {
  if (!isObject(doc) || doc.kind !== 'APIGroupList' || !(Array.isArray(doc.groups) || doc.groups === null)) {
    throw new TypeError('not an APIGroupList');
  }
  const groups: APIGroup[] = [];
  for (const g of (doc.groups as unknown[] | null) ?? []) {
    if (!isObject(g) || typeof g.name !== 'string') throw new TypeError('APIGroupList: malformed group');
    const versions: string[] = [];
    for (const v of Array.isArray(g.versions) ? g.versions : []) {
      if (isObject(v) && typeof v.version === 'string' && v.version) versions.push(v.version);
    }
    const pv = isObject(g.preferredVersion) && typeof g.preferredVersion.version === 'string' ? g.preferredVersion.version : '';
    groups.push({ name: g.name, versions, preferredVersion: pv && versions.includes(pv) ? pv : (versions[0] ?? '') });
  }
  return groups;
}

/** An `APIResourceList` → resources of `group/version`. Throws TypeError on a wrong document. */
export function parseAPIResourceList(doc: unknown, group: string, version: string): APIResource[] {
  if (!isObject(doc) || !Array.isArray(doc.resources)) throw new TypeError('not an APIResourceList');
  const gv = group ? `${group}/${version}` : version;
  if (typeof doc.groupVersion === 'string' && doc.groupVersion !== gv) throw new TypeError(`APIResourceList for ${doc.groupVersion}, expected ${gv}`);
  const out: APIResource[] = [];
  for (const r of doc.resources) {
    if (!isObject(r) || typeof r.name !== 'string' || !r.name || typeof r.kind !== 'string') throw new TypeError('APIResourceList: malformed resource');
    const res: APIResource = {
      name: r.name,
      singularName: typeof r.singularName === 'string' ? r.singularName : '',
      namespaced: r.namespaced === true,
      group,
      version,
      kind: r.kind,
      verbs: strings(r.verbs),
      shortNames: strings(r.shortNames),
      categories: strings(r.categories),
    };
    const kg = typeof r.group === 'string' ? r.group : '';
    const kv = typeof r.version === 'string' ? r.version : '';
    if ((kg && kg !== group) || (kv && kv !== version)) {
      res.kindGroup = kg || group;
      res.kindVersion = kv || version;
    }
    out.push(res);
  }
  return out;
}

/** kubectl's `servergroups.json` content (compact JSON, newline-terminated, core group first). */
export function formatAPIGroupList(groups: readonly APIGroup[]): string {
  const gs = groups.map((g) => {
    const gvf = (v: string) => ({ groupVersion: g.name ? `${g.name}/${v}` : v, version: v });
    return {
      name: g.name,
      versions: g.versions.length ? g.versions.map(gvf) : null,
      preferredVersion: g.preferredVersion ? gvf(g.preferredVersion) : { groupVersion: '', version: '' },
    };
  });
  return JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: gs }) + '\n';
}

/** kubectl's `serverresources.json` content for one group-version. */
export function formatAPIResourceList(gv: string, resources: readonly APIResource[]): string {
  const rs = resources.map((r) => {
    const o: Obj = { name: r.name, singularName: r.singularName, namespaced: r.namespaced };
    if (r.kindGroup !== undefined || r.kindVersion !== undefined) {
      o.group = r.kindGroup ?? r.group;
      o.version = r.kindVersion ?? r.version;
    }
    o.kind = r.kind;
    o.verbs = r.verbs;
    if (r.shortNames.length) o.shortNames = r.shortNames;
    if (r.categories.length) o.categories = r.categories;
    return o;
  });
  return JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources: rs }) + '\n';
}
