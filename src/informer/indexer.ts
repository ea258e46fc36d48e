/**
 * The informer's local store with indexes (client-go's `tools/cache` ThreadSafeStore + Indexers):
 * objects by key (`namespace/name`, or `name` when cluster-scoped), and for each named index a map
 * from index value to keys, kept up to date on every set and delete. `byIndex(name, value)` is a
 * lookup, not a scan. The indexes are built in one pass on the first lookup and kept up to date from
 * then on: an informer's initial list of many objects does no index work unless indexes are used.
 * Built-in index functions: `byNamespace` (the informer always has it, as index `namespace`) and
 * `byLabel(label)` (the value of one label).
 */
import { KdynError } from '../core/errors.js';

/** What the informer needs of an object: its metadata (plain JSON or a generated type alike). */
export interface KubeObject {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
  };
}

/** The index values of an object (none: it is not in that index). */
export type IndexFunc<T> = (obj: T) => string[];

export const NAMESPACE_INDEX = 'namespace';

export const byNamespace: IndexFunc<KubeObject> = (obj) => [obj.metadata?.namespace ?? ''];

/** Indexes objects by the value of `label` (objects without it are not in the index). */
export function byLabel(label: string): IndexFunc<KubeObject> {
  return (obj) => {
    const v = obj.metadata?.labels?.[label];
    return v === undefined ? [] : [v];
  };
}

/** The store key of an object: `namespace/name`, or `name` for a cluster-scoped one. */
export function keyOf(obj: KubeObject): string {
  const m = obj.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : m.name ?? '';
}

export class Indexer<T extends KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly funcs = new Map<string, IndexFunc<T>>();
  /** index name -> index value -> keys. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  /** Each index function with its index (what set and delete walk, without a lookup per index). */
  private readonly maintained: Array<{ fn: IndexFunc<T>; index: Map<string, Set<string>> }> = [];
  /** Whether the indexes were built (on the first lookup); until then set and delete leave them alone. */
  private indexed = false;

  constructor(indexers: Record<string, IndexFunc<T>> = {}) {
    this.addIndexers(indexers);
  }

  /** Adds indexes (built over the current objects); a name already used by another function is an error. */
  addIndexers(indexers: Record<string, IndexFunc<T>>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      const had = this.funcs.get(name);
      if (had === fn) continue;
      if (had) throw new KdynError(`informer: index "${name}" is already defined by another function`);
      this.funcs.set(name, fn);
      const index = new Map<string, Set<string>>();
      this.indices.set(name, index);
      this.maintained.push({ fn, index });
      if (this.indexed) for (const [key, obj] of this.items) addTo(index, fn(obj), key);
    }
  }

  get size(): number {
    return this.items.size;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  list(): T[] {
    return [...this.items.values()];
  }

  /** The objects whose index `name` has `value`. */
  byIndex(name: string, value: string): T[] {
    const index = this.indices.get(name);
    if (!index) throw new KdynError(`informer: no index named "${name}" (defined: ${[...this.funcs.keys()].join(', ') || 'none'})`);
    this.buildIndexes();
    return [...(index.get(value) ?? [])].map((key) => this.items.get(key)!);
  }

  /** The values index `name` holds (e.g. every namespace with objects). */
  indexValues(name: string): string[] {
    this.buildIndexes();
    return [...(this.indices.get(name)?.keys() ?? [])];
  }

  /** Stores `obj` under `key`; returns the object it replaced. */
  set(key: string, obj: T): T | undefined {
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    if (this.indexed) for (const { fn, index } of this.maintained) addTo(index, fn(obj), key);
    return old;
  }

  /** Removes `key`; returns the object it held. */
  delete(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  /** Builds every index over the current objects, once (the first lookup). */
  private buildIndexes(): void {
    if (this.indexed) return;
    this.indexed = true;
    for (const [key, obj] of this.items) for (const { fn, index } of this.maintained) addTo(index, fn(obj), key);
  }

  private unindex(key: string, obj: T): void {
    if (!this.indexed) return;
    for (const { fn, index } of this.maintained) {
      for (const value of fn(obj)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }
}

function addTo(index: Map<string, Set<string>>, values: string[], key: string): void {
  for (const value of values) {
    let keys = index.get(value);
    if (!keys) index.set(value, (keys = new Set()));
    keys.add(key);
  }
}
