/**
 * A custom resource checked against its CustomResourceDefinition's structural schema
 * (`spec.versions[].schema.openAPIV3Schema`), as the API server would on create, for instances of a
 * CRD that does not exist yet (kdyn diff shows them as created without asking the server): types
 * (with `nullable`, `x-kubernetes-int-or-string`, `x-kubernetes-preserve-unknown-fields`),
 * `required`, `enum`, numeric bounds, string lengths and patterns, item and property counts. Returns
 * the object as the server would store it (defaults filled in, unknown fields pruned) with the
 * problems, each as the API server words it (`spec.size: Required value`), and the unknown fields
 * (the server's warnings). `metadata` is the API server's, not the schema's: left alone. Pure.
 */
import type { Unstructured } from '../core/unstructured.js';

/** The parts of an OpenAPI v3 schema a CRD's structural schema may hold that are checked here. */
export interface StructuralSchema {
  type?: string;
  properties?: Record<string, StructuralSchema>;
  additionalProperties?: StructuralSchema | boolean;
  items?: StructuralSchema;
  required?: string[];
  enum?: unknown[];
  nullable?: boolean;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
}

export interface SchemaCheck {
  /** The object as the server would store it: defaults applied, unknown fields pruned. */
  object: Unstructured;
  /** `spec.size: Required value`, ...; empty when valid. */
  problems: string[];
  /** Fields the schema does not know (pruned; the server warns `unknown field "spec.x"`). */
  unknown: string[];
}

/** The schema of `version` in a CustomResourceDefinition object, if it declares one. */
export function crdVersionSchema(crd: Unstructured, version: string): StructuralSchema | undefined {
  const versions = (crd.spec as { versions?: unknown } | undefined)?.versions;
  if (!Array.isArray(versions)) return undefined;
  const v = versions.find((x) => x && typeof x === 'object' && (x as { name?: unknown }).name === version) as { schema?: { openAPIV3Schema?: StructuralSchema } } | undefined;
  return v?.schema?.openAPIV3Schema;
}

export function checkAgainstSchema(obj: Unstructured, schema: StructuralSchema): SchemaCheck {
  const problems: string[] = [];
  const unknown: string[] = [];
  const { metadata, apiVersion, kind, ...rest } = obj;
  // apiVersion, kind and metadata are the API server's own: checked apart from the schema.
  const props = { ...(schema.properties ?? {}) };
  delete props.metadata;
  delete props.apiVersion;
  delete props.kind;
  const body = walk(rest, { ...schema, properties: props }, '', problems, unknown) as Record<string, unknown>;
  return { object: { apiVersion, kind, metadata, ...body } as Unstructured, problems, unknown };
}

function walk(value: unknown, s: StructuralSchema, path: string, problems: string[], unknown: string[]): unknown {
  const at = path || '<root>';
  if (value === null) {
    if (!s.nullable && s.type !== undefined && !s['x-kubernetes-preserve-unknown-fields']) problems.push(`${at}: Invalid value: "null": ${at} in body must be of type ${s.type}: "null"`);
    return value;
  }
  if (s['x-kubernetes-int-or-string']) {
    if (!(typeof value === 'string' || Number.isInteger(value))) problems.push(`${at}: Invalid value: "${typeName(value)}": ${at} in body must be of type integer,string: "${typeName(value)}"`);
    return value;
  }
  if (s.type && !hasType(value, s.type)) {
    problems.push(`${at}: Invalid value: "${typeName(value)}": ${at} in body must be of type ${s.type}: "${typeName(value)}"`);
    return value;
  }
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    problems.push(`${at}: Unsupported value: ${JSON.stringify(value)}: supported values: ${s.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  if (typeof value === 'number') checkNumber(value, s, at, problems);
  else if (typeof value === 'string') checkString(value, s, at, problems);
  else if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems) problems.push(`${at}: Invalid value: ${value.length}: ${at} in body should have at least ${s.minItems} items`);
    if (s.maxItems !== undefined && value.length > s.maxItems) problems.push(`${at}: Too many: ${value.length}: must have at most ${s.maxItems} items`);
    return s.items ? value.map((v, i) => walk(v, s.items!, `${path}[${i}]`, problems, unknown)) : value;
  } else if (typeof value === 'object') return walkObject(value as Record<string, unknown>, s, path, problems, unknown);
  return value;
}

function walkObject(value: Record<string, unknown>, s: StructuralSchema, path: string, problems: string[], unknown: string[]): Record<string, unknown> {
  const at = path || '<root>';
  const out: Record<string, unknown> = {};
  const props = s.properties ?? {};
  const extra = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  const keep = s['x-kubernetes-preserve-unknown-fields'] === true || s.additionalProperties === true || s['x-kubernetes-embedded-resource'] === true;
  for (const [k, v] of Object.entries(value)) {
    const child = path ? `${path}.${k}` : k;
    const ps = props[k] ?? extra;
    if (ps) out[k] = walk(v, ps, child, problems, unknown);
    else if (keep || (s.properties === undefined && s.type === undefined)) out[k] = v;
    else unknown.push(child);
  }
  // Defaults: a property the object lacks takes its schema's default (the API server's defaulting).
  for (const [k, ps] of Object.entries(props)) if (out[k] === undefined && ps.default !== undefined) out[k] = structuredClone(ps.default);
  for (const r of s.required ?? []) if (out[r] === undefined) problems.push(`${path ? `${path}.` : ''}${r}: Required value`);
  const n = Object.keys(out).length;
  if (s.minProperties !== undefined && n < s.minProperties) problems.push(`${at}: Invalid value: ${n}: ${at} in body should have at least ${s.minProperties} properties`);
  if (s.maxProperties !== undefined && n > s.maxProperties) problems.push(`${at}: Too many: ${n}: must have at most ${s.maxProperties} items`);
  return out;
}

function checkNumber(v: number, s: StructuralSchema, at: string, problems: string[]): void {
  if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)) problems.push(`${at}: Invalid value: ${v}: ${at} in body should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`);
  if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)) problems.push(`${at}: Invalid value: ${v}: ${at} in body should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`);
}

function checkString(v: string, s: StructuralSchema, at: string, problems: string[]): void {
  const len = [...v].length;
  if (s.minLength !== undefined && len < s.minLength) problems.push(`${at}: Invalid value: ${JSON.stringify(v)}: ${at} in body should be at least ${s.minLength} chars long`);
  if (s.maxLength !== undefined && len > s.maxLength) problems.push(`${at}: Too long: may not be more than ${s.maxLength} bytes`);
  if (s.pattern !== undefined) {
    let re: RegExp | undefined;
    try {
      re = new RegExp(s.pattern, 'u');
    } catch {
      re = undefined; // a pattern JavaScript cannot read is left to the server
    }
    if (re && !re.test(v)) problems.push(`${at}: Invalid value: ${JSON.stringify(v)}: ${at} in body should match '${s.pattern}'`);
  }
}

function hasType(v: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true;
  }
}

/** The JSON type name the API server quotes in a type error. */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}
