/** DELETE of one object (with preconditions and terminating answers) and of a collection. */
import type { Obj, RawResponse } from './types.js';
import type { Backend, ResourceRequest, Target } from './objects.js';
import { dryRun, respondObject } from './objects.js';
import { ApiError, badRequest, conflict, json, notFound } from './status.js';
import { rfc3339 } from './meta.js';
import { negotiate, render } from './lists.js';
import { parseLabelSelector, matchLabels, parseFieldSelector, fieldMatcher } from './selectors.js';

function deleteOptions(req: ResourceRequest): Obj {
  if (!req.body.length) return {};
  try {
    const v = JSON.parse(req.body.toString('utf8'));
    return v && typeof v === 'object' ? v : {};
  } catch (e) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
}

export function deleteObject(b: Backend, t: Target, req: ResourceRequest): RawResponse {
  const opts = deleteOptions(req);
  const old = b.store.get(t.group, t.resource, t.namespace, t.name);
  if (!old) throw notFound(t.group, t.resource, t.name);
  const pre = opts.preconditions ?? {};
  if (pre.uid && pre.uid !== old.metadata.uid) {
    throw conflict(t.group, t.resource, t.name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid}`);
  }
  if (pre.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) {
    throw conflict(t.group, t.resource, t.name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`);
  }
  const now = rfc3339(b.clock.now());
  const isDry = dryRun(req, opts);
  const id = `${t.group}/${t.resource}`;
  // Objects that go through a terminating phase (namespaces, CRDs, pods) are returned as such; they
  // are removed at once here (no controllers to wait for).
  let answer: Obj | undefined;
  if (id === '/namespaces') {
    answer = { ...old, metadata: { ...old.metadata, deletionTimestamp: now }, status: { ...(old.status ?? {}), phase: 'Terminating' } };
  } else if (id === 'apiextensions.k8s.io/customresourcedefinitions') {
    answer = b.crds.terminatingView(old, now);
  } else if (id === '/pods') {
    answer = { ...old, metadata: { ...old.metadata, deletionTimestamp: now, deletionGracePeriodSeconds: Number(req.query.get('gracePeriodSeconds') ?? opts.gracePeriodSeconds ?? old.spec?.terminationGracePeriodSeconds ?? 30) } };
  }
  // An object with finalizers stays, terminating, until an update removes the last one (objects.ts applyUpdate).
  const finalizers = Array.isArray(old.metadata.finalizers) && old.metadata.finalizers.length > 0;
  if (finalizers && !answer) {
    const terminating = { ...old, metadata: { ...old.metadata, deletionTimestamp: old.metadata.deletionTimestamp ?? now, deletionGracePeriodSeconds: 0 } };
    if (isDry || old.metadata.deletionTimestamp) return respondObject(b, t, req, 200, isDry ? terminating : old);
    return respondObject(b, t, req, 200, b.store.update(t.group, t.resource, terminating));
  }
  if (!isDry) {
    if (id === '/namespaces') b.store.deleteNamespaceContents(t.name);
    const gone = b.store.delete(t.group, t.resource, t.namespace, t.name)!;
    if (id === 'apiextensions.k8s.io/customresourcedefinitions') b.crds.deleted(old);
    if (answer) answer.metadata.resourceVersion = gone.metadata.resourceVersion;
  }
  if (answer) return respondObject(b, t, req, 200, answer);
  return json(200, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: t.name, ...(t.group ? { group: t.group } : {}), kind: t.resource, uid: old.metadata.uid },
  });
}


/** DELETE on a collection: removes every selected object, answers the list of what was deleted. */
export function deleteCollection(b: Backend, t: Target, req: ResourceRequest): RawResponse {
  if (t.served.namespaced && !t.namespace) throw new ApiError(405, 'the server does not allow this method on the requested resource', 'MethodNotAllowed');
  const labelReqs = parseLabelSelector(req.query.get('labelSelector') ?? '');
  const fieldReqs = parseFieldSelector(req.query.get('fieldSelector') ?? '');
  const fieldOk = fieldReqs.length ? fieldMatcher(fieldReqs, { group: t.group, resource: t.resource, crd: t.served.crd, version: t.served.version }) : undefined;
  const victims = b.store.list(t.group, t.resource, {
    namespace: t.namespace || undefined,
    filter: (o) => matchLabels(labelReqs, o.metadata?.labels) && (!fieldOk || fieldOk(o)),
  }).items;
  const dry = req.query.getAll('dryRun').includes('All');
  const deleted: Obj[] = [];
  for (const o of victims) {
    if (dry) deleted.push(o);
    else {
      if (t.group === '' && t.resource === 'namespaces') b.store.deleteNamespaceContents(o.metadata.name);
      const gone = b.store.delete(t.group, t.resource, o.metadata.namespace ?? '', o.metadata.name);
      if (gone) deleted.push(gone);
      if (t.group === 'apiextensions.k8s.io' && t.resource === 'customresourcedefinitions') b.crds.deleted(o);
    }
  }
  return render(b, t, req, 200, negotiate(req.headers.accept), deleted, { resourceVersion: String(b.store.resourceVersion) }, false);
}
