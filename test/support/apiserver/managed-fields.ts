/**
 * metadata.managedFields bookkeeping, in one place so server-side apply can build on it.
 * A field set is kept as leaf paths of the FieldsV1 tree (`f:spec`, `.` , `k:{"name":"x"}`, ...);
 * Update operations give the writing manager the fields it changed and take them from the others.
 */
import type { Obj } from './types.js';
import type { ListType, SchemaNode } from './schema.js';

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

/**
 * Leaf paths (joined by SEP) of an object's fields, with their JSON values for change detection.
 * With a schema, lists merge as it declares (keyed, set or atomic); without one, or where it declares
 * nothing (built-ins outside schema.ts's table), a list of objects that all have a string `name` (or
 * `type`) is keyed by it.
 */
export function fieldValues(obj: Obj, opts: { subresource?: string; custom: boolean; schema?: SchemaNode }): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (v: unknown, path: string[], dot: boolean, s: SchemaNode | undefined): void => {
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
      for (const k of keys) walk((v as Obj)[k], [...path, `f:${k}`], opts.custom || !NON_POINTER_TYPED.has(k), s?.child(k) ?? s);
      return;
    }
    if (Array.isArray(v) && v.length) {
      const declared = s?.listType(v);
      let lt: ListType | undefined = declared;
      if (!lt && v.every((e) => e && typeof e === 'object' && !Array.isArray(e))) {
        const keyField = (['name', 'type'] as const).find((f) => (v as Obj[]).every((e) => typeof e[f] === 'string'));
        if (keyField) lt = { type: 'map', keys: [keyField] };
      }
      const elements = lt && lt.type !== 'atomic' ? v.map((e) => itemElement(lt!, e)) : [];
      if (lt && lt.type !== 'atomic' && elements.every((e) => e !== undefined)) {
        v.forEach((e, i) => {
          const key = elements[i]!;
          if (lt!.type === 'set') {
            out.set([...path, key].join(SEP), '');
            return;
          }
          out.set([...path, key, '.'].join(SEP), '');
          for (const k of Object.keys(e as Obj)) walk((e as Obj)[k], [...path, key, `f:${k}`], opts.custom || !NON_POINTER_TYPED.has(k), s?.items().child(k));
        });
        return;
      }
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
        } else walk(mv, ['f:metadata', `f:${mk}`], true, undefined);
      }
      continue;
    }
    if (opts.subresource === 'status' ? k !== 'status' : k === 'status') continue;
    // Typed (built-in) top-level structs like spec are not pointers: no "." entry for them.
    walk(v, [`f:${k}`], opts.custom || !NON_POINTER_TYPED.has(k), opts.schema?.child(k));
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
  /** How lists merge (schema.ts); the name/type heuristic without it. */
  schema?: SchemaNode;
}

/**
 * managedFields after an Update (or create: `oldObj` undefined) by `u.manager`: it owns what it
 * changed; other managers lose those fields; fields that disappeared are dropped from everyone.
 */
export function updateManagedFields(oldObj: Obj | undefined, newObj: Obj, u: ManagedUpdate): ManagedFieldsEntry[] {
  const opts = { subresource: u.subresource, custom: u.custom, schema: u.schema };
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

// ---------------------------------------------------------------------------------------------
// Server-side apply (structured-merge-diff's Apply, as kube-apiserver runs it).

/** Scope of an apply: the main resource (status excluded) or the status subresource (status only). */
export interface ApplyScope {
  subresource?: string;
  schema: SchemaNode;
}

type Visit = (path: string[], value: unknown, item: boolean) => void;

/** A list item's path element: `k:{"name":"x"}` for keyed lists, `v:"a"` for sets. */
function itemElement(lt: ListType, item: unknown): string | undefined {
  if (lt.type === 'set') return `v:${JSON.stringify(item)}`;
  if (lt.type !== 'map' || !item || typeof item !== 'object') return undefined;
  const key: Obj = {};
  for (const k of [...lt.keys].sort()) {
    const v = (item as Obj)[k] ?? lt.defaults?.[k];
    if (v !== undefined) key[k] = v;
  }
  return `k:${JSON.stringify(key)}`;
}

/**
 * Walks the fields a manager can own, calling `visit` for each leaf (scalar, atomic list, empty
 * map) and each keyed or set list item (`item` = true; its path ends with the item element).
 */
function walkOwnable(obj: Obj, scope: ApplyScope, visit: Visit): void {
  const walk = (v: unknown, s: SchemaNode, path: string[]): void => {
    if (Array.isArray(v)) {
      const lt = s.listType(v) ?? { type: 'atomic' };
      if (lt.type === 'atomic' || v.length === 0) {
        visit(path, v, false);
        return;
      }
      for (const item of v) {
        const el = itemElement(lt, item);
        if (el === undefined) {
          visit(path, v, false); // not keyable after all: the list is atomic
          return;
        }
      }
      for (const item of v) {
        const p = [...path, itemElement(lt, item)!];
        visit(p, item, true);
        if (lt.type === 'map' && item && typeof item === 'object') for (const [k, c] of Object.entries(item as Obj)) walk(c, s.items().child(k) ?? s.items(), [...p, `f:${k}`]);
      }
      return;
    }
    if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Obj);
      if (entries.length === 0) {
        visit(path, v, false);
        return;
      }
      for (const [k, c] of entries) walk(c, s.child(k) ?? s, [...path, `f:${k}`]);
      return;
    }
    visit(path, v, false);
  };
  const meta: Obj = obj.metadata ?? {};
  const metaSchema = scope.schema.child('metadata') ?? scope.schema;
  if (scope.subresource !== 'status') {
    for (const k of ['labels', 'annotations']) if (meta[k] && typeof meta[k] === 'object') walk(meta[k], metaSchema.child(k) ?? metaSchema, ['f:metadata', `f:${k}`]);
    if (Array.isArray(meta.finalizers)) for (const f of meta.finalizers) visit(['f:metadata', 'f:finalizers', `v:${JSON.stringify(f)}`], f, true);
    if (Array.isArray(meta.ownerReferences)) walk(meta.ownerReferences, { ...metaSchema, listType: () => ({ type: 'map', keys: ['uid'] }) }, ['f:metadata', 'f:ownerReferences']);
  }
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind' || k === 'metadata') continue;
    if (scope.subresource === 'status' ? k !== 'status' : k === 'status') continue;
    walk(v, scope.schema.child(k) ?? scope.schema, [`f:${k}`]);
  }
}

/** The fields an applied configuration sets: its leaves and list items (maps carry no `.`). */
export function appliedFieldSet(config: Obj, scope: ApplyScope): Set<string> {
  const out = new Set<string>();
  walkOwnable(config, scope, (path, _v, item) => out.add((item ? [...path, '.'] : path).join(SEP)));
  return out;
}

/** Every ownable field of an object with its value, to find what an apply changes. */
function ownableValues(obj: Obj, scope: ApplyScope): Map<string, string> {
  const out = new Map<string, string>();
  walkOwnable(obj, scope, (path, v, item) => out.set((item ? [...path, '.'] : path).join(SEP), item ? '' : JSON.stringify(v)));
  return out;
}

/** Paths whose value differs between two objects (added, removed or modified). */
export function changedFields(before: Obj, after: Obj, scope: ApplyScope): Set<string> {
  const a = ownableValues(before, scope);
  const b = ownableValues(after, scope);
  const out = new Set<string>();
  for (const [p, v] of b) if (a.get(p) !== v) out.add(p);
  for (const p of a.keys()) if (!b.has(p)) out.add(p);
  return out;
}

/** `.spec.containers[name="app"].image`: a field path as structured-merge-diff prints it. */
export function pathString(path: string): string {
  let out = '';
  for (const el of path.split(SEP)) {
    if (el === '.') continue;
    if (el.startsWith('f:')) out += `.${el.slice(2)}`;
    else if (el.startsWith('v:')) out += `[=${el.slice(2)}]`;
    else if (el.startsWith('k:')) {
      const key = JSON.parse(el.slice(2)) as Obj;
      out += `[${Object.entries(key).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
    }
  }
  return out;
}

/** Removes the field at a leaf path (or the list item a `.` path names) from `obj`, in place. */
export function removeField(obj: Obj, path: string): void {
  const parts = path.split(SEP);
  if (parts[parts.length - 1] === '.') parts.pop();
  // The containers along the path, so that a list or map the removal empties goes too (nobody owns it).
  const trail: Array<{ container: any; at: string | number }> = [];
  let node: any = obj;
  for (let i = 0; i < parts.length; i++) {
    const el = parts[i]!;
    let at: string | number;
    if (el.startsWith('f:')) {
      if (!node || typeof node !== 'object' || Array.isArray(node)) return;
      at = el.slice(2);
      if (!(at in node)) return;
    } else {
      if (!Array.isArray(node)) return;
      at = el.startsWith('v:')
        ? node.findIndex((x) => JSON.stringify(x) === el.slice(2))
        : node.findIndex((x) => x && typeof x === 'object' && Object.entries(JSON.parse(el.slice(2)) as Obj).every(([k, v]) => x[k] === undefined || JSON.stringify(x[k]) === JSON.stringify(v))); // a missing key field took its default
      if (at < 0) return;
    }
    trail.push({ container: node, at });
    node = node[at];
  }
  for (let i = trail.length - 1; i >= 0; i--) {
    const { container, at } = trail[i]!;
    if (Array.isArray(container)) container.splice(at as number, 1);
    else delete container[at];
    const emptied = Array.isArray(container) ? container.length === 0 : Object.keys(container).length === 0;
    if (!emptied || i === 0) return;
  }
}

/** Merges an applied configuration into the live object: maps by key, lists as the schema says. */
export function mergeApplied(live: unknown, config: unknown, s: SchemaNode): unknown {
  if (Array.isArray(config) && Array.isArray(live)) {
    const lt = s.listType(config) ?? { type: 'atomic' };
    if (lt.type === 'atomic') return config;
    const keyOf = (x: unknown) => itemElement(lt, x);
    if ([...config, ...live].some((x) => keyOf(x) === undefined)) return config;
    const liveByKey = new Map(live.map((x) => [keyOf(x)!, x]));
    const configKeys = new Set(config.map((x) => keyOf(x)!));
    const merged = config.map((x) => (lt.type === 'map' && liveByKey.has(keyOf(x)!) ? mergeApplied(liveByKey.get(keyOf(x)!), x, s.items()) : x));
    return [...merged, ...live.filter((x) => !configKeys.has(keyOf(x)!))];
  }
  if (config && typeof config === 'object' && !Array.isArray(config) && live && typeof live === 'object' && !Array.isArray(live)) {
    const out: Obj = { ...(live as Obj) };
    for (const [k, v] of Object.entries(config as Obj)) out[k] = mergeApplied((live as Obj)[k], v, s.child(k) ?? s);
    return out;
  }
  return config;
}

export interface ApplyConflict {
  manager: ManagedFieldsEntry;
  path: string;
}

/** How a conflict names a manager (fieldmanager's printManager). */
export function conflictManagerName(e: ManagedFieldsEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

export interface ApplyResult {
  /** The object after the apply (without managedFields). */
  object: Obj;
  managedFields: ManagedFieldsEntry[];
  conflicts: ApplyConflict[];
  /** Whether the managed field sets changed (ignoring times). */
  fieldsChanged: boolean;
  /** Whether the object changed (any ownable field). */
  objectChanged: boolean;
}

const sameSubresource = (e: ManagedFieldsEntry, sub: string | undefined) => (e.subresource ?? '') === (sub ?? '');

/**
 * structured-merge-diff's Apply: merges `config` into `live`, removes the fields `manager` applied
 * before and no longer does (unless someone else owns them), finds conflicts with other managers
 * (their fields the apply would change), and with `force` takes those fields over.
 */
export function applyConfiguration(live: Obj, config: Obj, o: { manager: string; apiVersion: string; time: string; force: boolean; scope: ApplyScope }): ApplyResult {
  const { scope } = o;
  const entries: ManagedFieldsEntry[] = (live.metadata?.managedFields ?? []).map((e: ManagedFieldsEntry) => ({ ...e }));
  const isMine = (e: ManagedFieldsEntry) => e.manager === o.manager && e.operation === 'Apply' && sameSubresource(e, scope.subresource);
  const mine = entries.find(isMine);
  const configSet = appliedFieldSet(config, scope);
  // A deep copy: the merge shares untouched subtrees with `live`, which must never change.
  const merged = structuredClone(mergeApplied(live, config, scope.schema)) as Obj;
  merged.metadata = structuredClone(live.metadata);
  // Fields this manager applied before and no longer does, that nobody else owns, go away.
  if (mine) {
    const others = new Set<string>();
    for (const e of entries) if (e !== mine && sameSubresource(e, scope.subresource)) for (const p of fromFieldsV1(e.fieldsV1 ?? {})) others.add(p);
    for (const p of fromFieldsV1(mine.fieldsV1 ?? {})) if (!configSet.has(p) && !others.has(p)) removeField(merged, p);
  }
  for (const k of ['labels', 'annotations'] as const) {
    const c = config.metadata?.[k];
    if (c && typeof c === 'object' && scope.subresource !== 'status') merged.metadata[k] = { ...(merged.metadata[k] ?? {}), ...c };
  }
  if (Array.isArray(config.metadata?.finalizers) && scope.subresource !== 'status') {
    merged.metadata.finalizers = [...new Set([...(merged.metadata.finalizers ?? []), ...config.metadata.finalizers])];
  }
  const changed = changedFields(live, merged, scope);
  const conflicts: ApplyConflict[] = [];
  for (const e of entries) {
    if (e === mine || e.manager === o.manager || !sameSubresource(e, scope.subresource)) continue;
    for (const p of fromFieldsV1(e.fieldsV1 ?? {})) if (changed.has(p) && configSet.has(p)) conflicts.push({ manager: e, path: p });
  }
  if (conflicts.length && !o.force) return { object: merged, managedFields: entries, conflicts, fieldsChanged: false, objectChanged: changed.size > 0 };

  const removed = new Set([...changed].filter((p) => !configSet.has(p)));
  // Fields that are gone lose their owners; with force, conflicting fields change hands.
  const drop = o.force ? new Set([...removed, ...conflicts.map((c) => c.path)]) : removed;
  const out: ManagedFieldsEntry[] = [];
  let fieldsChanged = !mine || JSON.stringify(sortedPaths(fromFieldsV1(mine.fieldsV1 ?? {}))) !== JSON.stringify(sortedPaths(configSet));
  for (const e of entries) {
    if (e === mine) continue;
    if (!sameSubresource(e, scope.subresource)) {
      out.push(e);
      continue;
    }
    const set = fromFieldsV1(e.fieldsV1 ?? {});
    let touched = false;
    for (const p of drop) if (set.delete(p)) touched = true;
    if (touched) fieldsChanged = true;
    if (!set.size) continue;
    out.push(touched ? { ...e, fieldsV1: toFieldsV1(set) } : e);
  }
  if (configSet.size) {
    const entry: ManagedFieldsEntry = {
      manager: o.manager,
      operation: 'Apply',
      apiVersion: o.apiVersion,
      time: fieldsChanged || changed.size || !mine ? o.time : mine.time,
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(sortedPaths(configSet)),
    };
    if (scope.subresource) entry.subresource = scope.subresource;
    out.push(entry);
  } else if (mine) fieldsChanged = true;
  return { object: merged, managedFields: sortManagedFields(out), conflicts, fieldsChanged, objectChanged: changed.size > 0 };
}

function sortedPaths(s: Iterable<string>): string[] {
  return [...s].sort();
}

/** kube-apiserver's order of managedFields entries: Apply before Update, then by time, manager, apiVersion. */
export function sortManagedFields(entries: ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  return [...entries].sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    if (p.time !== q.time) return p.time < q.time ? -1 : 1;
    if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
    return p.apiVersion < q.apiVersion ? -1 : p.apiVersion > q.apiVersion ? 1 : 0;
  });
}
