/**
 * DeferredRESTMapper: the RESTMapper the CLI uses (client-go restmapper/discovery.go
 * DeferredDiscoveryRESTMapper). The pure mapper is built lazily from `discovery.snapshot()` on first
 * use. On a miss while the snapshot is not fresh (some of it came from the disk cache), discovery is
 * invalidated, the mapper rebuilt, and the lookup retried once: a CRD created a moment ago is found
 * with one refetch. Shortcut warnings of the answer that is returned go to `warn`.
 *
 * Before the full mapper exists, a lookup first asks `discovery.lookup` (kdyn's combined-file index)
 * for just the groups that can match its first name segment and resolves over those: every table a
 * lookup consults is keyed by that name, so a hit there is the full mapper's answer. Anything else
 * (no index, a miss, an ambiguity) goes the full way, with its refetch rules unchanged.
 */
import type { CachedDiscovery } from '../discovery/types.js';
import { NoKindMatchError, NoResourceMatchError } from './errors.js';
import { DiscoveryRESTMapper } from './mapper.js';
import { categoryToken, lookupToken } from './name-index.js';
import type { RESTMapper, Resolution, ResourceMapping } from './types.js';

export interface DeferredRESTMapperOptions {
  /** Receives warnings without the `Warning: ` prefix. */
  warn(msg: string): void;
}

export class DeferredRESTMapper implements RESTMapper {
  readonly #discovery: CachedDiscovery;
  readonly #options: DeferredRESTMapperOptions;
  #mapper: Promise<DiscoveryRESTMapper> | undefined;
  /** Mappers over index-selected groups, by lookup token (only until the full mapper is built). */
  readonly #indexed = new Map<string, Promise<DiscoveryRESTMapper | undefined>>();

  constructor(discovery: CachedDiscovery, options: DeferredRESTMapperOptions) {
    this.#discovery = discovery;
    this.#options = options;
  }

  async resourceFor(arg: string): Promise<ResourceMapping> {
    const indexed = await this.#indexedMapper(lookupToken(arg));
    if (indexed) {
      try {
        const { mapping, warnings } = indexed.resolve(arg);
        for (const w of warnings) this.#options.warn(w);
        return mapping;
      } catch {
        // Tolerated, whatever it is (a miss, an ambiguity, a name the selected groups cannot settle):
        // the index only makes a hit faster. The full mapper below gives the answer or the error,
        // with its refetch rules, over the whole snapshot.
      }
    }
    const { mapping, warnings } = await this.#withRetry((m) => m.resolve(arg));
    for (const w of warnings) this.#options.warn(w);
    return mapping;
  }

  async resourcesFor(name: string): Promise<ResourceMapping[]> {
    const indexed = await this.#indexedMapper(lookupToken(name));
    let found: Resolution<ResourceMapping[]> | undefined;
    try {
      // The index lists every group serving the name (or the short name, whose group is the one kept).
      found = indexed?.resourcesFor(name);
    } catch {
      // The full mapper below answers, with its refetch rules.
    }
    found ??= await this.#withRetry((m) => m.resourcesFor(name));
    for (const w of found.warnings) this.#options.warn(w);
    return found.mapping;
  }

  mappingForKind(group: string, version: string, kind: string): Promise<ResourceMapping> {
    return this.#withRetry((m) => m.mappingForKind(group, version, kind));
  }

  /**
   * A category enumerates types (`get all`, `get -A mycategory`): when its members come from the
   * disk cache, discovery is revalidated first (ETags: a 304 when nothing changed) and the category
   * expanded again, so a CRD created or deleted since is neither missed nor listed. (kubectl expands
   * from its cache, up to its TTL old.) A name that is no category costs nothing more.
   */
  async expandCategory(name: string): Promise<string[] | undefined> {
    const indexed = await this.#indexedMapper(categoryToken(name));
    const members = (indexed ?? (await this.mapper())).expandCategory(name);
    if (members === undefined || this.#discovery.fresh()) return members;
    await this.refresh();
    return (await this.mapper()).expandCategory(name);
  }

  /** Invalidates discovery and rebuilds the mapper (exactly one refetch), e.g. after a 404 on a mapped collection. */
  async refresh(): Promise<void> {
    this.#discovery.invalidate();
    this.#mapper = undefined;
    this.#indexed.clear();
    await this.mapper();
  }

  /** The pure mapper over the current snapshot, built on first use. */
  mapper(): Promise<DiscoveryRESTMapper> {
    if (!this.#mapper) {
      const built = this.#discovery.snapshot().then((s) => new DiscoveryRESTMapper(s));
      this.#mapper = built;
      // A failed build is not remembered: the next call asks discovery again.
      built.catch(() => {
        if (this.#mapper === built) this.#mapper = undefined;
      });
    }
    return this.#mapper;
  }

  /**
   * A mapper over the groups discovery's index lists for `token`, or undefined (use the full mapper;
   * also for no token: non-ASCII input, see name-index.ts).
   */
  #indexedMapper(token: string | undefined): Promise<DiscoveryRESTMapper | undefined> {
    const discovery = this.#discovery;
    if (this.#mapper || !discovery.lookup || token === undefined) return Promise.resolve(undefined);
    let m = this.#indexed.get(token);
    if (!m) {
      m = discovery.lookup(token).then(
        (s) => s && new DiscoveryRESTMapper(s),
        // An unreadable index (or cache file) is tolerated: the full mapper reads discovery its own way.
        () => undefined,
      );
      this.#indexed.set(token, m);
    }
    return m;
  }

  async #withRetry<T>(f: (m: DiscoveryRESTMapper) => T): Promise<T> {
    const mapper = await this.mapper();
    try {
      return f(mapper);
    } catch (e) {
      if (!(e instanceof NoResourceMatchError || e instanceof NoKindMatchError) || this.#discovery.fresh()) throw e;
    }
    await this.refresh();
    return f(await this.mapper());
  }
}
