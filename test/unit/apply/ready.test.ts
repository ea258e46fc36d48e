/** Readiness rules (pure), table-driven: CRDs, rollout status of apps workloads, Ready/Available conditions. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readiness } from '../../../src/apply/ready.js';

const cases: Array<[string, Record<string, unknown>, string, RegExp?]> = [
  ['configmap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, 'ready'],
  ['crd established', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x' }, status: { conditions: [{ type: 'Established', status: 'True' }] } }, 'ready'],
  ['crd new', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x' } }, 'waiting', /not established/],
  ['crd names rejected', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x' }, status: { conditions: [{ type: 'NamesAccepted', status: 'False', message: '"x" is already in use' }] } }, 'failed', /already in use/],
  ['deploy unobserved', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', generation: 2 }, spec: { replicas: 1 }, status: { observedGeneration: 1 } }, 'waiting', /spec update to be observed/],
  ['deploy updating', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', generation: 2 }, spec: { replicas: 3 }, status: { observedGeneration: 2, updatedReplicas: 1, replicas: 3 } }, 'waiting', /1 out of 3 new replicas/],
  ['deploy old pending', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', generation: 2 }, spec: { replicas: 3 }, status: { observedGeneration: 2, updatedReplicas: 3, replicas: 4 } }, 'waiting', /1 old replicas are pending termination/],
  ['deploy unavailable', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', generation: 2 }, spec: { replicas: 3 }, status: { observedGeneration: 2, updatedReplicas: 3, replicas: 3, availableReplicas: 2 } }, 'waiting', /2 of 3 updated replicas are available/],
  ['deploy done', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', generation: 2 }, spec: { replicas: 3 }, status: { observedGeneration: 2, updatedReplicas: 3, replicas: 3, availableReplicas: 3 } }, 'ready'],
  ['deploy deadline', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', generation: 1 }, status: { observedGeneration: 1, conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }] } }, 'failed', /exceeded its progress deadline/],
  ['sts ondelete', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's' }, spec: { updateStrategy: { type: 'OnDelete' } } }, 'failed', /only available for RollingUpdate/],
  ['sts not ready', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's', generation: 1 }, spec: { replicas: 2 }, status: { observedGeneration: 1, readyReplicas: 1 } }, 'waiting', /Waiting for 1 pods to be ready/],
  ['sts revision', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's', generation: 1 }, spec: { replicas: 2 }, status: { observedGeneration: 1, readyReplicas: 2, updatedReplicas: 1, updateRevision: 'r2', currentRevision: 'r1' } }, 'waiting', /rolling update to complete 1 pods at revision r2/],
  ['sts partition done', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's', generation: 1 }, spec: { replicas: 3, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }, status: { observedGeneration: 1, readyReplicas: 3, updatedReplicas: 1 } }, 'ready'],
  ['sts done', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's', generation: 1 }, spec: { replicas: 2 }, status: { observedGeneration: 1, readyReplicas: 2, updateRevision: 'r1', currentRevision: 'r1' } }, 'ready'],
  ['ds updating', { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds', generation: 1 }, status: { observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 2 } }, 'waiting', /2 out of 3 new pods have been updated/],
  ['ds done', { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'ds', generation: 1 }, status: { observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3 } }, 'ready'],
  ['cr ready', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', generation: 2 }, status: { observedGeneration: 2, conditions: [{ type: 'Ready', status: 'True' }] } }, 'ready'],
  ['cr stale status', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', generation: 3 }, status: { observedGeneration: 2, conditions: [{ type: 'Ready', status: 'True' }] } }, 'waiting', /current generation/],
  ['cr stale condition', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', generation: 3 }, status: { conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2 }] } }, 'waiting', /condition Ready does not describe/],
  ['cr available false', { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, status: { conditions: [{ type: 'Available', status: 'False', reason: 'Starting' }] } }, 'waiting', /condition Available is False \(Starting\)/],
];

for (const [name, obj, state, msg] of cases) {
  test(`readiness: ${name}`, () => {
    const r = readiness(obj);
    assert.equal(r.state, state);
    if (msg) assert.match((r as { message: string }).message, msg);
  });
}
