/**
 * kdyn's combined cache file (`<root>/kdyn/<host>/discovery.json`): everything one discovery run
 * learned, in one file, so a warm lookup reads one file instead of one per group-version. kubectl
 * never reads it. For aggregated discovery it keeps each document's ETag for If-None-Match. Pure
 * (de)serialisation; a file that does not validate is treated as absent.
 */
import type { APIGroup, APIResource, DiscoveryFailure, DiscoverySnapshot } from './types.js';

export const COMBINED_FORMAT = 'kdyn.discovery-cache/v1';

export interface CachedPart {
  etag?: string;
  part: DiscoverySnapshot;
}

export type CombinedCache =
  | { mode: 'aggregated'; server: string; api: CachedPart; apis: CachedPart }
  | { mode: 'legacy'; server: string; snapshot: DiscoverySnapshot };

export function formatCombined(c: CombinedCache): string {
  const body: Record<string, unknown> = { format: COMBINED_FORMAT, server: c.server, mode: c.mode };
  if (c.mode === 'aggregated') {
    body.api = { etag: c.api.etag, part: serialize(c.api.part) };
    body.apis = { etag: c.apis.etag, part: serialize(c.apis.part) };
  } else {
    body.snapshot = serialize(c.snapshot);
  }
  body.index = lookupIndex(c.mode === 'aggregated' ? [c.api.part, c.apis.part] : [c.snapshot]);
  return JSON.stringify(body) + '\n';
}

/** Parses and validates; undefined for anything that is not a well-formed combined file for `server`. */
export function parseCombined(text: string, server: string): CombinedCache | undefined {
  try {
    return validateCombined(JSON.parse(text), server);
  } catch {
    return undefined; // corrupt or truncated
  }
}

/** Validates a JSON-parsed combined file; undefined for anything that is not a well-formed combined file for `server`. */
export function validateCombined(o: unknown, server: string): CombinedCache | undefined {
  try {
    if (!isObj(o) || o.format !== COMBINED_FORMAT || o.server !== server) return undefined;
    if (o.mode === 'aggregated') {
      const api = cachedPart(o.api);
      const apis = cachedPart(o.apis);
      return api && apis ? { mode: 'aggregated', server, api, apis } : undefined;
    }
    if (o.mode === 'legacy') {
      const snapshot = deserialize(o.snapshot);
      return snapshot ? { mode: 'legacy', server, snapshot } : undefined;
    }
  } catch {
    /* malformed */
  }
  return undefined;
}

/**
 * The part of a JSON-parsed combined file that can answer a lookup of `token` (a lower-cased plural,
 * singular, Kind, short name or category): every group the file's lookup index lists for it, in file
 * order, with all of their versions' resources, validated like the whole file would be (the other
 * groups are not looked at). A token the index does not list gives a snapshot without groups.
 * Undefined (use the whole file) when the file is not for `server`, is malformed, or has no index.
 */
export function indexedSnapshot(o: unknown, server: string, token: string): DiscoverySnapshot | undefined {
  if (!isObj(o) || o.format !== COMBINED_FORMAT || o.server !== server || !isObj(o.index)) return undefined;
  const raw = o.mode === 'aggregated' ? [isObj(o.api) ? o.api.part : undefined, isObj(o.apis) ? o.apis.part : undefined] : o.mode === 'legacy' ? [o.snapshot] : [];
  const parts: Array<{ groups: unknown[]; resources: unknown[]; failures: unknown[] }> = [];
  for (const p of raw) {
    if (!isObj(p) || !Array.isArray(p.groups) || !Array.isArray(p.resources) || !Array.isArray(p.failures)) return undefined;
    parts.push({ groups: p.groups, resources: p.resources, failures: p.failures });
  }
  const positions = Object.hasOwn(o.index, token) ? o.index[token] : [];
  if (!parts.length || !Array.isArray(positions)) return undefined;
  const names = new Set<unknown>();
  for (const n of positions as unknown[]) {
    let i = typeof n === 'number' ? n : -1;
    let g: unknown;
    for (const p of parts) {
      if (i < p.groups.length) {
        g = p.groups[i];
        break;
      }
      i -= p.groups.length;
    }
    if (!isObj(g) || typeof g.name !== 'string') return undefined;
    names.add(g.name);
  }
  const picked: { groups: unknown[]; resources: unknown[]; failures: unknown[] } = { groups: [], resources: [], failures: [] };
  for (const p of parts) {
    for (const g of p.groups) if (isObj(g) && names.has(g.name)) picked.groups.push(g);
    for (const e of p.resources) if (Array.isArray(e) && typeof e[0] === 'string' && names.has(groupOf(e[0]))) picked.resources.push(e);
    picked.failures.push(...p.failures);
  }
  return deserialize(picked);
}

/**
 * Lower-cased plural, singular, Kind, short name and category -> positions of the groups serving it
 * (in file order: api's groups, then apis'). Every name a RESTMapper lookup of one type can consult
 * is one of these keys, so the listed groups are all a lookup needs. Written only when no listed
 * group-version lacks resources (those are asked for again, which needs the whole file): so an index
 * also means "nothing to refetch".
 */
function lookupIndex(parts: DiscoverySnapshot[]): Record<string, number[]> | undefined {
  const resources = new Map(parts.flatMap((p) => [...p.resources]));
  const stale = new Set(parts.flatMap((p) => p.failures.filter((f) => f.reason === 'stale').map((f) => f.groupVersion)));
  const index = new Map<string, number[]>();
  let at = -1;
  const add = (token: string) => {
    const list = index.get(token);
    if (!list) index.set(token, [at]);
    else if (list[list.length - 1] !== at) list.push(at);
  };
  for (const g of parts.flatMap((p) => p.groups)) {
    at++;
    for (const v of g.versions) {
      const gv = g.name ? `${g.name}/${v}` : v;
      if (!resources.has(gv) && !stale.has(gv)) return undefined;
    }
    for (const v of new Set([g.preferredVersion, ...g.versions])) {
      for (const r of resources.get(g.name ? `${g.name}/${v}` : v) ?? []) {
        if (r.name.includes('/')) continue; // subresources are not types
        add(r.name.toLowerCase());
        if (r.singularName) add(r.singularName.toLowerCase());
        add(r.kind.toLowerCase());
        for (const s of r.shortNames) add(s.toLowerCase());
        for (const c of r.categories) add(c.toLowerCase());
      }
    }
  }
  return Object.fromEntries(index);
}

function groupOf(gv: string): string {
  const i = gv.indexOf('/');
  return i < 0 ? '' : gv.slice(0, i);
}

export function combinedSnapshot(c: CombinedCache): DiscoverySnapshot {
  if (c.mode === 'legacy') return c.snapshot;
  return {
    groups: [...c.api.part.groups, ...c.apis.part.groups],
    resources: new Map([...c.api.part.resources, ...c.apis.part.resources]),
    failures: [...c.api.part.failures, ...c.apis.part.failures],
  };
}

function cachedPart(x: unknown): CachedPart | undefined {
  if (!isObj(x)) return undefined;
  const part = deserialize(x.part);
  if (!part) return undefined;
  if (x.etag !== undefined && typeof x.etag !== 'string') return undefined;
  return typeof x.etag === 'string' ? { etag: x.etag, part } : { part };
}

// Resources are stored without their group/version (the key has them) to keep the file small.
function serialize(s: DiscoverySnapshot): unknown {
  return {
    groups: s.groups,
    resources: [...s.resources].map(([gv, list]) => [gv, list.map(({ group: _g, version: _v, ...rest }) => rest)]),
    failures: s.failures.filter((f) => f.reason === 'stale'),
  };
}

function deserialize(x: unknown): DiscoverySnapshot | undefined {
  if (!isObj(x) || !Array.isArray(x.groups) || !Array.isArray(x.resources) || !Array.isArray(x.failures)) return undefined;
  const groups: APIGroup[] = [];
  for (const g of x.groups) {
    if (!isObj(g) || typeof g.name !== 'string' || !isStrings(g.versions) || typeof g.preferredVersion !== 'string') return undefined;
    groups.push({ name: g.name, versions: g.versions, preferredVersion: g.preferredVersion });
  }
  const resources = new Map<string, APIResource[]>();
  for (const entry of x.resources) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !Array.isArray(entry[1])) return undefined;
    const gv: string = entry[0];
    const i = gv.indexOf('/');
    const group = i < 0 ? '' : gv.slice(0, i);
    const version = i < 0 ? gv : gv.slice(i + 1);
    const list: APIResource[] = [];
    for (const r of entry[1] as unknown[]) {
      if (!isObj(r)) return undefined;
      const { name, singularName, namespaced, kind, verbs, shortNames, categories, kindGroup, kindVersion } = r;
      if (typeof name !== 'string' || typeof singularName !== 'string' || typeof namespaced !== 'boolean' || typeof kind !== 'string') return undefined;
      if (!isStrings(verbs) || !isStrings(shortNames) || !isStrings(categories)) return undefined;
      const res: APIResource = { name, singularName, namespaced, group, version, kind, verbs, shortNames, categories };
      if (kindGroup !== undefined || kindVersion !== undefined) {
        if (typeof kindGroup !== 'string' || typeof kindVersion !== 'string') return undefined;
        res.kindGroup = kindGroup;
        res.kindVersion = kindVersion;
      }
      list.push(res);
    }
    resources.set(gv, list);
  }
  const failures: DiscoveryFailure[] = [];
  for (const f of x.failures) {
    if (!isObj(f) || typeof f.groupVersion !== 'string' || f.reason !== 'stale' || typeof f.message !== 'string') return undefined;
    failures.push({ groupVersion: f.groupVersion, reason: 'stale', message: f.message });
  }
  return { groups, resources, failures };
}

function isObj(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
function isStrings(x: unknown): x is string[] {
  return Array.isArray(x) && x.every((s) => typeof s === 'string');
}
