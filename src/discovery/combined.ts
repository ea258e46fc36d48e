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
  return JSON.stringify(body) + '\n';
}

/** Parses and validates; undefined for anything that is not a well-formed combined file for `server`. */
export function parseCombined(text: string, server: string): CombinedCache | undefined {
  try {
    const o: unknown = JSON.parse(text);
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
    /* corrupt or truncated */
  }
  return undefined;
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
