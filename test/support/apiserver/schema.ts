/**
 * What field management needs from a resource's schema: how each list merges (map by keys, set,
 * atomic), which fields are declared (for fieldValidation and pruning) and their types (for the
 * typed-patch errors of server-side apply).
 * - Custom resources: the CRD version's openAPIV3Schema (`x-kubernetes-list-type`,
 *   `x-kubernetes-list-map-keys`, `x-kubernetes-preserve-unknown-fields`); a list without a
 *   declared type is atomic, as in a structural schema.
 * - Built-ins: no schemas are served here; every field is taken as declared, and the lists kube's
 *   Go types mark with patchMergeKey/listType=map are keyed as below (the rest keep the name/type
 *   heuristic of managed-fields.ts).
 */
import type { Obj, ServedResource } from './types.js';

/** How a list merges; a keyed list may give defaults for key fields an item leaves out. */
export type ListType = { type: 'map'; keys: string[]; defaults?: Record<string, unknown> } | { type: 'set' } | { type: 'atomic' };

export interface SchemaNode {
  /** The schema of a field of this object; undefined when the field is not declared. */
  child(name: string): SchemaNode | undefined;
  /** The schema of this list's items. */
  items(): SchemaNode;
  /** How this list merges (items: the list's value, for built-ins that decide by content). */
  listType(items: unknown[]): ListType | undefined;
  /** The declared type (`object`, `array`, `string`, `integer`, `number`, `boolean`), if any. */
  type?: string;
}

/** Accepts anything (metadata, preserve-unknown-fields subtrees). */
const ANY: SchemaNode = {
  child: () => ANY,
  items: () => ANY,
  listType: () => ({ type: 'atomic' }),
};

/** Built-in list fields merged by key (k8s.io/api patchMergeKey / listMapKeys). */
const BUILTIN_LIST_KEYS: Record<string, (items: Obj[]) => string[] | undefined> = {
  containers: () => ['name'],
  initContainers: () => ['name'],
  ephemeralContainers: () => ['name'],
  volumes: () => ['name'],
  volumeMounts: () => ['mountPath'],
  volumeDevices: () => ['devicePath'],
  env: () => ['name'],
  imagePullSecrets: () => ['name'],
  conditions: () => ['type'],
  hostAliases: () => ['ip'],
  topologySpreadConstraints: () => ['topologyKey', 'whenUnsatisfiable'],
  resourceClaims: () => ['name'],
  // Container ports and Service ports share a field name.
  ports: (items) => (items.every((i) => i && typeof i === 'object' && 'containerPort' in i) ? ['containerPort', 'protocol'] : items.every((i) => i && typeof i === 'object' && 'port' in i) ? ['port', 'protocol'] : undefined),
};
const BUILTIN_ATOMIC = new Set(['versions', 'rules', 'subjects', 'command', 'args', 'tolerations']);

function builtinNode(field: string): SchemaNode {
  return {
    child: (name) => builtinNode(name),
    items: () => builtinNode(''),
    listType: (items) => {
      if (BUILTIN_ATOMIC.has(field)) return { type: 'atomic' };
      const keys = BUILTIN_LIST_KEYS[field]?.(items as Obj[]);
      // Port protocols default to TCP (the schema's default for the key field).
      return keys ? { type: 'map', keys, ...(keys.includes('protocol') ? { defaults: { protocol: 'TCP' } } : {}) } : undefined;
    },
  };
}

function openApiNode(s: Obj): SchemaNode {
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  return {
    type: typeof s.type === 'string' ? s.type : undefined,
    child: (name) => {
      const p = s.properties?.[name];
      if (p && typeof p === 'object') return openApiNode(p);
      if (s.additionalProperties && typeof s.additionalProperties === 'object') return openApiNode(s.additionalProperties);
      if (s.additionalProperties === true || preserve || s['x-kubernetes-int-or-string'] || s['x-kubernetes-embedded-resource']) return ANY;
      return undefined;
    },
    items: () => (s.items && typeof s.items === 'object' ? openApiNode(s.items) : ANY),
    listType: () => {
      const lt = s['x-kubernetes-list-type'];
      if (lt === 'map' && Array.isArray(s['x-kubernetes-list-map-keys'])) {
        const keys: string[] = s['x-kubernetes-list-map-keys'].map(String);
        const defaults: Record<string, unknown> = {};
        for (const k of keys) {
          const d = s.items?.properties?.[k]?.default;
          if (d !== undefined) defaults[k] = d;
        }
        return { type: 'map', keys, ...(Object.keys(defaults).length ? { defaults } : {}) };
      }
      if (lt === 'set') return { type: 'set' };
      return { type: 'atomic' };
    },
  };
}

/** The root schema of a served resource (its objects' top level). */
export function schemaFor(r: ServedResource): SchemaNode {
  if (!r.crd) return builtinNode('');
  const v = (r.crd.spec?.versions ?? []).find((x: Obj) => x.name === r.version);
  const s: Obj | undefined = v?.schema?.openAPIV3Schema ?? r.crd.spec?.validation?.openAPIV3Schema;
  if (!s) return ANY;
  const root = openApiNode(s);
  // apiVersion, kind and metadata are always declared.
  return {
    ...root,
    child: (name) => (name === 'metadata' || name === 'apiVersion' || name === 'kind' ? ANY : root.child(name)),
  };
}

export interface SchemaProblem {
  kind: 'unknown' | 'type';
  /** `.spec.replicas` */
  path: string;
  message: string;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'object') return 'map';
  return typeof v;
}

/** Fields the schema does not declare, and values of the wrong type, in an applied configuration. */
export function checkAgainstSchema(obj: Obj, schema: SchemaNode): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const walk = (v: unknown, s: SchemaNode, path: string): void => {
    if (v === null) return;
    const t = s.type;
    if (t === 'integer' || t === 'number') {
      if (typeof v !== 'number') out.push({ kind: 'type', path, message: `expected numeric (int or float), got ${jsonType(v)}` });
      return;
    }
    if (t === 'string') {
      if (typeof v !== 'string') out.push({ kind: 'type', path, message: `expected string, got ${jsonType(v)}` });
      return;
    }
    if (t === 'boolean') {
      if (typeof v !== 'boolean') out.push({ kind: 'type', path, message: `expected boolean, got ${jsonType(v)}` });
      return;
    }
    if (Array.isArray(v)) {
      if (t === 'object') out.push({ kind: 'type', path, message: 'expected map, got list' });
      else v.forEach((item, i) => walk(item, s.items(), `${path}[${i}]`));
      return;
    }
    if (typeof v === 'object') {
      if (t === 'array') {
        out.push({ kind: 'type', path, message: 'expected list, got map' });
        return;
      }
      for (const [k, child] of Object.entries(v as Obj)) {
        const cs = s.child(k);
        if (!cs) out.push({ kind: 'unknown', path: `${path}.${k}`, message: 'field not declared in schema' });
        else walk(child, cs, `${path}.${k}`);
      }
    }
  };
  walk(obj, schema, '');
  return out;
}

/** A copy of `obj` without the fields at `paths` (`.spec.foo`; pruning of unknown fields). */
export function withoutPaths(obj: Obj, paths: string[]): Obj {
  const out: Obj = structuredClone(obj);
  for (const p of paths) {
    const parts = p.slice(1).split('.');
    let node: any = out;
    for (const part of parts.slice(0, -1)) {
      const m = /^(.*)\[(\d+)\]$/.exec(part);
      node = m ? node?.[m[1]!]?.[Number(m[2])] : node?.[part];
    }
    if (node && typeof node === 'object') delete node[parts[parts.length - 1]!];
  }
  return out;
}
