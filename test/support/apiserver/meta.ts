/** Object presentation helpers: key order as the real server writes it, timestamps, generations. */
import type { Obj, ServedResource } from './types.js';

const METADATA_ORDER = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];
const MF_ORDER = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'];

function ordered(o: Obj, order: string[]): Obj {
  const out: Obj = {};
  for (const k of order) if (o[k] !== undefined) out[k] = o[k];
  for (const k of Object.keys(o)) if (!(k in out) && o[k] !== undefined) out[k] = o[k];
  return out;
}

/** ObjectMeta in Go struct order (as typed objects and PartialObjectMetadata are written). */
export function orderMetadata(m: Obj): Obj {
  const out = ordered(m, METADATA_ORDER);
  if (Array.isArray(out.managedFields)) out.managedFields = out.managedFields.map((e: Obj) => ordered(e, MF_ORDER));
  return out;
}

/** Recursively sorted keys (how unstructured objects, i.e. custom resources, are written). */
export function sortKeysDeep(v: unknown): any {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (v && typeof v === 'object') {
    const out: Obj = {};
    for (const k of Object.keys(v as Obj).sort()) out[k] = sortKeysDeep((v as Obj)[k]);
    return out;
  }
  return v;
}

/** Built-in object: kind, apiVersion, metadata (struct order), then the rest in given order. */
export function orderBuiltin(o: Obj): Obj {
  const out: Obj = { kind: o.kind, apiVersion: o.apiVersion };
  if (o.metadata) out.metadata = orderMetadata(o.metadata);
  for (const k of Object.keys(o)) if (!(k in out)) out[k] = o[k];
  return out;
}

/** How an object is stored: custom resources with sorted keys, built-ins in struct-like order. */
export function normalizeForStorage(o: Obj, r: ServedResource): Obj {
  return r.crd ? sortKeysDeep(o) : orderBuiltin(o);
}

/** RFC 3339 with second precision, as metav1.Time. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Built-in resources whose strategy maintains metadata.generation. */
const GENERATION_GROUPS = new Set(['apps', 'batch', 'apiextensions.k8s.io', 'policy', 'networking.k8s.io', 'admissionregistration.k8s.io', 'flowcontrol.apiserver.k8s.io', 'autoscaling', 'resource.k8s.io', 'storagemigration.k8s.io']);

export function tracksGeneration(r: ServedResource): boolean {
  return !!r.crd || GENERATION_GROUPS.has(r.group);
}

export function gvString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** Everything but metadata and status, for deciding whether generation moves. */
export function specPart(o: Obj): string {
  const { metadata: _m, status: _s, ...rest } = o;
  return JSON.stringify(sortKeysDeep(rest));
}
