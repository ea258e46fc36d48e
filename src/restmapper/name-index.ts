/**
 * The RESTMapper's name index: which groups can answer a lookup of one name, so a warm lookup reads
 * only those groups from the discovery cache instead of the whole snapshot.
 *
 * It belongs here because its keys are the RESTMapper's rules: every table a lookup of `crontabs`,
 * `ct`, `CronTab.v1.stable.example.com` or a category consults is keyed by the lower-cased first name
 * segment (lookupToken), and a resource is found under its plural, singular, Kind, short names and
 * categories (the keys below). It is derived from a discovery snapshot and names groups by their
 * position in `snapshot.groups` (the order of kdyn's combined cache file), so discovery can hand over
 * just those groups without knowing what the names mean.
 *
 * Discovery stores it in its combined cache file as opaque data (createCachedDiscovery's `index`
 * option; src/connect.ts passes buildNameIndex): one file, one read, never out of step with the
 * groups it indexes. A malformed stored index sends the lookup to the full path.
 */
import type { DiscoverySnapshot } from '../discovery/types.js';

/** Lower-cased name -> positions (in `snapshot.groups`) of the groups serving a resource by that name. */
export type NameIndex = ReadonlyMap<string, readonly number[]>;

/**
 * The key a lookup of resource argument `arg` (`crontabs`, `ct.stable`, `Pod.v1.`) consults: its
 * lower-cased first segment. Undefined for non-ASCII input (lower-casing may move or merge characters:
 * the full mapper answers it).
 */
export function lookupToken(arg: string): string | undefined {
  return isAscii(arg) ? arg.toLowerCase().split('.')[0]! : undefined;
}

/** The key a category expansion (`all`) consults: the lower-cased name; undefined for non-ASCII input. */
export function categoryToken(name: string): string | undefined {
  return isAscii(name) ? name.toLowerCase() : undefined;
}

function isAscii(s: string): boolean {
  return /^[\x20-\x7e]*$/.test(s);
}

/**
 * Every lower-cased plural, singular, Kind, short name and category, with the positions of the groups
 * serving it (subresources are not types). Any version of a group counts, the preferred one first.
 * Undefined when a listed group-version has no resources and did not fail as stale: those are asked
 * for again, which needs the whole snapshot, so an index also means "nothing to refetch".
 */
export function buildNameIndex(s: DiscoverySnapshot): NameIndex | undefined {
  const stale = new Set(s.failures.filter((f) => f.reason === 'stale').map((f) => f.groupVersion));
  const index = new Map<string, number[]>();
  let at = -1;
  const add = (token: string) => {
    const list = index.get(token);
    if (!list) index.set(token, [at]);
    else if (list[list.length - 1] !== at) list.push(at);
  };
  for (const g of s.groups) {
    at++;
    for (const v of g.versions) {
      const gv = g.name ? `${g.name}/${v}` : v;
      if (!s.resources.has(gv) && !stale.has(gv)) return undefined;
    }
    for (const v of new Set([g.preferredVersion, ...g.versions])) {
      for (const r of s.resources.get(g.name ? `${g.name}/${v}` : v) ?? []) {
        if (r.name.includes('/')) continue;
        add(r.name.toLowerCase());
        if (r.singularName) add(r.singularName.toLowerCase());
        add(r.kind.toLowerCase());
        for (const n of r.shortNames) add(n.toLowerCase());
        for (const c of r.categories) add(c.toLowerCase());
      }
    }
  }
  return index;
}

/** The positions of the groups that can answer `token` (none when it names nothing). */
export function groupsFor(index: NameIndex, token: string): readonly number[] {
  return index.get(token) ?? [];
}
