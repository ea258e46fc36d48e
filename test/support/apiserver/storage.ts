/**
 * The in-memory object store. Objects are keyed by (group, resource, namespace, name), independent of
 * the API version they were written through. One global resourceVersion counter; every change is
 * published to subscribers and kept in a bounded history per resource type (as the watch cache
 * keeps one per type), so a watch can resume from a resourceVersion or be told it is too old (410).
 *
 * Stored objects are never mutated in place: writers pass a fresh object, readers must not modify
 * what they get (copy first).
 */
import type { Obj } from './types.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: EventType;
  group: string;
  resource: string;
  namespace: string;
  name: string;
  /** The object after the change (for DELETED: as it was, with the deletion's resourceVersion). */
  object: Obj;
  /** The object before the change (MODIFIED and DELETED), for watch filters that stop matching. */
  prev?: Obj;
  resourceVersion: number;
}

export type StoreListener = (e: StoreEvent) => void;

export interface ListOptions {
  /** Only this namespace ('' or undefined: all namespaces / cluster-scoped). */
  namespace?: string;
  /** Start strictly after this full key (`ns/name` or `name`). */
  after?: string;
  /** At most this many items (0/undefined: all). */
  limit?: number;
  filter?: (o: Obj) => boolean;
}

export interface ListResult {
  items: Obj[];
  /** Full key of the last item returned when more items may follow. */
  lastKey?: string;
  /** Items after the page in the range (counted without the filter). */
  remaining: number;
}

interface Bucket {
  map: Map<string, Obj>;
  sorted: string[] | null; // null = needs sorting (after bulk deletes)
}

/** One resource type's recent events (a ring trimmed periodically). */
interface History {
  events: StoreEvent[];
  start: number; // index of the oldest kept event
  /** Events up to and including this resourceVersion are gone. */
  compactedRv: number;
}

export function storeKey(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function lowerBound(a: string[], x: string): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function upperBound(a: string[], x: string): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class Store {
  private buckets = new Map<string, Bucket>();
  private rv: number;
  private histories = new Map<string, History>();
  private compactedRv: number;
  private listeners = new Set<StoreListener>();
  readonly historyLimit: number;

  constructor(options: { historyLimit?: number; initialResourceVersion?: number } = {}) {
    this.historyLimit = options.historyLimit ?? 10000;
    this.rv = options.initialResourceVersion ?? 1;
    this.compactedRv = this.rv;
  }

  /** The current (latest) resourceVersion. */
  get resourceVersion(): number {
    return this.rv;
  }

  /** Oldest resourceVersion a continue token may still start from (moves on compact()). */
  get oldestResourceVersion(): number {
    return this.compactedRv;
  }

  private historyOf(group: string, resource: string): History {
    const id = `${group}/${resource}`;
    let h = this.histories.get(id);
    if (!h) {
      h = { events: [], start: 0, compactedRv: this.compactedRv };
      this.histories.set(id, h);
    }
    return h;
  }

  /** Oldest resourceVersion a watch on this resource type may still start from. */
  oldestWatchableVersion(group: string, resource: string): number {
    return this.histories.get(`${group}/${resource}`)?.compactedRv ?? this.compactedRv;
  }

  private bucket(group: string, resource: string, create: boolean): Bucket | undefined {
    const id = `${group}/${resource}`;
    let b = this.buckets.get(id);
    if (!b && create) {
      b = { map: new Map(), sorted: [] };
      this.buckets.set(id, b);
    }
    return b;
  }

  private sortedKeys(b: Bucket): string[] {
    if (!b.sorted) b.sorted = [...b.map.keys()].sort();
    return b.sorted;
  }

  get(group: string, resource: string, namespace: string, name: string): Obj | undefined {
    return this.bucket(group, resource, false)?.map.get(storeKey(namespace, name));
  }

  /** Stores a new object (the caller checked it does not exist) and stamps its resourceVersion. */
  create(group: string, resource: string, obj: Obj): Obj {
    return this.put(group, resource, obj, 'ADDED');
  }

  /** Replaces an existing object and stamps its resourceVersion. */
  update(group: string, resource: string, obj: Obj): Obj {
    return this.put(group, resource, obj, 'MODIFIED');
  }

  private put(group: string, resource: string, obj: Obj, type: EventType): Obj {
    const ns: string = obj.metadata?.namespace ?? '';
    const name: string = obj.metadata.name;
    const b = this.bucket(group, resource, true)!;
    const key = storeKey(ns, name);
    const rv = ++this.rv;
    obj.metadata.resourceVersion = String(rv);
    const prev = b.map.get(key);
    const existed = prev !== undefined;
    b.map.set(key, obj);
    if (!existed && b.sorted) {
      const n = b.sorted.length;
      if (n === 0 || b.sorted[n - 1]! < key) b.sorted.push(key);
      else b.sorted.splice(lowerBound(b.sorted, key), 0, key); // memmove, cheaper than re-sorting
    }
    this.emit({ type: existed ? 'MODIFIED' : type, group, resource, namespace: ns, name, object: obj, prev, resourceVersion: rv });
    return obj;
  }

  /** Removes an object; returns it with the deletion's resourceVersion, or undefined when absent. */
  delete(group: string, resource: string, namespace: string, name: string): Obj | undefined {
    const b = this.bucket(group, resource, false);
    const key = storeKey(namespace, name);
    const old = b?.map.get(key);
    if (!b || !old) return undefined;
    b.map.delete(key);
    if (b.sorted) {
      const i = lowerBound(b.sorted, key);
      if (b.sorted[i] === key) b.sorted.splice(i, 1);
    }
    const rv = ++this.rv;
    const gone = { ...old, metadata: { ...old.metadata, resourceVersion: String(rv) } };
    this.emit({ type: 'DELETED', group, resource, namespace, name, object: gone, prev: old, resourceVersion: rv });
    return gone;
  }

  /** Deletes every object of a resource (optionally only in one namespace); returns how many. */
  deleteAll(group: string, resource: string, namespace?: string): number {
    const b = this.bucket(group, resource, false);
    if (!b) return 0;
    const victims = this.list(group, resource, { namespace }).items;
    const sorted = b.sorted;
    b.sorted = null; // avoid O(n^2) splicing; re-sorted lazily
    for (const o of victims) this.delete(group, resource, o.metadata.namespace ?? '', o.metadata.name);
    if (sorted && victims.length === 0) b.sorted = sorted;
    return victims.length;
  }

  /** Deletes every namespaced object in `namespace`, all resources. */
  deleteNamespaceContents(namespace: string): number {
    let n = 0;
    for (const id of [...this.buckets.keys()]) {
      const slash = id.indexOf('/');
      const group = id.slice(0, slash);
      const resource = id.slice(slash + 1);
      if (group === '' && resource === 'namespaces') continue;
      n += this.deleteAll(group, resource, namespace);
    }
    return n;
  }

  /** Objects in key order (namespace, then name), a page at a time. */
  list(group: string, resource: string, o: ListOptions = {}): ListResult {
    const b = this.bucket(group, resource, false);
    if (!b) return { items: [], remaining: 0 };
    const keys = this.sortedKeys(b);
    let start = 0;
    let end = keys.length;
    if (o.namespace) {
      const prefix = `${o.namespace}/`;
      start = lowerBound(keys, prefix);
      end = lowerBound(keys, `${o.namespace}0`); // '0' is the character after '/'
    }
    if (o.after !== undefined) start = Math.max(start, upperBound(keys, o.after));
    const limit = o.limit && o.limit > 0 ? o.limit : Infinity;
    const items: Obj[] = [];
    let i = start;
    for (; i < end && items.length < limit; i++) {
      const obj = b.map.get(keys[i]!)!;
      if (!o.filter || o.filter(obj)) items.push(obj);
    }
    if (i < end && items.length >= limit) return { items, lastKey: keys[i - 1], remaining: end - i };
    return { items, remaining: 0 };
  }

  count(group: string, resource: string, namespace?: string): number {
    const b = this.bucket(group, resource, false);
    if (!b) return 0;
    if (!namespace) return b.map.size;
    const keys = this.sortedKeys(b);
    return lowerBound(keys, `${namespace}0`) - lowerBound(keys, `${namespace}/`);
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * This resource type's events with a resourceVersion greater than `rv`, or undefined when `rv` is
   * older than the kept history (the caller answers 410 Expired).
   */
  eventsSince(group: string, resource: string, rv: number): StoreEvent[] | undefined {
    const h = this.historyOf(group, resource);
    if (rv < h.compactedRv) return undefined;
    const out: StoreEvent[] = [];
    for (let i = h.events.length - 1; i >= h.start; i--) {
      const e = h.events[i]!;
      if (e.resourceVersion <= rv) break;
      out.push(e);
    }
    return out.reverse();
  }

  /**
   * Forgets all history up to now (as etcd compaction, or an API server restart that empties the
   * watch cache): older watches and continue tokens expire.
   */
  compact(): void {
    this.histories.clear();
    this.compactedRv = this.rv;
  }

  private emit(e: StoreEvent): void {
    const h = this.historyOf(e.group, e.resource);
    h.events.push(e);
    if (h.events.length - h.start > this.historyLimit) {
      h.start++;
      h.compactedRv = h.events[h.start - 1]!.resourceVersion;
      if (h.start > this.historyLimit) {
        h.events = h.events.slice(h.start);
        h.start = 0;
      }
    }
    for (const l of this.listeners) l(e);
  }
}
