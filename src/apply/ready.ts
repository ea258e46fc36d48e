/**
 * When an applied object counts as ready (pure): CustomResourceDefinitions when Established;
 * Deployments, StatefulSets and DaemonSets as `kubectl rollout status` judges them
 * (`KC/pkg/polymorphichelpers/rollout_status.go`); anything else whose status has a Ready or
 * Available condition when that condition is True and the status describes the current generation.
 * Objects with neither (a ConfigMap) are ready as soon as they exist.
 */
import { parseGroupVersion } from '../core/gvk.js';
import type { Unstructured } from '../core/unstructured.js';
import { CRD_GROUP } from './plan.js';
import { findCondition } from '../wait/conditions.js';

export type Readiness =
  | { state: 'ready' }
  | { state: 'waiting'; message: string }
  /** Will not become ready by waiting (e.g. a CRD whose names were rejected). */
  | { state: 'failed'; message: string };

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const READY: Readiness = { state: 'ready' };
const waiting = (message: string): Readiness => ({ state: 'waiting', message });

export function readiness(obj: Unstructured): Readiness {
  const { group } = parseGroupVersion(String(obj.apiVersion ?? ''));
  const o = obj as Obj;
  const name = String(obj.metadata?.name ?? '');
  if (group === CRD_GROUP && obj.kind === 'CustomResourceDefinition') return crdReadiness(o);
  if (group === 'apps' && obj.kind === 'Deployment') return deploymentReadiness(o, name);
  if (group === 'apps' && obj.kind === 'StatefulSet') return statefulSetReadiness(o);
  if (group === 'apps' && obj.kind === 'DaemonSet') return daemonSetReadiness(o, name);
  return conditionReadiness(o);
}

/** A condition by type, matched exactly (`Ready`, not `ready`) as kubectl rollout status does. */
function condition(o: Obj, type: string): Obj | undefined {
  return findCondition(o as Unstructured, type, 'exact') as Obj | undefined;
}

function crdReadiness(o: Obj): Readiness {
  const established = condition(o, 'Established');
  if (established?.status === 'True') return READY;
  const names = condition(o, 'NamesAccepted');
  if (names?.status === 'False') return { state: 'failed', message: `names not accepted: ${names.message ?? names.reason ?? ''}`.trim() };
  return waiting(established?.message ? `not established: ${established.message}` : 'not established yet');
}

function generationObserved(o: Obj): boolean {
  const gen = o.metadata?.generation;
  const observed = o.status?.observedGeneration;
  return typeof gen !== 'number' || (typeof observed === 'number' && gen <= observed);
}

function deploymentReadiness(o: Obj, name: string): Readiness {
  if (!generationObserved(o)) return waiting('Waiting for deployment spec update to be observed...');
  const s = o.status ?? {};
  const progressing = condition(o, 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') return { state: 'failed', message: `deployment ${JSON.stringify(name)} exceeded its progress deadline` };
  const want = typeof o.spec?.replicas === 'number' ? o.spec.replicas : 1;
  const updated = num(s.updatedReplicas);
  if (updated < want) return waiting(`Waiting for deployment ${JSON.stringify(name)} rollout to finish: ${updated} out of ${want} new replicas have been updated...`);
  if (num(s.replicas) > updated) return waiting(`Waiting for deployment ${JSON.stringify(name)} rollout to finish: ${num(s.replicas) - updated} old replicas are pending termination...`);
  if (num(s.availableReplicas) < updated) return waiting(`Waiting for deployment ${JSON.stringify(name)} rollout to finish: ${num(s.availableReplicas)} of ${updated} updated replicas are available...`);
  return READY;
}

function statefulSetReadiness(o: Obj): Readiness {
  const strategy = o.spec?.updateStrategy?.type ?? 'RollingUpdate';
  if (strategy !== 'RollingUpdate') return { state: 'failed', message: 'rollout status is only available for RollingUpdate strategy type' };
  const s = o.status ?? {};
  if (!num(s.observedGeneration) || !generationObserved(o)) return waiting('Waiting for statefulset spec update to be observed...');
  const want = typeof o.spec?.replicas === 'number' ? o.spec.replicas : 1;
  if (num(s.readyReplicas) < want) return waiting(`Waiting for ${want - num(s.readyReplicas)} pods to be ready...`);
  const partition = o.spec?.updateStrategy?.rollingUpdate?.partition;
  if (typeof partition === 'number') {
    if (num(s.updatedReplicas) < want - partition) {
      return waiting(`Waiting for partitioned roll out to finish: ${num(s.updatedReplicas)} out of ${want - partition} new pods have been updated...`);
    }
    return READY;
  }
  if (s.updateRevision !== s.currentRevision) {
    return waiting(`waiting for statefulset rolling update to complete ${num(s.updatedReplicas)} pods at revision ${s.updateRevision}...`);
  }
  return READY;
}

function daemonSetReadiness(o: Obj, name: string): Readiness {
  const strategy = o.spec?.updateStrategy?.type ?? 'RollingUpdate';
  if (strategy !== 'RollingUpdate') return { state: 'failed', message: 'rollout status is only available for RollingUpdate strategy type' };
  if (!generationObserved(o)) return waiting('Waiting for daemon set spec update to be observed...');
  const s = o.status ?? {};
  const desired = num(s.desiredNumberScheduled);
  if (num(s.updatedNumberScheduled) < desired) {
    return waiting(`Waiting for daemon set ${JSON.stringify(name)} rollout to finish: ${num(s.updatedNumberScheduled)} out of ${desired} new pods have been updated...`);
  }
  if (num(s.numberAvailable) < desired) {
    return waiting(`Waiting for daemon set ${JSON.stringify(name)} rollout to finish: ${num(s.numberAvailable)} of ${desired} updated pods are available...`);
  }
  return READY;
}

function conditionReadiness(o: Obj): Readiness {
  const cond = condition(o, 'Ready') ?? condition(o, 'Available');
  if (!cond) return READY;
  // Here a status without observedGeneration is taken as current (many controllers set none).
  if (typeof o.status?.observedGeneration === 'number' && !generationObserved(o)) return waiting('status does not describe the current generation yet');
  if (typeof cond.observedGeneration === 'number' && typeof o.metadata?.generation === 'number' && cond.observedGeneration < o.metadata.generation) {
    return waiting(`condition ${cond.type} does not describe the current generation yet`);
  }
  if (cond.status === 'True') return READY;
  return waiting(`condition ${cond.type} is ${cond.status}${cond.reason ? ` (${cond.reason}${cond.message ? `: ${cond.message}` : ''})` : ''}`);
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}
