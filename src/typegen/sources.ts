/**
 * Where kinds' schemas come from: a group-version's OpenAPI v3 document (the kind's component is the
 * one whose `x-kubernetes-group-version-kind` names it), or a CustomResourceDefinition manifest (each
 * served version's `openAPIV3Schema`, with `apiVersion`, `kind` and `metadata` as the server adds them).
 * Also `missingRequired`, which checks an object against the `required` lists of its kind's schema.
 */
import { KdynError } from '../core/errors.js';
import { isObject, str } from '../core/guards.js';
import type { GroupVersionKind } from '../core/gvk.js';
import type { OpenApiDocument } from '../openapi/v3.js';
import type { KindSource, Schema } from './generate.js';

const OBJECT_META = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** The kind's schema in a group-version document; throws when the document does not describe it. */
export function kindFromDocument(doc: OpenApiDocument, gvk: GroupVersionKind): KindSource {
  const schemas = isObject(doc.components?.schemas) ? doc.components.schemas : {};
  for (const name of Object.keys(schemas).sort()) {
    const s = schemas[name];
    const tags = isObject(s) ? s['x-kubernetes-group-version-kind'] : undefined;
    const list = Array.isArray(tags) ? tags : isObject(tags) ? [tags] : [];
    if (list.some((t) => isObject(t) && str(t.group) === gvk.group && t.version === gvk.version && t.kind === gvk.kind)) {
      return { ...gvk, schemaName: name, schemas };
    }
  }
  const gv = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
  throw new KdynError(`the OpenAPI v3 document for ${gv} has no schema for kind ${gvk.kind}`);
}

/** Every served version of a CRD manifest, as kinds (`where` names the manifest in errors). */
export function kindsFromCrd(crd: unknown, where: string): KindSource[] {
  const spec = isObject(crd) && isObject(crd.spec) ? crd.spec : undefined;
  const group = str(spec?.group);
  const kind = isObject(spec?.names) ? str(spec.names.kind) : '';
  if (!spec || !group || !kind) throw new KdynError(`${where}: not a CustomResourceDefinition (spec.group and spec.names.kind are required)`);
  const out: KindSource[] = [];
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  for (const v of versions) {
    if (!isObject(v) || v.served === false || !str(v.name)) continue;
    const version = str(v.name);
    const declared = isObject(v.schema) && isObject(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : isObject(spec.validation) ? spec.validation.openAPIV3Schema : undefined;
    const schema: Schema = isObject(declared) ? structuredClone(declared) : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    schema.properties = { ...(isObject(schema.properties) ? schema.properties : {}), metadata: { allOf: [{ $ref: OBJECT_META }] } };
    const schemaName = `${group.split('.').reverse().join('.')}.${version}.${kind}`;
    out.push({ group, version, kind, schemaName, schemas: { [schemaName]: schema } });
  }
  if (!out.length) throw new KdynError(`${where}: CustomResourceDefinition ${kind}.${group} serves no version`);
  return out;
}

/**
 * Paths (`spec.parts[0].name`) of required fields `obj` lacks, per the kind's schema (following
 * `$ref`s, `allOf`, arrays and maps). `metadata`, `apiVersion` and `kind` are the generated types'
 * own required fields and are checked too.
 */
export function missingRequired(source: KindSource, obj: unknown): string[] {
  const out: string[] = [];
  const root = source.schemas[source.schemaName];
  if (!isObject(obj)) return ['(the object)'];
  for (const f of ['apiVersion', 'kind', 'metadata']) if (obj[f] === undefined) out.push(f);
  walk(isObject(root) ? root : {}, obj, '', source.schemas, out, 0);
  return out;
}

function walk(s: Schema, v: unknown, path: string, schemas: KindSource['schemas'], out: string[], depth: number): void {
  if (depth > 64 || v === null || v === undefined) return;
  if (typeof s.$ref === 'string') {
    const target = schemas[decodeURIComponent(s.$ref.replace('#/components/schemas/', ''))];
    if (isObject(target)) walk(target, v, path, schemas, out, depth + 1);
    return;
  }
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) if (isObject(sub)) walk(sub, v, path, schemas, out, depth + 1);
  if (Array.isArray(v)) {
    if (isObject(s.items)) v.forEach((item, i) => walk(s.items as Schema, item, `${path}[${i}]`, schemas, out, depth + 1));
    return;
  }
  if (!isObject(v)) return;
  const props = isObject(s.properties) ? s.properties : {};
  if (Array.isArray(s.required)) {
    for (const r of s.required) if (typeof r === 'string' && v[r] === undefined) out.push(path ? `${path}.${r}` : r);
  }
  for (const [k, ps] of Object.entries(props)) if (isObject(ps) && k in v) walk(ps, v[k], path ? `${path}.${k}` : k, schemas, out, depth + 1);
  if (isObject(s.additionalProperties)) {
    for (const [k, x] of Object.entries(v)) if (!(k in props)) walk(s.additionalProperties, x, `${path}[${JSON.stringify(k)}]`, schemas, out, depth + 1);
  }
}
