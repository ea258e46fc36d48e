/**
 * Whether a server-side apply of `applied` by `manager` would leave the live object exactly as it
 * is, told from the live object alone (so the dry-run request can be skipped): the manager's Apply
 * entry in `metadata.managedFields` (same apiVersion, no subresource) owns exactly the fields the
 * applied object sets, and the live object holds the applied values there. Then nothing is added,
 * changed or given up, and server-side apply keeps the object as it is.
 *
 * Conservative: anything this cannot prove says "no" and the object is sent. Values must be equal
 * as JSON (a quantity `0.5` against the server's `500m` is "no"); a list must hold only the applied
 * items, in the applied order, matched to the manager's `k:{...}` or `v:...` entries (an atomic list
 * or map, a leaf in the field set, compares whole); a `null`, an `i:` entry, or metadata beyond
 * labels, annotations and the like (a resourceVersion, managedFields) is "no". Pure.
 */
import type { Unstructured } from '../core/unstructured.js';
import { canonicalJSON } from './versions.js';

type FieldSet = Record<string, unknown>;

interface ManagedEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
  fieldsType?: string;
  fieldsV1?: FieldSet;
}

export function appliesAsIs(applied: Unstructured, live: Unstructured | null | undefined, manager: string): boolean {
  if (!live || live.apiVersion !== applied.apiVersion || live.kind !== applied.kind) return false;
  const { apiVersion: _a, kind: _k, metadata, ...body } = applied;
  const { name, namespace, ...meta } = metadata ?? {};
  if (name !== live.metadata?.name || (namespace !== undefined && namespace !== live.metadata?.namespace)) return false;
  const top: Record<string, unknown> = { ...body };
  if (Object.keys(meta).length > 0) top.metadata = meta;
  const entries = (live.metadata?.managedFields ?? []) as ManagedEntry[];
  const mine = entries.filter((e) => e.manager === manager && e.operation === 'Apply' && !e.subresource);
  // Nothing but the name (a Namespace as most inputs hold it): the server keeps no entry for it.
  if (mine.length === 0) return Object.keys(top).length === 0;
  if (mine.length !== 1) return false;
  const entry = mine[0]!;
  if (entry.fieldsType !== 'FieldsV1' || !isObject(entry.fieldsV1) || entry.apiVersion !== applied.apiVersion) return false;
  const { metadata: liveMeta, ...liveBody } = live;
  return sameObject(top, { ...liveBody, metadata: liveMeta }, entry.fieldsV1);
}

function sameObject(c: Record<string, unknown>, l: unknown, f: FieldSet): boolean {
  if (!isObject(l)) return false;
  const owned = children(f);
  const keys = Object.keys(c);
  if (owned.length !== keys.length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(f, `f:${k}`) && same(c[k], l[k], f[`f:${k}`] as FieldSet));
}

function same(c: unknown, l: unknown, f: FieldSet): boolean {
  if (c === null || c === undefined || !isObject(f)) return false;
  // A leaf of the field set: a scalar, or an atomic list or map, owned whole.
  if (children(f).length === 0) return jsonEqual(c, l);
  if (Array.isArray(c)) return sameList(c, l, f);
  return isObject(c) && sameObject(c, l, f);
}

function sameList(c: unknown[], l: unknown, f: FieldSet): boolean {
  const owned = children(f);
  if (!Array.isArray(l) || l.length !== c.length || owned.length !== c.length) return false;
  const unused = new Set(owned);
  for (let i = 0; i < c.length; i++) {
    const item = l[i];
    const key = [...unused].find((k) => matches(k, item));
    if (key === undefined) return false;
    unused.delete(key);
    const sub = f[key] as FieldSet;
    if (key.startsWith('v:')) {
      if (!jsonEqual(c[i], item)) return false;
    } else if (!isObject(c[i]) || !sameObject(c[i] as Record<string, unknown>, item, sub)) return false;
  }
  return true;
}

/** A `k:{...}` entry matches a live item holding those key values; a `v:...` entry one equal to the value. */
function matches(key: string, item: unknown): boolean {
  let v: unknown;
  try {
    v = JSON.parse(key.slice(2));
  } catch {
    return false;
  }
  if (key.startsWith('v:')) return jsonEqual(v, item);
  if (!key.startsWith('k:') || !isObject(v) || !isObject(item)) return false;
  return Object.entries(v).every(([k, x]) => jsonEqual(x, item[k]));
}

/** The owned children of a field set entry (`.` is the entry itself). */
function children(f: FieldSet): string[] {
  return Object.keys(f).filter((k) => k !== '.');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalJSON(a) === canonicalJSON(b);
}
