/**
 * Resource requests: routing to a served resource, then create / get / list / update / patch /
 * delete / deletecollection, and the status and scale subresources.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { randomUUID, randomInt } from 'node:crypto';
import type { Clock } from './clock.js';
import type { Catalog, Obj, RawResponse, ServedResource } from './types.js';
import type { Store } from './storage.js';
import type { RequestInfo } from './requestinfo.js';
import type { CrdController } from './crd-controller.js';
import { ApiError, alreadyExists, badRequest, conflict, notFound, pageNotFound, qualified } from './status.js';
import { gvString, normalizeForStorage, rfc3339, specPart, tracksGeneration, sortKeysDeep } from './meta.js';
import { managerFromUserAgent, updateManagedFields, type ManagedFieldsEntry } from './managed-fields.js';
import { serverSideApply } from './apply.js';
import { schemaFor } from './schema.js';
import { applyCreateDefaults } from './defaults.js';
import { mergePatch, jsonPatch, JsonPatchError } from './patch.js';
import { handleList, present } from './lists.js';
import { deleteObject, deleteCollection } from './deletes.js';
import { contentType, parseBody } from './body.js';
import { getScale, updateScale } from './scale.js';
import type { Faults } from './faults.js';
import { handleWatch, type StreamResponse, type Watches } from './watch.js';

export interface Backend {
  store: Store;
  catalog: Catalog;
  clock: Clock;
  crds: CrdController;
  /** Next ClusterIP for services. */
  nextClusterIP(): string;
  /** Serialized list items per stored object (see lists.ts). */
  jsonCache: WeakMap<Obj, { version: string; json: string }>;
  /** Serialized watch event objects per stored object (see watch.ts). */
  eventJsonCache: WeakMap<Obj, { version: string; json: string }>;
  watches: Watches;
  faults: Faults;
}

export interface ResourceRequest {
  info: RequestInfo;
  method: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  user: string;
}

/** Everything a handler needs about the addressed resource. */
export interface Target {
  served: ServedResource;
  /** Storage key parts (version independent). */
  group: string;
  resource: string;
  namespace: string;
  name: string;
  subresource: string;
}

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SERVER_METADATA = ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink'];

export function handleResourceRequest(b: Backend, req: ResourceRequest): RawResponse | StreamResponse {
  const { info } = req;
  const served = b.catalog.lookup(info.group, info.version, info.resource);
  if (!served || info.parts.length > 3) return pageNotFound();
  const isNamespaces = served.group === '' && served.resource === 'namespaces';
  const namespace = isNamespaces ? '' : info.namespace;
  if (!served.namespaced && namespace) return pageNotFound();
  if (info.subresource && !served.subresources.some((s) => s.name === info.subresource)) return pageNotFound();
  const t: Target = { served, group: served.group, resource: served.resource, namespace, name: info.name, subresource: info.subresource };
  if (served.namespaced && !namespace && (info.name || req.method !== 'GET')) {
    if (info.name) return pageNotFound();
    throw new ApiError(405, `the server does not allow this method on the requested resource`, 'MethodNotAllowed', { kind: served.resource, group: served.group });
  }
  switch (req.method) {
    case 'GET':
    case 'HEAD':
      if (info.verb === 'watch') {
        if (t.subresource) return pageNotFound();
        return handleWatch(b, t, req);
      }
      if (!t.name) return handleList(b, t, req);
      return t.subresource === 'scale' ? getScale(b, t) : getObject(b, t, req);
    case 'POST':
      if (t.name) return pageNotFound();
      return create(b, t, req);
    case 'PUT':
      if (!t.name) return pageNotFound();
      return t.subresource === 'scale' ? updateScale(b, t, req, parseBody(req, t)) : update(b, t, req, parseBody(req, t));
    case 'PATCH':
      if (!t.name) return pageNotFound();
      return patch(b, t, req);
    case 'DELETE':
      if (!t.name) return deleteCollection(b, t, req);
      if (t.subresource) return pageNotFound();
      return deleteObject(b, t, req);
    default:
      throw new ApiError(405, `the server does not allow this method on the requested resource`, 'MethodNotAllowed');
  }
}

export function getObject(b: Backend, t: Target, req: ResourceRequest): RawResponse {
  const o = b.store.get(t.group, t.resource, t.namespace, t.name);
  if (!o) throw notFound(t.group, t.resource, t.name);
  return respondObject(b, t, req, 200, o);
}

/** An object response, honouring Table / PartialObjectMetadata Accept headers. */
export function respondObject(b: Backend, t: Target, req: ResourceRequest, status: number, o: Obj): RawResponse {
  return handleList(b, t, req, { single: o, status });
}

export function checkGVK(t: Target, o: Obj): void {
  const gv = gvString(t.served.group, t.served.version);
  if (o.apiVersion !== undefined && o.apiVersion !== gv) {
    // Another served version of the same group is fine for built-ins only through conversion; be strict like the handler.
    throw badRequest(`the API version in the data (${o.apiVersion}) does not match the expected API version (${gv})`);
  }
  if (o.kind !== undefined && o.kind !== t.served.kind) {
    if (t.served.crd) {
      throw invalidError(t, t.served.kind, String(o.metadata?.name ?? ''), 'kind', 'FieldValueInvalid', `Invalid value: "${o.kind}": must be ${t.served.kind}`);
    }
    const internal = t.served.group ? t.served.group.split('.')[0] : 'core';
    throw badRequest(`${o.kind} in version "${t.served.version}" cannot be handled as a ${t.served.kind}: converting (${t.served.version}.${o.kind}) to (${internal}.${t.served.kind}): unknown conversion`);
  }
}

function invalidName(t: Target, name: string, kind: string): ApiError | undefined {
  const isNs = t.group === '' && t.resource === 'namespaces';
  const re = isNs ? DNS1123_LABEL : DNS1123_SUBDOMAIN;
  if (re.test(name) && name.length <= (isNs ? 63 : 253)) return undefined;
  const detail = isNs
    ? `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`
    : `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
  return invalidError(t, kind, name, 'metadata.name', 'FieldValueInvalid', `Invalid value: "${name}": ${detail}`);
}

export function invalidError(t: Target, kind: string, name: string, field: string, reason: string, message: string): ApiError {
  const qk = t.served.group ? `${kind}.${t.served.group}` : kind;
  return new ApiError(422, `${qk} "${name}" is invalid: ${field}: ${message}`, 'Invalid', {
    name,
    group: t.served.group,
    kind,
    causes: [{ reason, message, field }],
  });
}

function fieldManager(req: ResourceRequest): string {
  const fm = req.query.get('fieldManager');
  if (fm !== null) {
    if (fm.length > 128) throw badRequest(`fieldManager: Too long: may not be more than 128 bytes`);
    return fm;
  }
  return managerFromUserAgent(String(req.headers['user-agent'] ?? ''));
}

export function dryRun(req: ResourceRequest, body?: Obj): boolean {
  const q = req.query.getAll('dryRun');
  for (const v of q) if (v !== 'All') throw badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`);
  return q.length > 0 || (Array.isArray(body?.dryRun) && body!.dryRun.includes('All'));
}

function withManagedFields(b: Backend, t: Target, req: ResourceRequest, oldObj: Obj | undefined, newObj: Obj, subresource?: string): void {
  const mf = updateManagedFields(oldObj, newObj, {
    manager: fieldManager(req),
    apiVersion: gvString(t.served.group, t.served.version),
    time: rfc3339(b.clock.now()),
    subresource,
    custom: !!t.served.crd,
    schema: schemaFor(t.served),
  });
  if (mf.length) newObj.metadata.managedFields = mf;
  else delete newObj.metadata.managedFields;
}

export function create(b: Backend, t: Target, req: ResourceRequest): RawResponse {
  return createObject(b, t, req, parseBody(req, t));
}

/** What server-side apply changes in the create and update paths: its own managedFields. */
export interface ManagedFieldsOverride {
  managedFields: ManagedFieldsEntry[];
  /** The field sets changed even if the object did not (the update is still written). */
  changed: boolean;
}

/** Creates `body` (already decoded) with all the server's rules. */
export function createObject(b: Backend, t: Target, req: ResourceRequest, body: Obj, mf?: ManagedFieldsOverride): RawResponse {
  checkGVK(t, body);
  const o: Obj = structuredClone(body);
  o.apiVersion = gvString(t.served.group, t.served.version);
  o.kind = t.served.kind;
  const meta: Obj = (o.metadata = { ...(o.metadata ?? {}) });
  for (const k of SERVER_METADATA) delete meta[k];
  if (t.served.namespaced) {
    if (meta.namespace && meta.namespace !== t.namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    meta.namespace = t.namespace;
  } else delete meta.namespace;
  if (!meta.name && meta.generateName) {
    let name: string;
    do {
      name = String(meta.generateName) + Array.from({ length: 5 }, () => NAME_CHARS[randomInt(NAME_CHARS.length)]).join('');
    } while (b.store.get(t.group, t.resource, t.namespace, name));
    meta.name = name;
  }
  if (!meta.name) throw invalidError(t, t.served.kind, '', 'metadata.name', 'FieldValueRequired', 'Required value: name or generateName is required');
  const bad = invalidName(t, meta.name, t.served.kind);
  if (bad) throw bad;
  if (t.served.namespaced && !b.store.get('', 'namespaces', '', t.namespace)) throw notFound('', 'namespaces', t.namespace);
  if (t.group === 'apiextensions.k8s.io' && t.resource === 'customresourcedefinitions') b.crds.validate(o, t);
  if (b.store.get(t.group, t.resource, t.namespace, meta.name)) throw alreadyExists(t.group, t.resource, meta.name);
  if (t.served.crd && t.served.subresources.some((s) => s.name === 'status')) delete o.status;
  if (t.group === '' && t.resource === 'namespaces') meta.labels = { ...(meta.labels ?? {}), 'kubernetes.io/metadata.name': meta.name };
  meta.uid = randomUUID();
  meta.resourceVersion = ''; // placeholder keeping key order; storage stamps the real one
  meta.creationTimestamp = rfc3339(b.clock.now());
  if (tracksGeneration(t.served)) meta.generation = 1;
  if (mf) meta.managedFields = mf.managedFields;
  else withManagedFields(b, t, req, undefined, o);
  applyCreateDefaults(t.served, o, b);
  const stored = normalizeForStorage(o, t.served);
  if (dryRun(req)) {
    delete stored.metadata.resourceVersion;
    return respondObject(b, t, req, 201, stored);
  }
  b.store.create(t.group, t.resource, stored);
  if (t.group === 'apiextensions.k8s.io' && t.resource === 'customresourcedefinitions') b.crds.created(stored);
  return respondObject(b, t, req, 201, stored);
}

/** Applies an update (PUT or the result of a patch) to `old`, with all the server's rules. */
export function applyUpdate(b: Backend, t: Target, req: ResourceRequest, old: Obj, incoming: Obj, mf?: ManagedFieldsOverride): RawResponse {
  checkGVK(t, incoming);
  const inMeta: Obj = incoming.metadata ?? {};
  if ((inMeta.name ?? '') !== t.name) throw badRequest(`the name of the object (${inMeta.name ?? ''}) does not match the name on the URL (${t.name})`);
  if (t.served.namespaced && inMeta.namespace && inMeta.namespace !== t.namespace) {
    throw badRequest(`the namespace of the object (${inMeta.namespace}) does not match the namespace on the URL (${t.namespace})`);
  }
  if (inMeta.resourceVersion !== undefined && inMeta.resourceVersion !== '' && inMeta.resourceVersion !== old.metadata.resourceVersion) {
    throw conflict(t.group, t.resource, t.name, 'the object has been modified; please apply your changes to the latest version and try again');
  }
  if (inMeta.uid && inMeta.uid !== old.metadata.uid) {
    throw conflict(t.group, t.resource, t.name, `Precondition failed: UID in precondition: ${inMeta.uid}, UID in object meta: ${old.metadata.uid}`);
  }
  let o: Obj = structuredClone(incoming);
  o.apiVersion = gvString(t.served.group, t.served.version);
  o.kind = t.served.kind;
  const meta: Obj = (o.metadata = { ...(o.metadata ?? {}) });
  for (const k of SERVER_METADATA) meta[k] = old.metadata[k];
  if (t.served.namespaced) meta.namespace = t.namespace;
  else delete meta.namespace;
  const hasStatusSub = t.served.subresources.some((s) => s.name === 'status');
  if (t.subresource === 'status') {
    // Only status changes through /status.
    o = { ...structuredClone(old), status: o.status };
    if (o.status === undefined) delete o.status;
    o.metadata = { ...o.metadata };
  } else if (hasStatusSub) {
    if (old.status === undefined) delete o.status;
    else o.status = old.status;
  }
  if (t.group === '' && t.resource === 'namespaces') o.metadata.labels = { ...(o.metadata.labels ?? {}), 'kubernetes.io/metadata.name': t.name };
  if (t.group === 'apiextensions.k8s.io' && t.resource === 'customresourcedefinitions' && t.subresource !== 'status') b.crds.validate(o, t);
  if (tracksGeneration(t.served) && t.subresource !== 'status' && specPart(o) !== specPart(old)) o.metadata.generation = (old.metadata.generation ?? 0) + 1;
  const unchanged = JSON.stringify(sortKeysDeep({ ...o, apiVersion: '', metadata: { ...o.metadata, managedFields: undefined } })) ===
    JSON.stringify(sortKeysDeep({ ...old, apiVersion: '', metadata: { ...old.metadata, managedFields: undefined } }));
  if (unchanged && !mf?.changed) return respondObject(b, t, req, 200, old);
  if (mf) {
    if (mf.managedFields.length) o.metadata.managedFields = mf.managedFields;
    else delete o.metadata.managedFields;
  } else withManagedFields(b, t, req, old, o, t.subresource || undefined);
  const stored = normalizeForStorage(o, t.served);
  if (dryRun(req)) return respondObject(b, t, req, 200, stored);
  b.store.update(t.group, t.resource, stored);
  // A terminating object whose last finalizer is gone is deleted (the answer is its last state).
  if (stored.metadata.deletionTimestamp && !(Array.isArray(stored.metadata.finalizers) && stored.metadata.finalizers.length > 0)) {
    b.store.delete(t.group, t.resource, t.namespace, t.name);
    return respondObject(b, t, req, 200, stored);
  }
  if (t.group === 'apiextensions.k8s.io' && t.resource === 'customresourcedefinitions') b.crds.updated(stored);
  return respondObject(b, t, req, 200, stored);
}

export function update(b: Backend, t: Target, req: ResourceRequest, body: Obj): RawResponse {
  const old = b.store.get(t.group, t.resource, t.namespace, t.name);
  if (!old) {
    // A PUT names what it updates: check the body first, as the handler does, then report NotFound.
    if ((body.metadata?.name ?? '') !== t.name) throw badRequest(`the name of the object (${body.metadata?.name ?? ''}) does not match the name on the URL (${t.name})`);
    throw notFound(t.group, t.resource, t.name);
  }
  return applyUpdate(b, t, req, old, body);
}

export function patch(b: Backend, t: Target, req: ResourceRequest): RawResponse {
  const ct = contentType(req);
  if (ct === 'application/apply-patch+yaml') {
    if (t.subresource === 'scale') throw new ApiError(415, 'server-side apply of the scale subresource is not supported by this server', 'UnsupportedMediaType');
    return serverSideApply(b, t, req);
  }
  const supported = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];
  if (!supported.includes(ct)) {
    throw new ApiError(415, `the body of the request was in an unknown format - accepted media types include: ${supported.join(', ')}, application/apply-patch+yaml`, 'UnsupportedMediaType');
  }
  const old = b.store.get(t.group, t.resource, t.namespace, t.name);
  if (!old) throw notFound(t.group, t.resource, t.name);
  let p: unknown;
  try {
    p = JSON.parse(req.body.toString('utf8'));
  } catch (e) {
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  if (ct === 'application/strategic-merge-patch+json' && t.served.crd) {
    throw new ApiError(415, `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`, 'UnsupportedMediaType');
  }
  const current = t.subresource === 'scale' ? JSON.parse(getScale(b, t).body as string) : { ...old, apiVersion: gvString(t.served.group, t.served.version) };
  let patched: unknown;
  try {
    patched = ct === 'application/json-patch+json' ? jsonPatch(current, p) : mergePatch(current, p);
  } catch (e) {
    if (e instanceof JsonPatchError) {
      if (e.testFailed) throw new ApiError(422, e.message, 'Invalid', { name: t.name, group: t.group, kind: t.served.kind });
      throw new ApiError(500, e.message, 'InternalError');
    }
    throw e;
  }
  if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw badRequest('the patch produced something that is not an object');
  const po = patched as Obj;
  if (t.subresource === 'scale') return updateScale(b, t, req, po);
  // A resourceVersion in the patch is a precondition; otherwise the patch applies to the latest.
  const inRv = (p as Obj)?.metadata?.resourceVersion;
  if (ct === 'application/json-patch+json' || inRv === undefined) po.metadata = { ...(po.metadata ?? {}), resourceVersion: inRv ?? old.metadata.resourceVersion };
  if ((po.metadata?.name ?? '') !== t.name) throw badRequest(`the name of the object (${po.metadata?.name ?? ''}) does not match the name on the URL (${t.name})`);
  return applyUpdate(b, t, req, old, po);
}

export { present, qualified, parseBody };
