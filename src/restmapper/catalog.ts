/**
 * The lookup tables a RESTMapper needs, built from a DiscoverySnapshot. Start-up matters (kdyn runs
 * thousands of times in CI loops, and a server may have 1,000 CRD groups), so the constructor makes one
 * lean pass that indexes names only; short names, categories and kinds are indexed on first use from
 * the short lists that pass collects. Every lookup is a Map hit plus a scan of the few group-versions
 * serving that name; nothing scans all resources.
 *
 * Mirrors client-go restmapper/discovery.go NewDiscoveryRESTMapper: one DefaultRESTMapper per
 * group-version (for the same key, a later entry of that group-version replaces an earlier one),
 * plural + singular (served, or guessed from the Kind) + Kind registered, subresources skipped, and a
 * priority rank per group-version: core v1 first, then per group in server order the preferred
 * version followed by the other versions.
 */
import type { APIGroup, APIResource, DiscoverySnapshot } from '../discovery/types.js';

export interface GVInfo {
  readonly group: string;
  readonly version: string;
  /** `v1` or `group/version`. */
  readonly key: string;
  /** Lower is preferred. */
  readonly rank: number;
  readonly groupInfo: APIGroup;
}

export interface Hit {
  readonly gv: GVInfo;
  readonly res: APIResource;
}

/** One hit, or several (one per group-version): most names have exactly one, so no array is made for them. */
type Hits = Hit | Hit[];

export class Catalog {
  /** Group-versions in discovery order (groups in server order, versions in preference order). */
  readonly gvs: GVInfo[] = [];
  readonly byGroup = new Map<string, GVInfo[]>();
  /** Group-versions the snapshot lacks (failed or stale discovery). */
  readonly incomplete: readonly string[];
  readonly #snapshot: DiscoverySnapshot;
  /** Lowercased plural and singular -> hits (apimachinery resourceToKind). */
  readonly #byName = new Map<string, Hits>();
  #withShortNames: Hit[] = [];
  #withCategories: Hit[] = [];
  /** Some group's preferred version is not its first: the collected lists are not in discovery order. */
  #reordered = false;
  #shortcuts: Map<string, Hit[]> | undefined;
  #categories: Map<string, Hit[]> | undefined;
  #byKind: Map<string, Hits> | undefined;

  constructor(snapshot: DiscoverySnapshot) {
    this.#snapshot = snapshot;
    this.incomplete = snapshot.failures.map((f) => f.groupVersion);
    let nextRank = 1; // 0 is core v1's
    for (const group of snapshot.groups) {
      const prefix = group.name ? `${group.name}/` : '';
      const preferred = group.preferredVersion || group.versions[0] || '';
      const versions = group.versions[0] === preferred ? group.versions : [preferred, ...group.versions.filter((v) => v !== preferred)];
      const gvsOfGroup: GVInfo[] = [];
      for (const version of versions) {
        const key = prefix + version;
        const resources = snapshot.resources.get(key);
        if (!resources) continue;
        const gv: GVInfo = { group: group.name, version, key, rank: key === 'v1' ? 0 : nextRank++, groupInfo: group };
        gvsOfGroup.push(gv);
        for (const res of resources) {
          if (res.name.includes('/')) continue; // subresources are not types
          const hit: Hit = { gv, res };
          const plural = res.name.toLowerCase();
          const singular = (res.singularName || res.kind).toLowerCase();
          setPerGV(this.#byName, singular, hit);
          if (plural !== singular) setPerGV(this.#byName, plural, hit);
          if (res.shortNames.length) this.#withShortNames.push(hit);
          if (res.categories.length) this.#withCategories.push(hit);
        }
      }
      if (versions !== group.versions) {
        // Back to discovery order (the server's version order), which shortcuts and categories follow.
        gvsOfGroup.sort((a, b) => group.versions.indexOf(a.version) - group.versions.indexOf(b.version));
        this.#reordered = true;
      }
      this.gvs.push(...gvsOfGroup);
      const existing = this.byGroup.get(group.name);
      if (existing) existing.push(...gvsOfGroup);
      else this.byGroup.set(group.name, gvsOfGroup);
    }
  }

  /** Hits for a lowercased plural or singular. */
  byName(name: string): readonly Hit[] {
    return asList(this.#byName.get(name));
  }

  /** Every lowercased name, with its hits (for suggestions). */
  names(): IterableIterator<[string, Hits]> {
    return this.#byName.entries();
  }

  /** Lowercased short name -> resources claiming it, in discovery order. */
  get shortcuts(): Map<string, Hit[]> {
    return (this.#shortcuts ??= this.#indexShortcuts());
  }

  /** Lowercased category -> members in discovery order, de-duplicated by group/resource. */
  get categories(): Map<string, Hit[]> {
    return (this.#categories ??= this.#indexCategories());
  }

  /** Kind and lowercased Kind -> one hit per group-version (kindToPluralResource: the last resource with that Kind). */
  byKind(kind: string): readonly Hit[] {
    this.#byKind ??= this.#indexKinds();
    return asList(this.#byKind.get(kind));
  }

  /** Subresource names of `plural` in its group-version (`status`, `scale`). */
  subresourcesOf(gv: GVInfo, plural: string): string[] {
    const prefix = `${plural}/`;
    const out: string[] = [];
    for (const r of this.#snapshot.resources.get(gv.key) ?? []) if (r.name.startsWith(prefix)) out.push(r.name.slice(prefix.length));
    return out;
  }

  /** The resource RESTMapping(kind, version) returns in `gv`: the last one registered with that Kind. */
  lastWithKind(gv: GVInfo, kind: string): APIResource | undefined {
    let found: APIResource | undefined;
    for (const r of this.#snapshot.resources.get(gv.key) ?? []) if (r.kind === kind && !r.name.includes('/')) found = r;
    return found;
  }

  #inDiscoveryOrder(hits: Hit[]): Hit[] {
    if (!this.#reordered) return hits;
    const pos = new Map(this.gvs.map((gv, i) => [gv, i]));
    return hits.sort((a, b) => pos.get(a.gv)! - pos.get(b.gv)!); // stable: resource order kept within a group-version
  }

  #indexShortcuts(): Map<string, Hit[]> {
    const map = new Map<string, Hit[]>();
    for (const hit of this.#inDiscoveryOrder(this.#withShortNames)) {
      for (const short of hit.res.shortNames) push(map, short.toLowerCase(), hit);
    }
    return map;
  }

  #indexCategories(): Map<string, Hit[]> {
    const map = new Map<string, Hit[]>();
    const seen = new Set<string>();
    for (const hit of this.#inDiscoveryOrder(this.#withCategories)) {
      for (const cat of hit.res.categories) {
        const c = cat.toLowerCase();
        const key = `${c}\0${hit.gv.group}\0${hit.res.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        push(map, c, hit);
      }
    }
    return map;
  }

  #indexKinds(): Map<string, Hits> {
    const map = new Map<string, Hits>();
    for (const gv of this.gvs) {
      for (const res of this.#snapshot.resources.get(gv.key) ?? []) {
        if (res.name.includes('/')) continue;
        const hit: Hit = { gv, res };
        const lower = res.kind.toLowerCase();
        setPerGV(map, lower, hit);
        if (lower !== res.kind) setPerGV(map, res.kind, hit);
      }
    }
    return map;
  }
}

/**
 * The hit kubectl's PriorityRESTMapper picks: the one in the highest-priority group-version.
 * Returns the tied hits when several distinct resources share that rank.
 */
export function pickByPriority(hits: readonly Hit[]): Hit | Hit[] | undefined {
  let best: Hit | undefined;
  let ties: Hit[] | undefined;
  for (const h of hits) {
    if (!best || h.gv.rank < best.gv.rank) {
      best = h;
      ties = undefined;
    } else if (h.gv.rank === best.gv.rank && h.res !== best.res) {
      (ties ??= [best]).push(h);
    }
  }
  return ties ?? best;
}

function asList(h: Hits | undefined): readonly Hit[] {
  return h === undefined ? [] : Array.isArray(h) ? h : [h];
}

/** Entries of one group-version arrive together, so "replace the last one if same group-version" gives per-GV map semantics. */
function setPerGV(map: Map<string, Hits>, key: string, hit: Hit): void {
  const cur = map.get(key);
  if (cur === undefined) map.set(key, hit);
  else if (!Array.isArray(cur)) map.set(key, cur.gv === hit.gv ? hit : [cur, hit]);
  else if (cur[cur.length - 1]!.gv === hit.gv) cur[cur.length - 1] = hit;
  else cur.push(hit);
}

function push(map: Map<string, Hit[]>, key: string, hit: Hit): void {
  const list = map.get(key);
  if (list) list.push(hit);
  else map.set(key, [hit]);
}
