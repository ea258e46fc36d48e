/**
 * DeferredRESTMapper: the RESTMapper the CLI uses (client-go restmapper/discovery.go
 * DeferredDiscoveryRESTMapper). The pure mapper is built lazily from `discovery.snapshot()` on first
 * use. On a miss while the snapshot is not fresh (some of it came from the disk cache), discovery is
 * invalidated, the mapper rebuilt, and the lookup retried once: a CRD created a moment ago is found
 * with one refetch. Shortcut warnings of the answer that is returned go to `warn`.
 */
import type { CachedDiscovery, DiscoverySnapshot } from '../discovery/types.js';
import { NoKindMatchError, NoResourceMatchError } from './errors.js';
import { DiscoveryRESTMapper } from './mapper.js';
import type { RESTMapper, ResourceMapping } from './types.js';

export interface DeferredRESTMapperOptions {
  /** Receives warnings without the `Warning: ` prefix. */
  warn(msg: string): void;
}

export class DeferredRESTMapper implements RESTMapper {
  readonly #discovery: CachedDiscovery;
  readonly #options: DeferredRESTMapperOptions;
  #mapper: Promise<DiscoveryRESTMapper> | undefined;

  constructor(discovery: CachedDiscovery, options: DeferredRESTMapperOptions) {
    this.#discovery = discovery;
    this.#options = options;
  }

  async resourceFor(arg: string): Promise<ResourceMapping> {
    const { mapping, warnings } = await this.#withRetry((m) => m.resolve(arg));
    for (const w of warnings) this.#options.warn(w);
    return mapping;
  }

  mappingForKind(group: string, version: string, kind: string): Promise<ResourceMapping> {
    return this.#withRetry((m) => m.mappingForKind(group, version, kind));
  }

  /** Categories are read from the current snapshot without a refetch, as kubectl's category expander does. */
  async expandCategory(name: string): Promise<string[] | undefined> {
    return (await this.mapper()).expandCategory(name);
  }

  /** Invalidates discovery and rebuilds the mapper (exactly one refetch), e.g. after a 404 on a mapped collection. */
  async refresh(): Promise<void> {
    this.#discovery.invalidate();
    this.#mapper = undefined;
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

/** A CachedDiscovery over a fixed snapshot (always fresh): for tests and library users who already hold discovery. */
export function staticDiscovery(snapshot: DiscoverySnapshot): CachedDiscovery {
  return {
    snapshot: () => Promise.resolve(snapshot),
    invalidate: () => {},
    fresh: () => true,
  };
}
