/**
 * What kube-apiserver's strategies and defaulting add on create, for the built-ins kdyn's tests
 * and demo touch (namespaces, pods, services, deployments, secrets, CRDs). Applied after the
 * managed fields of the request are computed, so defaulted fields belong to no manager.
 */
import type { Obj, ServedResource } from './types.js';

export interface DefaultingContext {
  /** Allocates a fresh ClusterIP. */
  nextClusterIP(): string;
}

function defaultContainer(c: Obj): Obj {
  const image = String(c.image ?? '');
  const tagged = /:[^/]+$/.test(image) && !image.endsWith(':latest');
  return {
    ...c,
    ...(Array.isArray(c.ports) ? { ports: c.ports.map((p: Obj) => ({ ...p, protocol: p.protocol ?? 'TCP' })) } : {}),
    resources: c.resources ?? {},
    terminationMessagePath: c.terminationMessagePath ?? '/dev/termination-log',
    terminationMessagePolicy: c.terminationMessagePolicy ?? 'File',
    imagePullPolicy: c.imagePullPolicy ?? (tagged || image.includes('@') ? 'IfNotPresent' : 'Always'),
  };
}

function defaultPodSpec(spec: Obj): Obj {
  return {
    ...spec,
    containers: (spec.containers ?? []).map(defaultContainer),
    restartPolicy: spec.restartPolicy ?? 'Always',
    terminationGracePeriodSeconds: spec.terminationGracePeriodSeconds ?? 30,
    dnsPolicy: spec.dnsPolicy ?? 'ClusterFirst',
    securityContext: spec.securityContext ?? {},
    schedulerName: spec.schedulerName ?? 'default-scheduler',
  };
}

/** Defaults and server-set fields for a new object (mutates and returns `o`). */
export function applyCreateDefaults(r: ServedResource, o: Obj, ctx: DefaultingContext): Obj {
  const id = `${r.group}/${r.resource}`;
  switch (id) {
    case '/namespaces':
      o.spec = { finalizers: ['kubernetes'], ...(o.spec ?? {}) };
      o.status = { phase: 'Active' };
      break;
    case '/secrets':
      o.type ??= 'Opaque';
      break;
    case '/pods':
      o.spec = defaultPodSpec(o.spec ?? {});
      if (!o.spec.serviceAccountName) o.spec.serviceAccountName = 'default';
      o.status = { phase: 'Pending', qosClass: 'BestEffort' };
      break;
    case '/services': {
      const spec = { ...(o.spec ?? {}) };
      spec.type ??= 'ClusterIP';
      if (spec.type !== 'ExternalName') {
        spec.clusterIP ??= ctx.nextClusterIP();
        spec.clusterIPs ??= [spec.clusterIP];
        spec.ipFamilies ??= ['IPv4'];
        spec.ipFamilyPolicy ??= 'SingleStack';
        spec.internalTrafficPolicy ??= 'Cluster';
      }
      spec.sessionAffinity ??= 'None';
      spec.ports = (spec.ports ?? []).map((p: Obj) => ({ ...p, protocol: p.protocol ?? 'TCP', targetPort: p.targetPort ?? p.port }));
      o.spec = spec;
      o.status = { loadBalancer: {} };
      break;
    }
    case 'apps/deployments': {
      const spec = { ...(o.spec ?? {}) };
      spec.replicas ??= 1;
      spec.revisionHistoryLimit ??= 10;
      spec.progressDeadlineSeconds ??= 600;
      spec.strategy ??= { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } };
      if (spec.template) spec.template = { ...spec.template, spec: defaultPodSpec(spec.template.spec ?? {}) };
      o.spec = spec;
      o.status = {};
      break;
    }
    case 'apiextensions.k8s.io/customresourcedefinitions': {
      const spec = { ...(o.spec ?? {}) };
      const names = { ...(spec.names ?? {}) };
      names.singular ??= String(names.kind ?? '').toLowerCase();
      names.listKind ??= `${names.kind}List`;
      spec.names = names;
      spec.conversion ??= { strategy: 'None' };
      o.spec = spec;
      const storage = (spec.versions ?? []).find((v: Obj) => v.storage)?.name;
      o.status = { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: storage ? [storage] : [] };
      break;
    }
  }
  return o;
}
