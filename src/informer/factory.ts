/**
 * Shared informers (client-go's SharedInformerFactory): one informer, so one list and one watch, per
 * resource, namespace and selectors, however many consumers ask for it. Each consumer adds its own
 * handlers (and indexes) and starts it with its own signal; the watch stops when the last one's
 * signal aborts. Use one factory per connection: informers are told apart by what they watch, not
 * by the client they watch it with.
 *
 *   const factory = new InformerFactory({ resyncMs: 600_000 });
 *   const pods = factory.informer(podsHandle);           // the same Informer for every caller
 *   pods.addEventHandler({ onAdd: ... });
 *   factory.start(signal);
 *   await factory.waitForSync(signal);
 */
import type { Unstructured } from '../core/unstructured.js';
import type { ResourceClient } from '../dynamic/client.js';
import type { KubeObject } from './indexer.js';
import { Informer } from './informer.js';
import type { InformerOptions } from './types.js';

/** What a shared informer is told apart by; the rest of its options come from the factory. */
export type SharedInformerOptions<T> = Pick<InformerOptions<T>, 'labelSelector' | 'fieldSelector' | 'indexers'>;

export class InformerFactory {
  private readonly informers = new Map<string, Informer<KubeObject>>();
  private readonly started: Array<AbortSignal | undefined> = [];

  constructor(private readonly defaults: Omit<InformerOptions<KubeObject>, 'labelSelector' | 'fieldSelector' | 'indexers'> = {}) {}

  /** The shared informer of `handle` (its resource and namespace) with these selectors; made on first use. */
  informer<T extends KubeObject = Unstructured>(handle: ResourceClient, options: SharedInformerOptions<T> = {}): Informer<T> {
    const key = informerKey(handle, options);
    let inf = this.informers.get(key) as Informer<T> | undefined;
    if (inf) {
      if (options.indexers) inf.addIndexers(options.indexers);
      return inf;
    }
    inf = new Informer<T>(handle, { ...(this.defaults as InformerOptions<T>), ...options });
    this.informers.set(key, inf as unknown as Informer<KubeObject>);
    // Made after start(): started as the others were.
    for (const signal of this.started) inf.start(signal);
    return inf;
  }

  /** Starts every informer, those made later too (each with `signal` as one of its consumers). */
  start(signal?: AbortSignal): void {
    this.started.push(signal);
    for (const inf of this.informers.values()) inf.start(signal);
  }

  /** Resolves true once every informer synced; false if one stopped (or `signal` aborted) first. */
  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    const all = await Promise.all([...this.informers.values()].map((inf) => inf.waitForSync(signal)));
    return all.every(Boolean);
  }

  /** Stops every informer. */
  stop(): void {
    this.started.length = 0;
    for (const inf of this.informers.values()) inf.stop();
  }

  get size(): number {
    return this.informers.size;
  }
}

/** `group/version/resource`, namespace and selectors: what one shared watch serves. */
export function informerKey(handle: ResourceClient, options: { labelSelector?: string; fieldSelector?: string }): string {
  const { group, version, resource } = handle.gvr;
  return JSON.stringify([group, version, resource, handle.namespaceName ?? '', options.labelSelector ?? '', options.fieldSelector ?? '']);
}
