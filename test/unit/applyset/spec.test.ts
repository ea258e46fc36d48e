/**
 * The pure parts of ApplySets (src/applyset/spec.ts, src/applyset/prune.ts): IDs checked against
 * KEP-3659's example and values kubectl v1.32 wrote, the annotations in kubectl's format, the
 * `--applyset` grammar, the checks before a set is mutated, and which members are pruned.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApplySetError,
  applySetId,
  checkParent,
  groupKindsAnnotation,
  labelMember,
  namespacesAnnotation,
  parentPatch,
  parseGroupKind,
  parseParentRef,
  recordedSet,
  toolingName,
} from '../../../src/applyset/spec.js';
import type { Unstructured } from '../../../src/core/unstructured.js';
import { conflictLine, memberKey, memberRef, pruneSet, type Member } from '../../../src/applyset/prune.js';

test('applySetId: the KEP example and IDs kubectl v1.32 wrote (ConfigMap and Secret parents)', () => {
  assert.equal(applySetId({ name: 'myset', namespace: 'as-test', kind: 'ConfigMap', group: '' }), 'applyset-_TxcTyPh7XGlwSFAqtQJP0gIGHmke8gcreeAKB3tg4A-v1');
  // `KUBECTL_APPLYSET=true kubectl apply --server-side --prune --applyset=myset -n as-test` (a Secret parent).
  assert.equal(applySetId({ name: 'myset', namespace: 'as-test', kind: 'Secret', group: '' }), 'applyset-dmwxX-VjMgAZET964wtIqV6imNnD-fXS7tzdX8CQ2_A-v1');
  // base64url without padding: no '+', '/' or '='.
  const id = applySetId({ name: 'x', namespace: '', kind: 'ApplySet', group: 'example.com' });
  assert.match(id, /^applyset-[A-Za-z0-9_-]{43}-v1$/);
});

test('contains-group-kinds: unique, sorted as Go sorts strings (bytes), Kind.group for non-core kinds', () => {
  assert.equal(groupKindsAnnotation(['Deployment.apps', 'ConfigMap', 'ConfigMap', 'CronTab.stable.example.com', 'Secret', 'Namespace']), 'ConfigMap,CronTab.stable.example.com,Deployment.apps,Namespace,Secret');
  assert.equal(groupKindsAnnotation(['a.x', 'B.y']), 'B.y,a.x');
  assert.equal(groupKindsAnnotation([]), '');
  assert.deepEqual(parseGroupKind('CronTab.stable.example.com'), { kind: 'CronTab', group: 'stable.example.com' });
  assert.deepEqual(parseGroupKind('ConfigMap'), { kind: 'ConfigMap', group: '' });
});

test("additional-namespaces: every namespace but the parent's own, sorted; empty when there are none", () => {
  assert.equal(namespacesAnnotation(['b', 'as-test', 'a', 'b', ''], 'as-test'), 'a,b');
  assert.equal(namespacesAnnotation(['as-test'], 'as-test'), '');
  // A cluster-scoped parent records every member namespace.
  assert.equal(namespacesAnnotation(['x', 'y'], ''), 'x,y');
});

test('parseParentRef: [RESOURCE][.GROUP]/NAME, a bare name is a Secret, a blank name is refused', () => {
  assert.deepEqual(parseParentRef('configmap/app'), { resource: 'configmap', name: 'app' });
  assert.deepEqual(parseParentRef('applysets.example.com/app'), { resource: 'applysets.example.com', name: 'app' });
  assert.deepEqual(parseParentRef('app'), { resource: 'secrets', name: 'app' });
  assert.throws(() => parseParentRef('configmap/'), { message: 'invalid parent reference "configmap/": name cannot be blank' });
});

test('recordedSet: the group-kinds as written, the namespaces with the parent’s own; no annotation is refused', () => {
  assert.deepEqual(recordedSet({ 'applyset.kubernetes.io/contains-group-kinds': 'ConfigMap,Deployment.apps', 'applyset.kubernetes.io/additional-namespaces': 'b,a' }, 'p'), { groupKinds: ['ConfigMap', 'Deployment.apps'], namespaces: ['a', 'b', 'p'] });
  assert.deepEqual(recordedSet({ 'applyset.kubernetes.io/contains-group-kinds': '' }, ''), { groupKinds: [], namespaces: [] });
  assert.deepEqual(recordedSet({ 'applyset.kubernetes.io/contains-group-resources': 'configmaps,deployments.apps' }, 'p').groupResources, ['configmaps', 'deployments.apps']);
  assert.throws(() => recordedSet({}, 'p'), ApplySetError);
});

const ID = 'applyset-_TxcTyPh7XGlwSFAqtQJP0gIGHmke8gcreeAKB3tg4A-v1';
const parent = (tooling: string | undefined, id: string | undefined | null = ID): Unstructured => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'myset', namespace: 'as-test', labels: typeof id === 'string' ? { 'applyset.kubernetes.io/id': id } : ({} as Record<string, string>), annotations: tooling ? { 'applyset.kubernetes.io/tooling': tooling } : ({} as Record<string, string>) },
});

test("checkParent: ours; another tool's refused naming both tools (kubectl's words); kubectl's taken over when asked, no other tool's; a wrong ID never passes", () => {
  const o = { ref: 'configmaps./myset', id: ID, tool: 'kdyn', takeover: false };
  assert.deepEqual(checkParent(parent('kdyn/0.1.0'), o), { kind: 'ours' });
  assert.throws(() => checkParent(parent('kubectl/v1.32.5'), o), { message: /^ApplySet parent object "configmaps.\/myset" already exists and is managed by tooling "kubectl" instead of "kdyn" \(to move it to kdyn, apply again with --applyset-takeover/ });
  assert.deepEqual(checkParent(parent('kubectl/v1.32.5'), { ...o, takeover: true }), { kind: 'takeover', from: 'kubectl/v1.32.5' });
  assert.throws(() => checkParent(parent(undefined), o), { message: 'ApplySet parent object "configmaps./myset" already exists and is missing required annotation "applyset.kubernetes.io/tooling"' });
  // --applyset-takeover takes over kubectl's sets only: any other tool's (or none) is refused, naming the tooling found.
  const onlyKubectl = '--applyset-takeover takes over only sets kubectl manages (tooling "kubectl/<version>")';
  assert.throws(() => checkParent(parent('helm/v3'), { ...o, takeover: true }), { message: `ApplySet parent object "configmaps./myset" already exists and is managed by tooling "helm/v3": ${onlyKubectl}` });
  assert.throws(() => checkParent(parent('helm/v3'), o), { message: 'ApplySet parent object "configmaps./myset" already exists and is managed by tooling "helm" instead of "kdyn"' });
  assert.throws(() => checkParent(parent('example.com/kubectl/v1'), { ...o, takeover: true }), { message: /managed by tooling "example.com\/kubectl\/v1": --applyset-takeover takes over only/ });
  assert.throws(() => checkParent(parent('kubectl'), { ...o, takeover: true }), { message: /managed by tooling "kubectl": --applyset-takeover takes over only/ }, 'no version: not what kubectl writes');
  assert.throws(() => checkParent(parent(undefined), { ...o, takeover: true }), { message: `ApplySet parent object "configmaps./myset" already exists and is missing required annotation "applyset.kubernetes.io/tooling": ${onlyKubectl}` });
  // Reading (kdyn applyset) mutates nothing: any tool's set, but still only with the right ID.
  assert.deepEqual(checkParent(parent('helm/v3'), { ...o, readOnly: true }), { kind: 'ours' });
  assert.deepEqual(checkParent(parent(undefined), { ...o, readOnly: true }), { kind: 'ours' });
  assert.throws(() => checkParent(parent('helm/v3', 'applyset-bad-v1'), { ...o, readOnly: true }), { message: /incorrect value for label/ });
  assert.throws(() => checkParent(parent('kdyn/0.1.0', 'applyset-bad-v1'), o), { message: `ApplySet parent object "configmaps./myset" exists and has incorrect value for label "applyset.kubernetes.io/id" (got: applyset-bad-v1, want: ${ID})` });
  assert.throws(() => checkParent(parent('kubectl/v1.32.5', 'applyset-bad-v1'), { ...o, takeover: true }), { message: /incorrect value for label/ });
  assert.throws(() => checkParent(parent('kdyn/0.1.0', ''), o), { message: /incorrect value/ });
  assert.throws(() => checkParent(parent('kdyn/0.1.0', null), o), { message: 'ApplySet parent object "configmaps./myset" exists and does not have required label applyset.kubernetes.io/id' });
  // A tool name with a slash: everything before the last one (kubectl's toolingBaseName).
  assert.equal(toolingName('example.com/tool/v2'), 'example.com/tool');
  assert.equal(toolingName('helm'), 'helm');
});

test('labelMember adds part-of; an input object that already has it is refused, as kubectl', () => {
  const o = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } };
  labelMember(o, ID);
  assert.deepEqual((o.metadata as { labels?: unknown }).labels, { 'applyset.kubernetes.io/part-of': ID });
  assert.throws(() => labelMember(o, ID), { message: 'ApplySet label "applyset.kubernetes.io/part-of" already set in input data' });
});

test("parentPatch: metadata only, the labels and annotations kubectl's buildParentPatch writes", () => {
  assert.deepEqual(parentPatch({ apiVersion: 'v1', kind: 'ConfigMap', name: 'myset', namespace: 'as-test', id: ID, tooling: 'kdyn/0.1.0', groupKinds: ['Deployment.apps', 'ConfigMap'], namespaces: ['as-test', 'other'] }), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'myset',
      namespace: 'as-test',
      labels: { 'applyset.kubernetes.io/id': ID },
      annotations: { 'applyset.kubernetes.io/tooling': 'kdyn/0.1.0', 'applyset.kubernetes.io/contains-group-kinds': 'ConfigMap,Deployment.apps', 'applyset.kubernetes.io/additional-namespaces': 'other' },
    },
  });
  // Cluster-scoped parent: no namespace key.
  assert.equal('namespace' in (parentPatch({ apiVersion: 'example.com/v1', kind: 'ApplySet', name: 's', namespace: '', id: ID, tooling: 't/1', groupKinds: [], namespaces: [] }).metadata ?? {}), false);
});

const member = (kind: string, group: string, namespace: string, name: string, owners?: Array<Record<string, unknown>>): Member => ({
  kind,
  group,
  namespace,
  name,
  object: { metadata: { name, namespace, uid: `uid-${name}`, ...(owners ? { ownerReferences: owners } : {}) } },
  gvr: { group, version: 'v1', resource: kind.toLowerCase() + 's' },
  namespaced: namespace !== '',
});

test('pruneSet: what the input holds stays; the rest goes in a stable order; a foreign owner is a conflict, the parent as owner is not', () => {
  const members = [
    member('Deployment', 'apps', 'a', 'd'),
    member('ConfigMap', '', 'b', 'x'),
    member('ConfigMap', '', 'a', 'kept'),
    member('ConfigMap', '', 'a', 'x'),
    member('ConfigMap', '', 'a', 'owned', [{ kind: 'ReplicaSet', name: 'web-1', uid: 'rs' }]),
    member('ConfigMap', '', 'a', 'by-parent', [{ kind: 'ConfigMap', name: 'myset', uid: 'parent-uid' }]),
  ];
  const kept = new Set([memberKey({ group: '', kind: 'ConfigMap', namespace: 'a', name: 'kept' })]);
  const { prune, conflicts } = pruneSet(members, kept, 'parent-uid');
  assert.deepEqual(prune.map((m) => `${m.namespace}/${memberRef(m)}`), ['a/configmap/by-parent', 'a/configmap/x', 'b/configmap/x', 'a/deployment.apps/d']);
  assert.equal(conflicts.length, 1);
  assert.equal(conflictLine(conflicts[0]!), 'error: not pruning configmap/owned in namespace "a": it is owned by ReplicaSet "web-1", outside the ApplySet (remove its applyset.kubernetes.io/part-of label or its owner reference)');
});
