/** A minimal CustomResourceDefinition (schema-less: preserve-unknown-fields), for seeds and tests. */
import type { Obj } from './types.js';

export interface SimpleCrdOptions {
  group: string;
  plural: string;
  kind: string;
  singular?: string; // default: kind lower-cased
  shortNames?: string[];
  scope?: 'Namespaced' | 'Cluster';
  /** Served versions, the first one the storage version (default ['v1']). */
  versions?: string[];
}

export function simpleCrd(o: SimpleCrdOptions): Obj {
  const versions = o.versions ?? ['v1'];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${o.plural}.${o.group}` },
    spec: {
      group: o.group,
      names: { plural: o.plural, singular: o.singular ?? o.kind.toLowerCase(), kind: o.kind, listKind: `${o.kind}List`, ...(o.shortNames?.length ? { shortNames: o.shortNames } : {}) },
      scope: o.scope ?? 'Namespaced',
      versions: versions.map((name, i) => ({
        name,
        served: true,
        storage: i === 0,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      })),
      conversion: { strategy: 'None' },
    },
  };
}
