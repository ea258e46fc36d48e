/**
 * The last state the watcher handed to its consumer, per object (client-go's Indexer, kept small:
 * one Map keyed by `namespace/name`). After a relist it tells what changed meanwhile
 * (src/watch/watcher.ts). Objects are stored as emitted, never copied.
 */
export interface ObjectKey {
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

export class ObjectStore<T> {
  private readonly items = new Map<string, { meta: ObjectKey; obj: T }>();

  constructor(private readonly metaOf: (obj: T) => ObjectKey | undefined) {}

  static key(meta: ObjectKey): string {
    return meta.namespace ? `${meta.namespace}/${meta.name ?? ''}` : meta.name ?? '';
  }

  get size(): number {
    return this.items.size;
  }

  meta(obj: T): ObjectKey | undefined {
    return this.metaOf(obj);
  }

  get(key: string): { meta: ObjectKey; obj: T } | undefined {
    return this.items.get(key);
  }

  /** `key`: ObjectStore.key(meta), when the caller has it already. */
  set(meta: ObjectKey, obj: T, key = ObjectStore.key(meta)): void {
    this.items.set(key, { meta, obj });
  }

  delete(key: string): void {
    this.items.delete(key);
  }

  keys(): IterableIterator<string> {
    return this.items.keys();
  }

  /** The objects, in insertion order. */
  *values(): IterableIterator<T> {
    for (const v of this.items.values()) yield v.obj;
  }
}
