/**
 * The pure RESTMapper: built from a DiscoverySnapshot, resolves what users type the way kubectl's
 * resource builder does (cli-runtime resource/builder.go mappingFor over client-go's
 * ShortcutExpander -> PriorityRESTMapper -> per-group-version DefaultRESTMappers):
 *
 * 1. `resource.version.group` when the input has two or more dots (`deployments.v1.apps`, `pods.v1.`);
 * 2. `resource.group`, split at the first dot (`deploy.apps`); a group prefix is accepted when no
 *    group matches exactly (`storageclass.storage`);
 * 3. Kind forms: `Kind.version.group`, then `Kind.group` / `Kind` (any version, preferred first).
 * Resource names and short names are matched case-insensitively; ties go to the group-version with
 * the highest priority (core v1, then groups in server order, preferred version first).
 * No I/O: DeferredRESTMapper (deferred.ts) feeds it snapshots and retries on misses.
 */
import type { DiscoverySnapshot } from '../discovery/types.js';
import { Catalog, pickByPriority, type Hit } from './catalog.js';
import { AmbiguousResourceError, NoKindMatchError, NoResourceMatchError } from './errors.js';
import { expandShortcut, type PartialResource } from './shortcuts.js';
import { suggestNames } from './suggest.js';
import type { Resolution, ResourceMapping } from './types.js';
import { groupResource } from '../core/gvk.js';

export class DiscoveryRESTMapper {
  readonly #catalog: Catalog;

  constructor(snapshot: DiscoverySnapshot) {
    this.#catalog = new Catalog(snapshot);
  }

  /** Resolves one resource type as typed. Throws NoResourceMatchError or AmbiguousResourceError. */
  resolve(arg: string): Resolution {
    let warnings: string[] = [];
    const lower = arg.toLowerCase();
    const parts = lower.split('.');
    let ambiguity: AmbiguousResourceError | undefined;
    // Only the warnings of the attempt that succeeds are reported.
    const tryResource = (p: PartialResource): Hit | undefined => {
      warnings = [];
      try {
        return this.#kindFor(expandShortcut(this.#catalog, p, warnings), arg);
      } catch (e) {
        if (!(e instanceof AmbiguousResourceError)) throw e;
        ambiguity ??= e;
        return undefined;
      }
    };

    // 1. resource.version.group
    let hit = parts.length >= 3 ? tryResource({ resource: parts[0]!, version: parts[1]!, group: parts.slice(2).join('.') }) : undefined;
    // 2. resource[.group]
    const dot = lower.indexOf('.');
    hit ??= tryResource(dot < 0 ? { resource: lower, version: '', group: '' } : { resource: lower.slice(0, dot), version: '', group: lower.slice(dot + 1) });
    if (hit) return { mapping: this.#mappingFor(this.#restMappingOf(hit)), warnings };

    // 3. Kind.version.group, then Kind[.group]
    const kindDot = arg.indexOf('.');
    const kind = kindDot < 0 ? arg : arg.slice(0, kindDot);
    const kindHit =
      (parts.length >= 3 ? this.#kindMapping(parts.slice(2).join('.'), parts[1]!, kind, true) : undefined) ??
      this.#kindMapping(kindDot < 0 ? '' : lower.slice(kindDot + 1), '', kind, true);
    if (kindHit) return { mapping: this.#mappingFor(kindHit), warnings: [] };

    if (ambiguity) throw ambiguity;
    throw new NoResourceMatchError(arg, kindDot < 0 ? arg : arg.slice(0, kindDot), suggestNames(this.#catalog, arg), this.#catalog.incomplete);
  }

  /**
   * Every resource a bare name (`deployments`, `deploy`, `Pod`; no dots) maps to, highest priority first:
   * kubectl's ShortcutExpander + PriorityRESTMapper ResourcesFor (short names expanded, plural and
   * singular matched case-insensitively, one per group-version). Throws NoResourceMatchError when none.
   */
  resourcesFor(name: string): Resolution<ResourceMapping[]> {
    const warnings: string[] = [];
    const p = expandShortcut(this.#catalog, { resource: name.toLowerCase(), version: '', group: '' }, warnings);
    const hits = this.#catalog.byName(p.resource).filter((h) => !p.group || h.gv.group === p.group);
    if (!hits.length) throw new NoResourceMatchError(name, name, suggestNames(this.#catalog, name), this.#catalog.incomplete);
    return { mapping: [...hits].sort((a, b) => a.gv.rank - b.gv.rank).map((h) => this.#mappingFor(h)), warnings };
  }

  /** GVK -> mapping (kubectl's RESTMapping(GroupKind, version)). `version` '' = preferred version first. */
  mappingForKind(group: string, version: string, kind: string): ResourceMapping {
    const hit = this.#kindMapping(group, version, kind, false);
    if (!hit) throw new NoKindMatchError(group, version, kind);
    return this.#mappingFor(hit);
  }

  /** A category's members as `resource` / `resource.group` in kubectl's order, or undefined. */
  expandCategory(name: string): string[] | undefined {
    const members = this.#catalog.categories.get(name.toLowerCase());
    return members?.map((m) => groupResource(m.res.name, m.gv.group));
  }

  /** Group-versions missing from the snapshot discovery was built from. */
  get incomplete(): readonly string[] {
    return this.#catalog.incomplete;
  }

  /** apimachinery KindFor over the union of group-version tables, narrowed by priority. */
  #kindFor(p: PartialResource, input: string): Hit | undefined {
    const hits = this.#catalog.byName(p.resource);
    let candidates: readonly Hit[];
    if (p.group && p.version) candidates = hits.filter((h) => h.gv.group === p.group && h.gv.version === p.version);
    else if (p.group) {
      candidates = hits.filter((h) => h.gv.group === p.group);
      if (!candidates.length) candidates = hits.filter((h) => h.gv.group.startsWith(p.group));
    } else if (p.version) candidates = hits.filter((h) => h.gv.version === p.version);
    else candidates = hits;
    return this.#pick(candidates, input);
  }

  /** The mapping kubectl's RESTMapping(gvk.GroupKind(), gvk.Version) returns for a KindFor hit. */
  #restMappingOf(hit: Hit): Hit {
    const res = this.#catalog.lastWithKind(hit.gv, hit.res.kind);
    return res && res !== hit.res ? { gv: hit.gv, res } : hit;
  }

  /** RESTMapping(GroupKind, version): exact Kind or its lowercase (plus any case for typed arguments). */
  #kindMapping(group: string, version: string, kind: string, anyCase: boolean): Hit | undefined {
    const matching = (hits: readonly Hit[]) => hits.filter((h) => h.gv.group === group && (!version || h.gv.version === version));
    let candidates = matching(this.#catalog.byKind(kind));
    if (!candidates.length && anyCase) candidates = matching(this.#catalog.byKind(kind.toLowerCase()));
    return this.#pick(candidates, kind);
  }

  #pick(candidates: readonly Hit[], input: string): Hit | undefined {
    const picked = pickByPriority(candidates);
    if (!Array.isArray(picked)) return picked;
    throw new AmbiguousResourceError(
      input,
      picked.map((h) => ({ group: h.gv.group, version: h.gv.version, resource: h.res.name })),
    );
  }

  #mappingFor({ gv, res }: Hit): ResourceMapping {
    return {
      gvr: { group: gv.group, version: gv.version, resource: res.name },
      gvk: { group: gv.group, version: gv.version, kind: res.kind },
      namespaced: res.namespaced,
      verbs: res.verbs,
      singularName: res.singularName,
      shortNames: res.shortNames,
      categories: res.categories,
      subresources: this.#catalog.subresourcesOf(gv, res.name),
      preferredVersion: gv.groupInfo.preferredVersion || gv.groupInfo.versions[0] || gv.version,
      groupVersions: gv.groupInfo.versions,
      apiResource: res,
    };
  }
}
