/** The `scale` subresource (autoscaling/v1 Scale) for deployments-like built-ins and CRDs with a scale subresource. */
import type { Obj, RawResponse } from './types.js';
import type { Backend, ResourceRequest, Target } from './objects.js';
import { applyUpdate, respondObject } from './objects.js';
import { badRequest, conflict, json, notFound } from './status.js';
import { jsonPathFind } from './jsonpath.js';

function paths(t: Target): { spec: string; status: string; selector?: string } {
  if (t.served.crd) {
    const v = (t.served.crd.spec?.versions ?? []).find((x: Obj) => x.name === t.served.version);
    const s = v?.subresources?.scale ?? {};
    return { spec: s.specReplicasPath ?? '.spec.replicas', status: s.statusReplicasPath ?? '.status.replicas', selector: s.labelSelectorPath };
  }
  return { spec: '.spec.replicas', status: '.status.replicas' };
}

function selectorOf(o: Obj, t: Target, p: ReturnType<typeof paths>): string | undefined {
  if (p.selector) {
    const v = jsonPathFind(o, p.selector)[0];
    return typeof v === 'string' ? v : undefined;
  }
  const ml: Obj | undefined = o.spec?.selector?.matchLabels;
  if (!t.served.crd && ml) return Object.keys(ml).sort().map((k) => `${k}=${ml[k]}`).join(',');
  return undefined;
}

function scaleOf(o: Obj, t: Target): Obj {
  const p = paths(t);
  const spec = jsonPathFind(o, p.spec)[0];
  const status = jsonPathFind(o, p.status)[0];
  const m = o.metadata;
  const scale: Obj = {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: typeof spec === 'number' ? { replicas: spec } : {},
    status: { replicas: typeof status === 'number' ? status : 0 },
  };
  const sel = selectorOf(o, t, p);
  if (sel) scale.status.selector = sel;
  return scale;
}

export function getScale(b: Backend, t: Target): RawResponse {
  const o = b.store.get(t.group, t.resource, t.namespace, t.name);
  if (!o) throw notFound(t.group, t.resource, t.name);
  return json(200, scaleOf(o, t));
}

function setPath(o: Obj, path: string, value: unknown): void {
  const parts = path.replace(/^\./, '').split('.');
  let cur = o;
  for (const p of parts.slice(0, -1)) cur = cur[p] = { ...(cur[p] ?? {}) };
  cur[parts[parts.length - 1]!] = value;
}

export function updateScale(b: Backend, t: Target, req: ResourceRequest, body: Obj): RawResponse {
  const old = b.store.get(t.group, t.resource, t.namespace, t.name);
  if (!old) throw notFound(t.group, t.resource, t.name);
  const replicas = body.spec?.replicas;
  if (typeof replicas !== 'number' || replicas < 0 || !Number.isInteger(replicas)) throw badRequest('spec.replicas: Invalid value: must be a non-negative integer');
  const rv = body.metadata?.resourceVersion;
  if (rv && rv !== old.metadata.resourceVersion) throw conflict(t.group, t.resource, t.name, 'the object has been modified; please apply your changes to the latest version and try again');
  const next = structuredClone(old);
  setPath(next, paths(t).spec, replicas);
  const mainTarget: Target = { ...t, subresource: '' };
  const res = applyUpdate(b, mainTarget, req, old, next);
  if (res.status >= 300) return res;
  const now = b.store.get(t.group, t.resource, t.namespace, t.name)!;
  void respondObject;
  return json(200, scaleOf(now, t));
}
