/**
 * metadata.managedFields bookkeeping, in one place so server-side apply can build on it.
 * A field set is kept as leaf paths of the FieldsV1 tree (`f:spec`, `.` , `k:{"name":"x"}`, ...);
 * Update operations give the writing manager the fields it changed and take them from the others.
 */
import type { Obj } from './types.js';

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Obj;
  subresource?: string;
}

/** Metadata fields a manager can own; everything else in metadata is the server's. */
const OWNABLE_METADATA = new Set(['labels', 'annotations', 'ownerReferences', 'finalizers']);

const SEP = '\u0001';

/**
 * Built-in (typed) fields that are non-pointer structs: their FieldsV1 entries carry no "." of
 * their own (maps, pointer structs and list items do). Custom resources are all maps.
 */
const NON_POINTER_TYPED = new Set(['spec', 'status', 'metadata', 'names', 'acceptedNames', 'template', 'strategy', 'resources', 'roleRef']);
/** Built-in list fields marked atomic (owned as a whole). */
const ATOMIC_TYPED = new Set(['versions', 'rules', 'subjects']);

/** Leaf paths (joined by SEP) of an object's fields, with their JSON values for change detection. */
export function fieldValues(obj: Obj, opts: { subresource?: string; custom: boolean }): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (v: unknown, path: string[], dot: boolean): void => {
    const field = path[path.length - 1]!.slice(2);
    if (!opts.custom && ATOMIC_TYPED.has(field)) {
      out.set(path.join(SEP), JSON.stringify(v));
      return;
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v as Obj);
      if (keys.length === 0) {
        out.set(path.join(SEP), '{}');
        return;
      }
      if (dot) out.set([...path, '.'].join(SEP), '');
      for (const k of keys) walk((v as Obj)[k], [...path, `f:${k}`], opts.custom || !NON_POINTER_TYPED.has(k));
      return;
    }
    const keyField = Array.isArray(v) && v.length && v.every((e) => e && typeof e === 'object' && !Array.isArray(e))
      ? (['name', 'type'] as const).find((f) => (v as Obj[]).every((e) => typeof e[f] === 'string'))
      : undefined;
    if (Array.isArray(v) && keyField) {
      for (const e of v as Obj[]) {
        const key = `k:${JSON.stringify({ [keyField]: e[keyField] })}`;
        out.set([...path, key, '.'].join(SEP), '');
        for (const k of Object.keys(e)) walk(e[k], [...path, key, `f:${k}`], opts.custom || !NON_POINTER_TYPED.has(k));
      }
      return;
    }
    out.set(path.join(SEP), JSON.stringify(v));
  };
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (k === 'metadata') {
      for (const [mk, mv] of Object.entries((v as Obj) ?? {})) {
        if (!OWNABLE_METADATA.has(mk)) continue;
        if (mk === 'finalizers' && Array.isArray(mv)) {
          out.set(['f:metadata', 'f:finalizers', '.'].join(SEP), '');
          for (const f of mv) out.set(['f:metadata', 'f:finalizers', `v:${JSON.stringify(f)}`].join(SEP), '');
        } else walk(mv, ['f:metadata', `f:${mk}`], true);
      }
      continue;
    }
    if (opts.subresource === 'status' ? k !== 'status' : k === 'status') continue;
    // Typed (built-in) top-level structs like spec are not pointers: no "." entry for them.
    walk(v, [`f:${k}`], opts.custom || !NON_POINTER_TYPED.has(k));
  }
  return out;
}

export function toFieldsV1(paths: Iterable<string>): Obj {
  const root: Obj = {};
  for (const p of paths) {
    let node = root;
    for (const part of p.split(SEP)) node = node[part] ??= {};
  }
  return root;
}

export function fromFieldsV1(tree: Obj): Set<string> {
  const out = new Set<string>();
  const walk = (node: Obj, path: string[]): void => {
    const keys = Object.keys(node);
    if (keys.length === 0) {
      if (path.length) out.add(path.join(SEP));
      return;
    }
    for (const k of keys) walk(node[k], [...path, k]);
  };
  walk(tree, []);
  return out;
}

export interface ManagedUpdate {
  manager: string;
  apiVersion: string;
  time: string;
  subresource?: string;
  custom: boolean;
}

/**
 * managedFields after an Update (or create: `oldObj` undefined) by `u.manager`: it owns what it
 * changed; other managers lose those fields; fields that disappeared are dropped from everyone.
 */
export function updateManagedFields(oldObj: Obj | undefined, newObj: Obj, u: ManagedUpdate): ManagedFieldsEntry[] {
  const opts = { subresource: u.subresource, custom: u.custom };
  const before = oldObj ? fieldValues(oldObj, opts) : new Map<string, string>();
  const after = fieldValues(newObj, opts);
  const changed = new Set<string>();
  for (const [p, v] of after) if (before.get(p) !== v) changed.add(p);
  const removed = new Set<string>();
  for (const p of before.keys()) if (!after.has(p)) removed.add(p);

  const entries: ManagedFieldsEntry[] = (oldObj?.metadata?.managedFields ?? []).map((e: ManagedFieldsEntry) => ({ ...e }));
  const out: ManagedFieldsEntry[] = [];
  let mine: ManagedFieldsEntry | undefined;
  for (const e of entries) {
    const isMine = e.manager === u.manager && e.operation === 'Update' && (e.subresource ?? '') === (u.subresource ?? '');
    const set = fromFieldsV1(e.fieldsV1 ?? {});
    if (isMine) {
      for (const p of changed) set.add(p);
      for (const p of removed) set.delete(p);
      mine = { ...e, apiVersion: u.apiVersion, time: u.time, fieldsV1: toFieldsV1(set) };
      if (set.size) out.push(mine);
      continue;
    }
    // Only fields of this subresource's scope move between managers.
    let touched = false;
    for (const p of [...changed, ...removed]) if (set.delete(p)) touched = true;
    if (!set.size) continue;
    out.push(touched ? { ...e, fieldsV1: toFieldsV1(set) } : e);
  }
  if (!mine && changed.size) {
    const entry: ManagedFieldsEntry = {
      manager: u.manager,
      operation: 'Update',
      apiVersion: u.apiVersion,
      time: u.time,
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(changed),
    };
    if (u.subresource) entry.subresource = u.subresource;
    out.push(entry);
  }
  return out;
}

/** The default field manager: the user agent up to the first '/', at most 128 characters. */
export function managerFromUserAgent(ua: string | undefined): string {
  return (ua ?? '').split('/')[0]!.slice(0, 128);
}
