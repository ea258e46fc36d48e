/**
 * A small stand-in Catalog (a few built-ins plus established CRDs, no discovery documents), used by
 * the pipeline's own tests so they do not depend on the full recorded catalog (pass it as
 * `startServer({ catalog: createMiniCatalog() })`).
 */
import type { Catalog, Obj, ServedResource } from './types.js';

const RW = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function builtin(group: string, version: string, resource: string, kind: string, namespaced: boolean, shortNames: string[] = [], sub: string[] = []): ServedResource {
  return {
    group,
    version,
    resource,
    singular: kind.toLowerCase(),
    kind,
    namespaced,
    verbs: RW,
    shortNames,
    categories: [],
    subresources: sub.map((name) => ({ name, verbs: ['get', 'patch', 'update'] })),
  };
}

export const MINI_BUILTINS: ServedResource[] = [
  builtin('', 'v1', 'namespaces', 'Namespace', false, ['ns'], ['status']),
  builtin('', 'v1', 'configmaps', 'ConfigMap', true, ['cm']),
  builtin('', 'v1', 'secrets', 'Secret', true),
  builtin('', 'v1', 'pods', 'Pod', true, ['po'], ['status']),
  builtin('', 'v1', 'services', 'Service', true, ['svc'], ['status']),
  builtin('apps', 'v1', 'deployments', 'Deployment', true, ['deploy'], ['status', 'scale']),
  builtin('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false, ['crd', 'crds'], ['status']),
];

export function crdServedResources(crd: Obj): ServedResource[] {
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  return (spec.versions ?? [])
    .filter((v: Obj) => v.served)
    .map((v: Obj) => ({
      group: spec.group,
      version: v.name,
      resource: names.plural,
      singular: names.singular ?? String(names.kind).toLowerCase(),
      kind: names.kind,
      namespaced: spec.scope === 'Namespaced',
      verbs: RW,
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      subresources: [
        ...(v.subresources?.status ? [{ name: 'status', verbs: ['get', 'patch', 'update'] }] : []),
        ...(v.subresources?.scale ? [{ name: 'scale', verbs: ['get', 'patch', 'update'] }] : []),
      ],
      crd,
    }));
}

export function createMiniCatalog(): Catalog {
  let crds = new Map<string, ServedResource[]>();
  const all = (): ServedResource[] => [...MINI_BUILTINS, ...[...crds.values()].flat()];
  return {
    lookup: (g, v, r) => all().find((x) => x.group === g && x.version === v && x.resource === r),
    versionsOf: (g, r) => all().filter((x) => x.group === g && x.resource === r),
    byKind: (g, v, k) => all().find((x) => x.group === g && x.version === v && x.kind === k),
    crdChanged(crd, deleted) {
      crds = new Map(crds);
      if (deleted) crds.delete(crd.metadata.name);
      else crds.set(crd.metadata.name, crdServedResources(crd));
    },
    serveDiscovery: () => undefined,
  };
}
