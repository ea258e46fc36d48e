/**
 * CRDs for the real-server tests, and their installation through the admin's plain HTTP client
 * (not kdyn: set-up must not depend on the code under test).
 */
import type { RealEnv } from './real-helpers.js';

/** A CRD for `Kind` in `group` (plural `kind`s), a schema with spec.size (integer) and spec.color, two printer columns. */
export function widgetsCrd(group: string, kind = 'Widget', shortName = 'wd'): Record<string, unknown> {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, shortNames: [shortName], categories: ['all'] },
      versions: [{
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer' },
                  color: { type: 'string' },
                  parts: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, count: { type: 'integer' } } } },
                },
              },
            },
          },
        },
        additionalPrinterColumns: [
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Color', type: 'string', jsonPath: '.spec.color' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      }],
    },
  };
}

export const WIDGETS_CRD = widgetsCrd('real.kdyn.dev');

/** Creates the CRD and waits until it is Established and its group-version is discovered. */
export async function installCrd(env: RealEnv, crd: Record<string, unknown>): Promise<void> {
  const spec = crd.spec as { group: string; versions: Array<{ name: string }>; names: { plural: string } };
  await env.create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  const path = `/apis/${spec.group}/${spec.versions[0]!.name}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await env.cluster.request('GET', path);
    if (res.status === 200 && res.body.includes(`"name":"${spec.names.plural}"`)) return;
    if (Date.now() > deadline) throw new Error(`CRD ${spec.names.plural}.${spec.group}: not served after 60 s (${res.status})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
