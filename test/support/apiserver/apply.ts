/**
 * Server-side apply: `PATCH` with `Content-Type: application/apply-patch+yaml` (recordings 34-43).
 * Checks the request (fieldManager required, force, fieldValidation, name and namespace), decodes
 * the YAML, checks it against the schema (typed-patch errors, unknown fields), then creates the
 * object (201) or merges the configuration into it with field ownership (managed-fields.ts):
 * conflicts answer 409 with one FieldManagerConflict cause per field; an apply that changes nothing
 * writes nothing (same resourceVersion, no watch event).
 */
import { load } from 'js-yaml';
import type { Obj, RawResponse } from './types.js';
import type { Backend, ResourceRequest, Target } from './objects.js';
import { applyUpdate, checkGVK, createObject, respondObject } from './objects.js';
import { ApiError, badRequest, conflict, notFound } from './status.js';
import { gvString, rfc3339 } from './meta.js';
import { applyConfiguration, appliedFieldSet, conflictManagerName, pathString, toFieldsV1, type ApplyConflict, type ManagedFieldsEntry } from './managed-fields.js';
import { checkAgainstSchema, schemaFor, withoutPaths } from './schema.js';

const VALIDATION = ['Ignore', 'Strict', 'Warn'];

function fieldManagerRequired(): ApiError {
  const detail = 'Required value: is required for apply patch';
  return new ApiError(422, `PatchOptions.meta.k8s.io "" is invalid: fieldManager: ${detail}`, 'Invalid', {
    group: 'meta.k8s.io',
    kind: 'PatchOptions',
    causes: [{ reason: 'FieldValueRequired', message: detail, field: 'fieldManager' }],
  });
}

/** `yaml: line 2: mapping values are not allowed in this context`, as go-yaml words it. */
function decodeYaml(text: string): unknown {
  try {
    return load(text);
  } catch (e) {
    const err = e as Error & { mark?: { line: number }; reason?: string };
    const line = (err.mark?.line ?? 0) + 1;
    const reason = (err.reason ?? err.message.split('\n')[0] ?? '').replace(/^bad indentation of a mapping entry$/, 'mapping values are not allowed in this context');
    throw badRequest(`error decoding YAML: error converting YAML to JSON: yaml: line ${line}: ${reason}`);
  }
}

/** `capture/applied; stable.example.com/v1, Kind=CronTab`: how typed-patch errors name the object. */
function objectRef(t: Target, name: string): string {
  const gv = t.served.group ? `${t.served.group}/${t.served.version}` : `/${t.served.version}`;
  return `${t.served.namespaced ? `${t.namespace}/` : ''}${name}; ${gv}, Kind=${t.served.kind}`;
}

function conflictError(conflicts: ApplyConflict[]): ApiError {
  const n = conflicts.length;
  let detail: string;
  if (n === 1) detail = `conflict with ${conflictManagerName(conflicts[0]!.manager)}: ${pathString(conflicts[0]!.path)}`;
  else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) {
      const m = conflictManagerName(c.manager);
      byManager.set(m, [...(byManager.get(m) ?? []), pathString(c.path)]);
    }
    const lines: string[] = [];
    for (const m of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${m}:`);
      for (const p of byManager.get(m)!) lines.push(`- ${p}`);
    }
    detail = lines.join('\n');
  }
  return new ApiError(409, `Apply failed with ${n} conflict${n === 1 ? '' : 's'}: ${detail}`, 'Conflict', {
    causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${conflictManagerName(c.manager)}`, field: pathString(c.path) })),
  });
}

export function serverSideApply(b: Backend, t: Target, req: ResourceRequest): RawResponse {
  const manager = req.query.get('fieldManager');
  if (!manager) throw fieldManagerRequired();
  if (manager.length > 128) throw badRequest('fieldManager: Too long: may not be more than 128 bytes');
  const force = req.query.get('force') === 'true';
  const validation = req.query.get('fieldValidation') || 'Warn';
  if (!VALIDATION.includes(validation)) throw badRequest(`fieldValidation: Unsupported value: "${validation}": supported values: "Ignore", "Strict", "Warn"`);

  const decoded = decodeYaml(req.body.toString('utf8'));
  if (!decoded || typeof decoded !== 'object' || Array.isArray(decoded)) throw badRequest(`the object provided is unrecognized (must be of type ${t.served.kind})`);
  let config = decoded as Obj;
  if (!config.kind) throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(config)}'`);
  checkGVK(t, config);
  const meta: Obj = config.metadata && typeof config.metadata === 'object' ? config.metadata : {};
  const name = meta.name ?? t.name;

  // The typed patch: wrong types fail (a 500 on a real server, recording 39), unknown fields
  // follow fieldValidation and are pruned.
  const schema = schemaFor(t.served);
  const problems = checkAgainstSchema(config, schema);
  const typeError = problems.find((p) => p.kind === 'type');
  if (typeError) throw new ApiError(500, `failed to create typed patch object (${objectRef(t, name)}): ${typeError.path}: ${typeError.message}`, '');
  const unknown = problems.filter((p) => p.kind === 'unknown');
  const warnings: string[] = [];
  if (unknown.length) {
    if (validation === 'Strict') throw badRequest(`failed to create typed patch object (${objectRef(t, name)}): ${unknown[0]!.path}: ${unknown[0]!.message}`);
    if (validation === 'Warn') for (const u of unknown) warnings.push(`299 - ${JSON.stringify(`unknown field "${u.path.slice(1)}"`)}`);
    config = withoutPaths(config, unknown.map((u) => u.path));
  }

  if (meta.name !== undefined && meta.name !== t.name) throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${t.name})`);
  if (t.served.namespaced && meta.namespace && meta.namespace !== t.namespace) {
    throw badRequest(`the namespace of the object (${meta.namespace}) does not match the namespace on the URL (${t.namespace})`);
  }
  config = { ...config, metadata: { ...meta, name: t.name } };
  if (t.served.namespaced) config.metadata.namespace = t.namespace;
  else delete config.metadata.namespace; // a namespace on a cluster-scoped object is dropped (recording 42)
  const precondition: unknown = config.metadata.resourceVersion;
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields', 'selfLink', 'deletionTimestamp', 'deletionGracePeriodSeconds']) delete config.metadata[k];

  const apiVersion = gvString(t.served.group, t.served.version);
  const time = rfc3339(b.clock.now());
  const subresource = t.subresource === 'status' ? 'status' : undefined;
  const scope = { subresource, schema };
  const old = b.store.get(t.group, t.resource, t.namespace, t.name);
  const withWarnings = (r: RawResponse): RawResponse => (warnings.length ? { ...r, headers: { ...r.headers, warning: warnings.join(', ') } } : r);

  if (!old) {
    if (subresource) throw notFound(t.group, t.resource, t.name);
    const set = appliedFieldSet(config, scope);
    const entry: ManagedFieldsEntry = { manager, operation: 'Apply', apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1([...set].sort()) };
    return withWarnings(createObject(b, t, req, config, { managedFields: set.size ? [entry] : [], changed: true }));
  }
  if (typeof precondition === 'string' && precondition !== '' && precondition !== old.metadata.resourceVersion) {
    throw conflict(t.group, t.resource, t.name, 'the object has been modified; please apply your changes to the latest version and try again');
  }
  const result = applyConfiguration(old, config, { manager, apiVersion, time, force, scope });
  if (result.conflicts.length && !force) throw conflictError(result.conflicts);
  if (!result.objectChanged && !result.fieldsChanged) return withWarnings(respondObject(b, t, req, 200, old));
  const next: Obj = { ...result.object, metadata: { ...result.object.metadata, resourceVersion: old.metadata.resourceVersion } };
  return withWarnings(applyUpdate(b, t, req, old, next, { managedFields: result.managedFields, changed: result.fieldsChanged }));
}
