/**
 * Decodes the Kubernetes protobuf request bodies kubectl's typed clients send (`kubectl create
 * namespace|configmap|secret|serviceaccount|deployment|service|role|rolebinding|...`): the `k8s\0`
 * envelope and a field subset of the common kinds, enough to create them. Zero values are dropped
 * as JSON's omitempty would; server defaulting fills the rest.
 */
import type { Obj } from './types.js';

type FieldType = 'string' | 'int' | 'bool' | 'bytes' | 'map' | 'mapbytes' | 'time' | 'quantitymap' | 'intorstring';
interface Field {
  name: string;
  type: FieldType | Schema;
  repeated?: boolean;
  keepZero?: boolean;
}
type Schema = Record<number, Field>;

const f = (name: string, type: FieldType | Schema, repeated = false, keepZero = false): Field => ({ name, type, repeated, keepZero });

const OwnerReference: Schema = { 1: f('kind', 'string'), 3: f('name', 'string'), 4: f('uid', 'string'), 5: f('apiVersion', 'string'), 6: f('controller', 'bool'), 7: f('blockOwnerDeletion', 'bool') };
const ObjectMeta: Schema = {
  1: f('name', 'string'),
  2: f('generateName', 'string'),
  3: f('namespace', 'string'),
  5: f('uid', 'string'),
  6: f('resourceVersion', 'string'),
  11: f('labels', 'map'),
  12: f('annotations', 'map'),
  13: f('ownerReferences', OwnerReference, true),
  14: f('finalizers', 'string', true),
};
const LabelSelectorRequirement: Schema = { 1: f('key', 'string'), 2: f('operator', 'string'), 3: f('values', 'string', true) };
const LabelSelector: Schema = { 1: f('matchLabels', 'map'), 2: f('matchExpressions', LabelSelectorRequirement, true) };
const ContainerPort: Schema = { 1: f('name', 'string'), 2: f('hostPort', 'int'), 3: f('containerPort', 'int'), 4: f('protocol', 'string'), 5: f('hostIP', 'string') };
const EnvVar: Schema = { 1: f('name', 'string'), 2: f('value', 'string') };
const ResourceRequirements: Schema = { 1: f('limits', 'quantitymap'), 2: f('requests', 'quantitymap') };
const Container: Schema = {
  1: f('name', 'string'),
  2: f('image', 'string'),
  3: f('command', 'string', true),
  4: f('args', 'string', true),
  5: f('workingDir', 'string'),
  6: f('ports', ContainerPort, true),
  7: f('env', EnvVar, true),
  8: f('resources', ResourceRequirements),
  14: f('imagePullPolicy', 'string'),
};
const PodSpec: Schema = {
  2: f('containers', Container, true),
  3: f('restartPolicy', 'string'),
  4: f('terminationGracePeriodSeconds', 'int'),
  6: f('dnsPolicy', 'string'),
  7: f('nodeSelector', 'map'),
  8: f('serviceAccountName', 'string'),
  10: f('nodeName', 'string'),
  20: f('initContainers', Container, true),
};
const PodTemplateSpec: Schema = { 1: f('metadata', ObjectMeta), 2: f('spec', PodSpec) };
const DeploymentSpec: Schema = {
  1: f('replicas', 'int', false, true),
  2: f('selector', LabelSelector),
  3: f('template', PodTemplateSpec),
  5: f('minReadySeconds', 'int'),
  6: f('revisionHistoryLimit', 'int'),
  7: f('paused', 'bool'),
  9: f('progressDeadlineSeconds', 'int'),
};
const ServicePort: Schema = { 1: f('name', 'string'), 2: f('protocol', 'string'), 3: f('port', 'int'), 4: f('targetPort', 'intorstring'), 5: f('nodePort', 'int') };
const ServiceSpec: Schema = { 1: f('ports', ServicePort, true), 2: f('selector', 'map'), 3: f('clusterIP', 'string'), 4: f('type', 'string'), 5: f('externalIPs', 'string', true), 10: f('externalName', 'string') };
const PolicyRule: Schema = { 1: f('verbs', 'string', true), 2: f('apiGroups', 'string', true), 3: f('resources', 'string', true), 4: f('resourceNames', 'string', true), 5: f('nonResourceURLs', 'string', true) };
const Subject: Schema = { 1: f('kind', 'string'), 2: f('apiGroup', 'string'), 3: f('name', 'string'), 4: f('namespace', 'string') };
const RoleRef: Schema = { 1: f('apiGroup', 'string'), 2: f('kind', 'string'), 3: f('name', 'string') };
const LocalObjectReference: Schema = { 1: f('name', 'string') };

const KINDS: Record<string, Schema> = {
  'v1/Namespace': { 1: f('metadata', ObjectMeta), 2: f('spec', { 1: f('finalizers', 'string', true) }) },
  'v1/ConfigMap': { 1: f('metadata', ObjectMeta), 2: f('data', 'map'), 3: f('binaryData', 'mapbytes'), 4: f('immutable', 'bool') },
  'v1/Secret': { 1: f('metadata', ObjectMeta), 2: f('data', 'mapbytes'), 3: f('type', 'string'), 4: f('stringData', 'map'), 5: f('immutable', 'bool') },
  'v1/ServiceAccount': { 1: f('metadata', ObjectMeta), 3: f('imagePullSecrets', LocalObjectReference, true), 4: f('automountServiceAccountToken', 'bool') },
  'v1/Service': { 1: f('metadata', ObjectMeta), 2: f('spec', ServiceSpec) },
  'v1/Pod': { 1: f('metadata', ObjectMeta), 2: f('spec', PodSpec) },
  'apps/v1/Deployment': { 1: f('metadata', ObjectMeta), 2: f('spec', DeploymentSpec) },
  'rbac.authorization.k8s.io/v1/Role': { 1: f('metadata', ObjectMeta), 2: f('rules', PolicyRule, true) },
  'rbac.authorization.k8s.io/v1/ClusterRole': { 1: f('metadata', ObjectMeta), 2: f('rules', PolicyRule, true) },
  'rbac.authorization.k8s.io/v1/RoleBinding': { 1: f('metadata', ObjectMeta), 2: f('subjects', Subject, true), 3: f('roleRef', RoleRef) },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': { 1: f('metadata', ObjectMeta), 2: f('subjects', Subject, true), 3: f('roleRef', RoleRef) },
};

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
    }
  }
  bytes(): Buffer {
    const n = Number(this.varint());
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

function fields(buf: Buffer): Array<{ no: number; wire: number; v: bigint | Buffer }> {
  const r = new Reader(buf);
  const out: Array<{ no: number; wire: number; v: bigint | Buffer }> = [];
  while (!r.done) {
    const key = Number(r.varint());
    const no = key >>> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, wire, v: r.varint() });
    else if (wire === 2) out.push({ no, wire, v: r.bytes() });
    else r.skip(wire);
  }
  return out;
}

function mapEntry(buf: Buffer, valueAs: 'string' | 'bytes' | 'quantity'): [string, unknown] {
  let k = '';
  let v: unknown = valueAs === 'bytes' ? '' : '';
  for (const e of fields(buf)) {
    if (e.no === 1) k = (e.v as Buffer).toString('utf8');
    if (e.no === 2) {
      const b = e.v as Buffer;
      if (valueAs === 'string') v = b.toString('utf8');
      else if (valueAs === 'bytes') v = b.toString('base64');
      else v = fields(b).find((x) => x.no === 1)?.v.toString() ?? '';
    }
  }
  return [k, v];
}

function toInt(v: bigint): number {
  return Number(BigInt.asIntN(64, v));
}

function decodeMessage(buf: Buffer, schema: Schema): Obj {
  const out: Obj = {};
  for (const e of fields(buf)) {
    const fd = schema[e.no];
    if (!fd) continue;
    const varintType = fd.type === 'int' || fd.type === 'bool';
    if (varintType !== (e.wire === 0)) continue; // not what this schema expects: ignore
    let value: unknown;
    switch (fd.type) {
      case 'string':
        value = (e.v as Buffer).toString('utf8');
        break;
      case 'int':
        value = toInt(e.v as bigint);
        break;
      case 'bool':
        value = e.v !== 0n;
        break;
      case 'bytes':
        value = (e.v as Buffer).toString('base64');
        break;
      case 'time':
        continue;
      case 'intorstring': {
        const parts = fields(e.v as Buffer);
        const type = toInt((parts.find((p) => p.no === 1)?.v as bigint) ?? 0n);
        value = type === 1 ? (parts.find((p) => p.no === 3)?.v as Buffer | undefined)?.toString('utf8') ?? '' : toInt((parts.find((p) => p.no === 2)?.v as bigint) ?? 0n);
        break;
      }
      case 'map':
      case 'mapbytes':
      case 'quantitymap': {
        const [k, v] = mapEntry(e.v as Buffer, fd.type === 'map' ? 'string' : fd.type === 'mapbytes' ? 'bytes' : 'quantity');
        out[fd.name] = { ...(out[fd.name] ?? {}), [k]: v };
        continue;
      }
      default:
        value = decodeMessage(e.v as Buffer, fd.type);
    }
    if (fd.repeated) (out[fd.name] ??= []).push(value);
    else out[fd.name] = value;
  }
  // omitempty
  for (const [k, v] of Object.entries(out)) {
    const fd = Object.values(schema).find((x) => x.name === k);
    if (fd?.keepZero) continue;
    if (v === '' || v === 0 || v === false || (typeof v === 'object' && v !== null && Object.keys(v).length === 0)) delete out[k];
  }
  return out;
}

export class ProtobufError extends Error {}

/** Decodes a `k8s\0`-enveloped protobuf object of a supported kind into its JSON form. */
export function decodeK8sProtobuf(body: Buffer): Obj {
  if (body.length < 4 || body.subarray(0, 4).toString('latin1') !== 'k8s\u0000') throw new ProtobufError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  let apiVersion = '';
  let kind = '';
  let raw: Buffer = Buffer.alloc(0);
  for (const e of fields(body.subarray(4))) {
    if (e.no === 1) {
      for (const t of fields(e.v as Buffer)) {
        if (t.no === 1) apiVersion = (t.v as Buffer).toString('utf8');
        if (t.no === 2) kind = (t.v as Buffer).toString('utf8');
      }
    } else if (e.no === 2) raw = e.v as Buffer;
  }
  const schema = KINDS[`${apiVersion}/${kind}`];
  if (!schema) throw new ProtobufError(`this server decodes protobuf only for ${Object.keys(KINDS).join(', ')}; send ${apiVersion}/${kind} as JSON`);
  return { apiVersion, kind, ...decodeMessage(raw, schema) };
}
