/**
 * One OpenAPI v3 group-version document (`/openapi/v3/api/v1`, `/openapi/v3/apis/G/V`) built from the
 * catalog: an operation per verb with `x-kubernetes-group-version-kind` and `x-kubernetes-action`, PATCH
 * operations declaring the `fieldValidation` query parameter (so kubectl relies on server-side field
 * validation), and component schemas carrying `x-kubernetes-group-version-kind` (kubectl explain).
 * CRD kinds get their `openAPIV3Schema`; built-in kinds a minimal object schema (see openapi.ts).
 */
import type { CatalogResource, ServedGroup, ServedVersion } from './catalog.js';
import type { Obj } from './types.js';

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const queryParam = (name: string, description: string, type = 'string') => ({ name, in: 'query', description, schema: { type, uniqueItems: true } });
const PRETTY = queryParam('pretty', "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).");
const DRY_RUN = queryParam('dryRun', 'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed');
const FIELD_MANAGER = queryParam('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.');
const FIELD_VALIDATION = queryParam(
  'fieldValidation',
  'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict',
);
const FORCE = queryParam('force', 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people.', 'boolean');
const LIST_PARAMS = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'].map((n) =>
  queryParam(n, `${n} (list option)`, n === 'limit' || n === 'timeoutSeconds' ? 'integer' : n === 'watch' || n === 'allowWatchBookmarks' || n === 'sendInitialEvents' ? 'boolean' : 'string'),
);
const NAME = (what: string) => ({ name: 'name', in: 'path', description: `name of the ${what}`, required: true, schema: { type: 'string', uniqueItems: true } });
const NAMESPACE = { name: 'namespace', in: 'path', description: 'object name and auth scope, such as for teams and projects', required: true, schema: { type: 'string', uniqueItems: true } };

/** Reverse-DNS schema name prefix of a group-version, as the real server names components. */
export function schemaPrefix(group: string, version: string, custom: boolean): string {
  if (custom) return `${group.split('.').reverse().join('.')}.${version}`;
  if (group === '') return `io.k8s.api.core.${version}`;
  if (group === 'apiextensions.k8s.io') return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}`;
  if (group === 'apiregistration.k8s.io') return `io.k8s.kube-aggregator.pkg.apis.apiregistration.${version}`;
  return `io.k8s.api.${group.split('.')[0]}.${version}`;
}

const schemaName = (k: Gvk, custom: boolean) => `${schemaPrefix(k.group, k.version, custom)}.${k.kind}`;
const pascal = (s: string) => s.split(/[^A-Za-z0-9]/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');

/** The document for one served group-version. */
export function groupVersionDocument(group: ServedGroup, version: ServedVersion): Obj {
  const paths: Obj = {};
  const schemas: Obj = baseSchemas();
  const prefix = group.name ? `/apis/${group.name}/${version.version}` : `/api/${version.version}`;
  const tag = `${group.name ? pascal(group.name.replace(/\.k8s\.io$/, '')) : 'core'}_${version.version}`;
  for (const r of version.resources) {
    const custom = !!r.crd;
    const self: Gvk = { group: r.group, version: r.version, kind: r.kind };
    schemas[schemaName(self, custom)] = kindSchema(r, self);
    schemas[schemaName({ ...self, kind: `${r.kind}List` }, custom)] = listSchema(r, self, custom);
    const ns = r.namespaced ? '/namespaces/{namespace}' : '';
    const scopeParams = r.namespaced ? [NAMESPACE] : [];
    const op = (action: string, verbName: string, gvk: Gvk, extra: Obj = {}) =>
      operation(tag, action, `${verbName}${pascal(group.name)}${pascal(version.version)}${r.namespaced ? 'Namespaced' : ''}${gvk.kind}`, gvk, custom, extra);

    const collection: Obj = { parameters: [...scopeParams, PRETTY] };
    if (r.verbs.includes('list')) collection.get = op('list', 'list', self, { parameters: LIST_PARAMS, list: true });
    if (r.verbs.includes('create')) collection.post = op('post', 'create', self, { parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], body: 'object' });
    if (r.verbs.includes('deletecollection')) collection.delete = op('deletecollection', 'deleteCollection', self, { parameters: LIST_PARAMS });
    if (r.verbs.includes('create') && !r.verbs.includes('patch')) {
      // Create-only kinds (reviews, bindings) have no PATCH operation on a real server, so kubectl falls
      // back to OpenAPI v2 (protobuf, not served here) for client-side validation and fails. This
      // operation only tells kubectl that the server validates fields itself.
      collection.patch = { ...op('patch', 'patch', self, { parameters: [FIELD_VALIDATION] }), 'x-kdyn-validation-only': true };
    }
    if (Object.keys(collection).length > 1) paths[`${prefix}${ns}/${r.resource}`] = collection;
    if (r.namespaced && r.verbs.includes('list')) {
      paths[`${prefix}/${r.resource}`] = {
        get: operation(tag, 'list', `list${pascal(group.name)}${pascal(version.version)}${r.kind}ForAllNamespaces`, self, custom, { parameters: LIST_PARAMS, list: true }),
        parameters: [PRETTY],
      };
    }
    const item = itemPath(r, self, custom, op, [...scopeParams, NAME(r.kind), PRETTY]);
    if (item) paths[`${prefix}${ns}/${r.resource}/{name}`] = item;
    for (const s of r.subresources) {
      const kind: Gvk = s.kind ?? self;
      const subCustom = custom && kind.group === r.group;
      if (!schemas[schemaName(kind, subCustom)]) schemas[schemaName(kind, subCustom)] = kindSchema(undefined, kind);
      const subOp = (action: string, verbName: string, gvk: Gvk, extra: Obj = {}) =>
        operation(tag, action, `${verbName}${pascal(group.name)}${pascal(version.version)}${r.namespaced ? 'Namespaced' : ''}${r.kind}${pascal(s.name)}`, gvk, subCustom, extra);
      const sub = itemPath({ ...r, verbs: s.verbs }, kind, subCustom, subOp, [...scopeParams, NAME(kind.kind), PRETTY]);
      if (sub) paths[`${prefix}${ns}/${r.resource}/{name}/${s.name}`] = sub;
    }
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas, securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } } },
  };
}

type OpFn = (action: string, verbName: string, gvk: Gvk, extra?: Obj) => Obj;

function itemPath(r: CatalogResource, gvk: Gvk, custom: boolean, op: OpFn, parameters: Obj[]): Obj | undefined {
  const path: Obj = { parameters };
  const v = r.verbs;
  if (v.includes('get')) path.get = op('get', 'read', gvk);
  if (v.includes('update')) path.put = op('put', 'replace', gvk, { parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], body: 'object' });
  if (v.includes('patch')) path.patch = op('patch', 'patch', gvk, { parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE], body: custom ? 'crd-patch' : 'patch' });
  if (v.includes('delete')) path.delete = op('delete', 'delete', gvk, { parameters: [DRY_RUN, queryParam('gracePeriodSeconds', 'grace period', 'integer'), queryParam('propagationPolicy', 'propagation policy')] });
  if (v.includes('create') && !path.put) path.post = op('post', 'create', gvk, { parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], body: 'object' });
  return Object.keys(path).length > 1 ? path : undefined;
}

function operation(tag: string, action: string, operationId: string, gvk: Gvk, custom: boolean, extra: Obj): Obj {
  const target = ref(schemaName(extra.list ? { ...gvk, kind: `${gvk.kind}List` } : gvk, custom));
  const op: Obj = { tags: [tag], description: `${action} ${gvk.kind}`, operationId };
  if (extra.parameters) op.parameters = extra.parameters;
  if (extra.body === 'object') {
    op.requestBody = { content: { '*/*': { schema: target } }, required: true };
  } else if (extra.body) {
    // kubectl apply computes a strategic merge patch from OpenAPI v3 only when the PATCH operation
    // accepts it; the minimal built-in schemas here lack the patch strategies, so it is left out and
    // kubectl falls back to its compiled-in types.
    const types = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
    op.requestBody = { content: Object.fromEntries(types.map((t) => [t, { schema: ref(`${META}.Patch`) }])), required: true };
  }
  const ok = { description: 'OK', content: { 'application/json': { schema: action === 'delete' || action === 'deletecollection' ? ref(`${META}.Status`) : target } } };
  op.responses = action === 'post' ? { '200': ok, '201': { ...ok, description: 'Created' }, '202': { ...ok, description: 'Accepted' }, '401': { description: 'Unauthorized' } } : { '200': ok, '401': { description: 'Unauthorized' } };
  op['x-kubernetes-action'] = action;
  op['x-kubernetes-group-version-kind'] = { group: gvk.group, version: gvk.version, kind: gvk.kind };
  return op;
}

function kindSchema(r: CatalogResource | undefined, gvk: Gvk): Obj {
  const fromCrd = r?.crd ? crdVersionSchema(r.crd, gvk.version) : undefined;
  const schema: Obj = fromCrd ? structuredClone(fromCrd) : { description: `${gvk.kind} (${gvk.group || 'core'}/${gvk.version}).`, type: 'object' };
  schema.type ??= 'object';
  schema.properties = {
    apiVersion: { description: 'APIVersion defines the versioned schema of this representation of an object.', type: 'string' },
    kind: { description: 'Kind is a string value representing the REST resource this object represents.', type: 'string' },
    ...(schema.properties ?? {}),
    // As the real server does for CRDs: metadata is always the standard ObjectMeta.
    metadata: { description: "Standard object's metadata.", allOf: [ref(`${META}.ObjectMeta`)] },
  };
  schema['x-kubernetes-group-version-kind'] = [{ group: gvk.group, kind: gvk.kind, version: gvk.version }];
  return schema;
}

function crdVersionSchema(crd: Obj, version: string): Obj | undefined {
  const v = (crd.spec?.versions ?? []).find((x: Obj) => x?.name === version);
  const schema = v?.schema?.openAPIV3Schema ?? crd.spec?.validation?.openAPIV3Schema;
  return schema && typeof schema === 'object' ? schema : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
}

function listSchema(r: CatalogResource, gvk: Gvk, custom: boolean): Obj {
  return {
    description: `${gvk.kind}List is a list of ${gvk.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string' },
      items: { description: `List of ${r.resource}.`, type: 'array', items: ref(schemaName(gvk, custom)) },
      kind: { type: 'string' },
      metadata: { allOf: [ref(`${META}.ListMeta`)] },
    },
    'x-kubernetes-group-version-kind': [{ group: gvk.group, kind: `${gvk.kind}List`, version: gvk.version }],
  };
}

function baseSchemas(): Obj {
  const str = (description: string) => ({ type: 'string', description });
  return {
    [`${META}.ObjectMeta`]: {
      description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
      type: 'object',
      properties: {
        annotations: { type: 'object', additionalProperties: { type: 'string', default: '' }, description: 'Annotations is an unstructured key value map.' },
        creationTimestamp: str('CreationTimestamp is a timestamp representing the server time when this object was created.'),
        generateName: str('GenerateName is an optional prefix, used by the server, to generate a unique name.'),
        generation: { type: 'integer', format: 'int64', description: 'A sequence number representing a specific generation of the desired state.' },
        labels: { type: 'object', additionalProperties: { type: 'string', default: '' }, description: 'Map of string keys and values that can be used to organize and categorize objects.' },
        name: str('Name must be unique within a namespace.'),
        namespace: str('Namespace defines the space within which each name must be unique.'),
        resourceVersion: str('An opaque value that represents the internal version of this object.'),
        uid: str('UID is the unique in time and space value for this object.'),
      },
    },
    [`${META}.ListMeta`]: { type: 'object', properties: { continue: { type: 'string' }, remainingItemCount: { type: 'integer', format: 'int64' }, resourceVersion: { type: 'string' } } },
    [`${META}.Patch`]: { description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.', type: 'object' },
    [`${META}.Status`]: {
      description: 'Status is a return value for calls that do not return other objects.',
      type: 'object',
      properties: { code: { type: 'integer', format: 'int32' }, message: { type: 'string' }, reason: { type: 'string' }, status: { type: 'string' } },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }],
    },
  };
}
