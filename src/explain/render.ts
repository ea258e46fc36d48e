/**
 * kubectl explain's `plaintext` output (kubectl v1.32, pkg/explain/v2/templates/plaintext.tmpl with
 * the functions of funcs.go), written out as functions: one per template of the file (`schema`,
 * `output`, `fieldList`, `fieldDetail`, `description`, `typeGuess`, `extractEnum`),
 * over the group-version's OpenAPI v3 document as parsed JSON. Go's template semantics are kept
 * where the output depends on them: truth (`if`, `with`, `or`: an empty map, list or string is false),
 * map ranges in sorted key order, `%v` of the decoded JSON (numbers are float64), `$ref`s resolved
 * inside the document, and the template's cycle detection (a `$ref` seen on the way to a field).
 * kubectl v1.32's template has no `externalDocs` section yet (later ones print it): none is printed.
 * Pure: the document in, text out.
 */
import { KdynError } from '../core/errors.js';
import { formatGoFloat, sortGoKeys } from '../core/go-json.js';
import type { GroupVersionResource } from '../core/gvk.js';
import { searchPaths } from './slim.js';
import { indent, wrap } from './text.js';

type Json = unknown;
type JsonMap = Record<string, unknown>;

/** What explain prints before it fails (kubectl writes the header, then reports the error). */
export class ExplainError extends KdynError {
  constructor(
    message: string,
    /** The output written before the error (the `KIND:`/`VERSION:` header, or nothing). */
    readonly output: string = '',
  ) {
    super(message);
  }
}

export interface RenderInput {
  /** The group-version's OpenAPI v3 document (`/openapi/v3/apis/apps/v1`), parsed. */
  document: Json;
  /** The resource to explain; its group and version name the document. */
  gvr: GroupVersionResource;
  /** Fields below the resource (`['spec', 'containers']`), possibly empty. */
  fieldPath: readonly string[];
  recursive: boolean;
}

const isMap = (v: Json): v is JsonMap => typeof v === 'object' && v !== null && !Array.isArray(v);
const get = (v: Json, key: string): Json => (isMap(v) ? v[key] : undefined);

/** Go's template truth: nil, false, 0, and empty strings, lists and maps are false. */
function truthy(v: Json): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  return isMap(v) && Object.keys(v).length > 0;
}

const or = (a: Json, b: Json): Json => (truthy(a) ? a : b);

/** `%v` of a value encoding/json decoded into interface{} (numbers are float64). */
function formatV(v: Json): string {
  if (v === undefined) return '<no value>';
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatGoFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(formatV).join(' ')}]`;
  const o = v as JsonMap;
  return `map[${sortGoKeys(Object.keys(o)).map((k) => `${k}:${formatV(o[k])}`).join(' ')}]`;
}

function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (!isMap(a) || !isMap(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
}

/** The template's `contains`: `list` is a list holding `value`. */
const contains = (list: Json, value: Json): boolean => Array.isArray(list) && list.some((x) => deepEqual(x, value));

/** A map that is not a bool: `additionalProperties: true` is no schema. */
const schemaOf = (v: Json): Json => (truthy(v) && typeof v !== 'boolean' ? v : undefined);

/** The GVR as Go's GroupVersionResource.String() prints it: `apps/v1, Resource=deployments`. */
export function gvrString(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}, Resource=${gvr.resource}`;
}

class Renderer {
  constructor(
    readonly doc: Json,
    readonly recursive: boolean,
  ) {}

  /** funcs.go resolveRef: a `#/a/b/c` reference inside the document; undefined for anything else. */
  resolveRef(ref: Json): Json {
    if (typeof ref !== 'string' || !ref.startsWith('#') || ref.length === 1) return undefined;
    let fragment: string;
    try {
      fragment = decodeURIComponent(ref.slice(1));
    } catch {
      return undefined;
    }
    let cur: Json = this.doc;
    for (const k of fragment.split('/')) {
      if (!k) continue;
      const next = get(cur, k);
      if (!isMap(next)) return undefined;
      cur = next;
    }
    return cur;
  }

  /** `schema`: the component whose x-kubernetes-group-version-kind lists `gvk`, explained along `fieldPath`. */
  schema(gvk: Json, fieldPath: readonly string[]): string {
    const schemas = get(get(this.doc, 'components'), 'schemas');
    if (!isMap(schemas)) return '';
    for (const name of sortGoKeys(Object.keys(schemas))) {
      const s = schemas[name];
      if (!contains(get(s, 'x-kubernetes-group-version-kind'), gvk)) continue;
      const out = this.output(s, fieldPath, undefined);
      if (!out) throw new ExplainError(`field "${fieldPath[fieldPath.length - 1]}" does not exist`);
      return out;
    }
    return '';
  }

  /** `output`: follows `fieldPath`, then prints the description and the field list of where it ends. */
  output(schema: Json, fieldPath: readonly string[], history: ReadonlySet<string> | undefined): string {
    const ref = refString(schema);
    const next = new Set(history);
    next.add(ref);
    const resolved = or(this.resolveRef(ref), schema);
    if (!fieldPath.length) {
      let out = `DESCRIPTION:\n${indent(4, wrap(76, String(or(this.description(resolved), '<empty>'))))}\n`;
      const fields = this.fieldList(resolved, 1, undefined);
      if (fields) out += `FIELDS:\n${fields}`;
      return out;
    }
    if (ref && history?.has(ref)) return ''; // a cycle
    const props = get(resolved, 'properties');
    const first = fieldPath[0]!;
    if (truthy(props) && truthy(get(props, first))) {
      const sub = get(props, first);
      let out = '';
      if (fieldPath.length === 1) out = `FIELD: ${first} <${this.typeGuess(sub)}>\n${extractEnum(sub, true, -1, 0)}\n\n`;
      return out + this.output(sub, fieldPath.slice(1), new Set());
    }
    const items = get(resolved, 'items');
    if (truthy(items)) return this.output(items, fieldPath, next);
    const additional = schemaOf(get(resolved, 'additionalProperties'));
    if (additional) return this.output(additional, fieldPath, next);
    for (const sub of list(get(resolved, 'allOf'))) {
      const out = this.output(sub, fieldPath, next);
      if (out) return out;
    }
    return '';
  }

  /** `fieldList`: the fields of a schema (and of its allOf, items, additionalProperties), nested when recursive. */
  fieldList(schema: Json, level: number, history: ReadonlySet<string> | undefined): string {
    const ref = refString(schema);
    if (ref && history?.has(ref)) return '';
    const next = new Set(history);
    next.add(ref);
    const resolved = or(this.resolveRef(ref), schema);
    let out = '';
    const props = get(resolved, 'properties');
    if (isMap(props)) {
      for (const name of sortGoKeys(Object.keys(props))) {
        out += this.fieldDetail(name, resolved, level);
        if (this.recursive) out += this.fieldList(props[name], level + 1, next);
      }
    }
    for (const sub of list(get(resolved, 'allOf'))) out += this.fieldList(sub, level, next);
    const items = get(resolved, 'items');
    if (truthy(items)) out += this.fieldList(items, level, next);
    const additional = schemaOf(get(resolved, 'additionalProperties'));
    if (additional) out += this.fieldList(additional, level, next);
    return out;
  }

  /** `fieldDetail`: one field's line (`name <type> -required-`, its enum) and, unless recursive, its description. */
  fieldDetail(name: string, schema: Json, level: number): string {
    const pad = level * 2;
    const field = get(get(schema, 'properties'), name);
    let out = `${indent(pad, name)}\t<${this.typeGuess(field)}>`;
    if (contains(get(schema, 'required'), name)) out += ' -required-';
    out += `${extractEnum(field, false, 4, pad)}\n`;
    if (this.recursive) return out;
    out += `${indent(pad + 2, wrap(78 - pad, formatV(or(get(field, 'description'), '<no description>'))))}\n`;
    return `${out}\n`;
  }

  /** `description`: the schema's description and those of its allOf, items and additionalProperties, a line each. */
  description(schema: Json): string {
    const s = or(this.resolveRef(get(schema, '$ref')), schema);
    if (!truthy(s)) return '';
    let out = '';
    const d = get(s, 'description');
    if (truthy(d)) out += `${formatV(d)}\n`;
    for (const sub of list(get(s, 'allOf'))) out += this.description(sub);
    const items = get(s, 'items');
    if (truthy(items)) out += this.description(items);
    const additional = schemaOf(get(s, 'additionalProperties'));
    if (additional) out += this.description(additional);
    return out;
  }

  /** `typeGuess`: `string`, `Object`, `[]Container`, `map[string]string`, a referenced schema's name. */
  typeGuess(schema: Json): string {
    if (!truthy(schema)) throw new ExplainError("expected schema argument to subtemplate 'typeguess'");
    const items = get(schema, 'items');
    if (truthy(items)) return `[]${this.typeGuess(items)}`;
    const additional = schemaOf(get(schema, 'additionalProperties'));
    if (additional) return `map[string]${this.typeGuess(additional)}`;
    const allOf = get(schema, 'allOf');
    if (truthy(allOf) && !truthy(get(schema, 'properties')) && Array.isArray(allOf) && allOf.length === 1) return this.typeGuess(allOf[0]);
    const ref = get(schema, '$ref');
    if (truthy(ref)) {
      const target = this.resolveRef(ref);
      const type = get(target, 'type');
      if (!truthy(target) || !truthy(type) || type === 'object') return String(ref).split('/').pop()!.split('.').pop() || 'Object';
      return formatV(type);
    }
    const type = get(schema, 'type');
    return type === 'object' ? 'Object' : formatV(or(type, 'Object'));
  }
}

const list = (v: Json): readonly Json[] => (Array.isArray(v) ? v : []);

/** The template's `or (index $.schema "$ref") ""`. */
function refString(schema: Json): string {
  const ref = get(schema, '$ref');
  return truthy(ref) ? String(ref) : '';
}

/** `extractEnum`: `ENUM:` and one value a line (the long view), or `enum: a, b, c, d, ....` after a field. */
function extractEnum(schema: Json, longView: boolean, limit: number, pad: number): string {
  const values = get(schema, 'enum');
  if (!truthy(schema) || !truthy(values)) return '';
  const max = limit || -1;
  let out = longView ? 'ENUM:' : `\n${' '.repeat(pad)}enum: `;
  const all = Array.isArray(values) ? values : Object.values(values as JsonMap);
  for (let i = 0; i < all.length; i++) {
    if (max > -1 && i >= max) {
      out += ', ....';
      break;
    }
    if (i > 0 && !longView) out += ', ';
    else if (longView) out += '\n    ';
    out += all[i] === '' ? '""' : formatV(all[i]);
  }
  return out;
}

/**
 * The plaintext explanation of `gvr` (and `fieldPath` below it) from its group-version's document.
 * Throws ExplainError, with the header already printed in `output`, where kubectl fails: no operation
 * of the document serves the resource, no component has its kind, a field does not exist.
 */
export function renderExplain(input: RenderInput): string {
  const { document, gvr } = input;
  // The kind from the operations on the resource's paths (the last path that has one wins, as in the template).
  let gvk: Json = '';
  const paths = get(document, 'paths');
  for (const p of searchPaths(gvr)) {
    const element = get(paths, p);
    if (!truthy(element)) continue;
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = get(element, method);
      if (!truthy(op)) continue;
      gvk = get(op, 'x-kubernetes-group-version-kind');
      if (truthy(gvk)) break;
    }
  }
  if (!truthy(gvk)) throw new ExplainError(`GVR (${gvrString(gvr)}) not found in OpenAPI schema`);
  let out = truthy(get(gvk, 'group')) ? `GROUP:      ${formatV(get(gvk, 'group'))}\n` : '';
  out += `KIND:       ${formatV(get(gvk, 'kind'))}\nVERSION:    ${formatV(get(gvk, 'version'))}\n\n`;
  let body: string;
  try {
    body = new Renderer(document, input.recursive).schema(gvk, input.fieldPath);
  } catch (e) {
    throw e instanceof ExplainError ? new ExplainError(e.message, out) : e;
  }
  if (!body) throw new ExplainError(`GVK ${formatV(gvk)} not found in OpenAPI schema`, out);
  return `${out}${body}\n`;
}
