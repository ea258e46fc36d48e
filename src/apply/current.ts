/**
 * The live objects an apply is about to change, read before it so each result can say created,
 * configured or unchanged: one GET per object, or for a collection that holds many of the objects
 * one paged LIST (500 ConfigMaps: one request instead of 500). A LIST stops at the page that passes
 * the last wanted name (the API server lists in key order), so a big namespace is not read to its end.
 */
import { StatusError } from '../core/errors.js';
import type { ResourceClient } from '../dynamic/client.js';
import { runBounded } from './bounded.js';
import type { Unstructured } from '../core/unstructured.js';

/** From this many objects of one collection on, one LIST replaces their GETs. */
export const LIST_THRESHOLD = 16;
const PAGE = 500;

/**
 * `name -> object` for the names that exist, or undefined when the collection cannot be listed
 * (then each object is read on its own).
 */
export async function listCurrent(handle: ResourceClient, names: readonly string[]): Promise<Map<string, Unstructured> | undefined> {
  const wanted = new Set(names);
  let last = '';
  for (const n of wanted) if (n > last) last = n;
  const found = new Map<string, Unstructured>();
  try {
    for await (const page of handle.list({ limit: PAGE })) {
      for (const item of page.items) {
        const name = item.metadata?.name;
        if (name !== undefined && wanted.has(name)) found.set(name, item);
      }
      const lastSeen = page.items.at(-1)?.metadata?.name;
      if (found.size === wanted.size || (lastSeen !== undefined && lastSeen >= last)) break;
    }
  } catch (e) {
    if (e instanceof StatusError) return undefined;
    throw e;
  }
  return found;
}

/** The live object, null when absent, undefined when it cannot be read (the result is then `applied`). */
export async function getCurrent(handle: ResourceClient, name: string): Promise<Unstructured | null | undefined> {
  try {
    return await handle.get(name);
  } catch (e) {
    if (e instanceof StatusError && e.code === 404) return null;
    if (e instanceof StatusError) return undefined; // e.g. 403 on get: the apply decides
    throw e;
  }
}

/** One object about to be applied: its collection (a key and a handle) and its name. */
export interface Pending {
  index: number;
  collection: string;
  handle: () => ResourceClient;
  name: string;
}

/**
 * Reads ahead, with one LIST each, the collections holding LIST_THRESHOLD or more of `pending`
 * (`concurrency` at once, none once `stopped()`). Returns the live object (null: absent) by index;
 * objects not in the answer are read one by one by the caller. A failed LIST only means that.
 */
export async function prefetchCurrent(pending: readonly Pending[], concurrency: number, stopped: () => boolean): Promise<Map<number, Unstructured | null>> {
  const groups = new Map<string, Pending[]>();
  for (const p of pending) groups.set(p.collection, [...(groups.get(p.collection) ?? []), p]);
  const big = [...groups.values()].filter((g) => g.length >= LIST_THRESHOLD);
  const out = new Map<number, Unstructured | null>();
  await runBounded(big.map((_, k) => k), concurrency, async (k) => {
    const g = big[k]!;
    const found = await Promise.resolve()
      .then(() => listCurrent(g[0]!.handle(), g.map((p) => p.name)))
      .catch(() => undefined);
    if (found) for (const p of g) out.set(p.index, found.get(p.name) ?? null);
  }, stopped);
  return out;
}
