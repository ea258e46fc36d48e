/**
 * Start-up state: the namespaces every cluster has, the demo data set, N extra CRD groups and
 * N ConfigMaps. Written straight into storage (no HTTP), so large seeds start fast.
 */
import { randomUUID } from 'node:crypto';
import type { Obj, ServedResource } from './types.js';
import type { Backend } from './objects.js';
import { applyCreateDefaults } from './defaults.js';
import { normalizeForStorage, rfc3339, tracksGeneration } from './meta.js';
import { updateManagedFields } from './managed-fields.js';
import { simpleCrd } from './crds.js';
import { schemaFor } from './schema.js';

export interface SeedOptions {
  seed?: 'empty' | 'demo';
  extraGroups?: number;
  configmaps?: number;
  namespace?: string;
}

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
export const DEMO_GROUP = 'demo.kdyn.dev';

function resourceFor(b: Backend, group: string, version: string, resource: string): ServedResource {
  const r = b.catalog.lookup(group, version, resource);
  if (r) return r;
  // Not served (yet): enough shape for defaulting and storage order.
  return { group, version, resource, singular: resource, kind: '', namespaced: true, verbs: [], shortNames: [], categories: [], subresources: [] };
}

/** Stores an object as if created through the API by `manager`; returns what was stored. */
export function seedObject(b: Backend, group: string, version: string, resource: string, obj: Obj, manager = 'kdyn-seed'): Obj {
  const r = resourceFor(b, group, version, resource);
  const o: Obj = structuredClone(obj);
  o.apiVersion ??= group ? `${group}/${version}` : version;
  if (r.kind) o.kind ??= r.kind;
  const meta = o.metadata;
  if (group === '' && resource === 'namespaces') meta.labels = { ...(meta.labels ?? {}), 'kubernetes.io/metadata.name': meta.name };
  meta.uid = randomUUID();
  meta.resourceVersion = '';
  meta.creationTimestamp = rfc3339(b.clock.now());
  if (tracksGeneration(r) || group === DEMO_GROUP || group.endsWith('.extra.kdyn.dev')) meta.generation = 1;
  const status = o.status;
  delete o.status;
  const mf = updateManagedFields(undefined, o, { manager, apiVersion: o.apiVersion, time: meta.creationTimestamp, custom: !!r.crd, schema: schemaFor(r) });
  if (mf.length) meta.managedFields = mf;
  applyCreateDefaults(r, o, b);
  if (status !== undefined) o.status = { ...(o.status ?? {}), ...status };
  return b.store.create(group, resource, normalizeForStorage(o, r));
}

/** Stores a CRD and establishes it at once. */
export function seedCrd(b: Backend, crd: Obj, manager = 'kdyn-seed'): Obj {
  seedObject(b, 'apiextensions.k8s.io', 'v1', 'customresourcedefinitions', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', ...crd }, manager);
  return b.crds.establish(crd.metadata.name)!;
}

export function rocketCrd(): Obj {
  const schema = {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            stage: { type: 'string', description: 'Current mission stage.' },
            engines: { type: 'integer', minimum: 1 },
            launchPad: { type: 'string', description: 'Name of the LaunchPad the rocket flies from.' },
            payload: { type: 'string' },
          },
        },
        status: { type: 'object', properties: { fuel: { type: 'integer' }, ready: { type: 'boolean' } } },
      },
    },
  };
  return {
    metadata: { name: `rockets.${DEMO_GROUP}` },
    spec: {
      group: DEMO_GROUP,
      names: { plural: 'rockets', singular: 'rocket', kind: 'Rocket', listKind: 'RocketList', shortNames: ['rkt'], categories: ['fleet'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Stage', type: 'string', jsonPath: '.spec.stage' },
            { name: 'Engines', type: 'integer', jsonPath: '.spec.engines' },
            { name: 'Pad', type: 'string', jsonPath: '.spec.launchPad', priority: 1, description: 'The LaunchPad this rocket flies from' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
        {
          name: 'v1alpha1',
          served: true,
          storage: false,
          schema,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Stage', type: 'string', jsonPath: '.spec.stage' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
      conversion: { strategy: 'None' },
    },
  };
}

export function launchPadCrd(): Obj {
  return {
    metadata: { name: `launchpads.${DEMO_GROUP}` },
    spec: {
      group: DEMO_GROUP,
      names: { plural: 'launchpads', singular: 'launchpad', kind: 'LaunchPad', listKind: 'LaunchPadList', shortNames: ['lp'] },
      scope: 'Cluster',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { location: { type: 'string' }, maxThrust: { type: 'integer' } } } },
            },
          },
          additionalPrinterColumns: [
            { name: 'Location', type: 'string', jsonPath: '.spec.location' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
      conversion: { strategy: 'None' },
    },
  };
}

function extraCrd(i: number): Obj {
  return simpleCrd({ group: `g${String(i).padStart(4, '0')}.extra.kdyn.dev`, plural: 'things', kind: 'Thing' });
}

function seedDemo(b: Backend): void {
  for (const ns of ['demo', 'team-a', 'team-b']) seedObject(b, '', 'v1', 'namespaces', { metadata: { name: ns } }, 'kubectl-create');
  seedCrd(b, rocketCrd(), 'kubectl-create');
  seedCrd(b, launchPadCrd(), 'kubectl-create');
  const pad = (name: string, location: string) => ({ apiVersion: `${DEMO_GROUP}/v1`, kind: 'LaunchPad', metadata: { name }, spec: { location, maxThrust: 9000 } });
  seedObject(b, DEMO_GROUP, 'v1', 'launchpads', pad('lc-39a', 'Florida'), 'kubectl-create');
  seedObject(b, DEMO_GROUP, 'v1', 'launchpads', pad('slc-4e', 'California'), 'kubectl-create');
  const rocket = (ns: string, name: string, stage: string, engines: number, launchPad: string, labels: Obj) => ({
    apiVersion: `${DEMO_GROUP}/v1`,
    kind: 'Rocket',
    metadata: { name, namespace: ns, labels },
    spec: { stage, engines, launchPad, payload: 'satellite' },
    status: { fuel: 80, ready: stage !== 'assembly' },
  });
  seedObject(b, DEMO_GROUP, 'v1', 'rockets', rocket('demo', 'falcon', 'orbit', 9, 'lc-39a', { app: 'falcon', tier: 'heavy' }), 'kubectl-create');
  seedObject(b, DEMO_GROUP, 'v1', 'rockets', rocket('demo', 'electron', 'assembly', 1, 'slc-4e', { app: 'electron', tier: 'light' }), 'kubectl-create');
  seedObject(b, DEMO_GROUP, 'v1', 'rockets', rocket('team-a', 'starship', 'testing', 33, 'lc-39a', { app: 'starship', tier: 'heavy' }), 'kubectl-create');
  seedObject(b, '', 'v1', 'configmaps', { metadata: { name: 'app-config', namespace: 'demo', labels: { app: 'web' } }, data: { 'log.level': 'info', 'feature.flags': 'a,b' } }, 'kubectl-create');
  seedObject(b, '', 'v1', 'configmaps', { metadata: { name: 'team-settings', namespace: 'team-a' }, data: { owner: 'team-a' } }, 'kubectl-create');
  seedObject(b, '', 'v1', 'secrets', { metadata: { name: 'api-credentials', namespace: 'demo' }, type: 'Opaque', data: { username: Buffer.from('demo').toString('base64'), password: Buffer.from('s3cr3t').toString('base64') } }, 'kubectl-create');
  const podSpec = { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80, protocol: 'TCP' }] }] };
  seedObject(b, 'apps', 'v1', 'deployments', {
    metadata: { name: 'web', namespace: 'demo', labels: { app: 'web' } },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: podSpec } },
    status: { observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
  }, 'kubectl-create');
  seedObject(b, '', 'v1', 'services', { metadata: { name: 'web', namespace: 'demo', labels: { app: 'web' } }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 80 }] } }, 'kubectl-create');
  seedObject(b, '', 'v1', 'pods', {
    metadata: { name: 'web-7d4b9c8f6d-x2x9q', namespace: 'demo', labels: { app: 'web' } },
    spec: { ...podSpec, nodeName: 'local-node' },
    status: {
      phase: 'Running',
      podIP: '10.244.0.12',
      hostIP: '192.168.0.10',
      containerStatuses: [{ name: 'web', ready: true, restartCount: 0, image: 'nginx:1.27', imageID: '', started: true, state: { running: { startedAt: rfc3339(b.clock.now()) } } }],
    },
  }, 'kubectl-create');
}

export function seedServer(b: Backend, o: SeedOptions): void {
  for (const ns of SYSTEM_NAMESPACES) seedObject(b, '', 'v1', 'namespaces', { metadata: { name: ns } }, 'kube-apiserver');
  if (o.seed === 'demo') seedDemo(b);
  for (let i = 1; i <= (o.extraGroups ?? 0); i++) seedCrd(b, extraCrd(i));
  const n = o.configmaps ?? 0;
  if (n > 0) {
    const ns = o.namespace ?? 'bench';
    if (!b.store.get('', 'namespaces', '', ns)) seedObject(b, '', 'v1', 'namespaces', { metadata: { name: ns } });
    const width = Math.max(5, String(n).length);
    let managedFields: Obj[] | undefined;
    let second = NaN;
    let time = '';
    for (let i = 0; i < n; i++) {
      const obj = {
        metadata: { name: `cm-${String(i).padStart(width, '0')}`, namespace: ns, labels: { app: 'bench', shard: String(i % 10) } },
        data: { payload: `value-${i}-`.padEnd(96, 'x'), index: String(i) },
      };
      if (!managedFields) {
        managedFields = seedObject(b, '', 'v1', 'configmaps', obj).metadata.managedFields;
        continue;
      }
      // Same fields every time: reuse the first object's managedFields (fast start with many objects).
      const now = b.clock.now();
      if (Math.floor(now / 1000) !== second) {
        second = Math.floor(now / 1000);
        time = rfc3339(now);
      }
      // Built in storage key order already (kind, apiVersion, metadata in struct order).
      const m = obj.metadata;
      const o: Obj = {
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { name: m.name, namespace: m.namespace, uid: randomUUID(), resourceVersion: '', creationTimestamp: time, labels: m.labels, managedFields: managedFields!.map((e) => ({ ...e, time })) },
        data: obj.data,
      };
      b.store.create('', 'configmaps', o);
    }
  }
}
