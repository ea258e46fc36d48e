/**
 * Server-side Table conversion (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`): the columns
 * kube-apiserver's printers define for a few built-ins, CRD additionalPrinterColumns, and the
 * generic convertors (Name + Created At for built-ins without a printer, Name + Age for CRDs).
 */
import type { Obj, ServedResource } from './types.js';
import { compileJsonPath } from './jsonpath.js';

export interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

type CellFn = (o: Obj, now: number) => unknown;

const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATED_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';
const CONTAINERS_DOC = 'Names of each container in the template.';
const IMAGES_DOC = 'Images referenced by each container in the template.';

const col = (name: string, type: string, description: string, priority = 0, format = ''): Column => ({ name, type, format, description, priority });
const NAME_COL = col('Name', 'string', NAME_DOC, 0, 'name');
const AGE_COL = col('Age', 'string', CREATED_DOC);

/** apimachinery's duration.HumanDuration (the server's own copy: test/support/apiserver imports nothing from src/). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** The printers' translateTimestampSince. */
export function age(ts: unknown, now: number): string {
  if (typeof ts !== 'string' || !ts) return '<unknown>';
  const t = Date.parse(ts);
  return Number.isNaN(t) ? '<invalid>' : humanDuration(now - t);
}

const ageCell: CellFn = (o, now) => age(o.metadata?.creationTimestamp, now);

function formatLabels(m: Obj | undefined): string {
  const keys = Object.keys(m ?? {}).sort();
  return keys.length ? keys.map((k) => `${k}=${m![k]}`).join(',') : '<none>';
}

function selectorString(sel: Obj | undefined): string {
  if (!sel) return '<none>';
  const parts: string[] = [];
  for (const k of Object.keys(sel.matchLabels ?? {}).sort()) parts.push(`${k}=${sel.matchLabels[k]}`);
  for (const e of sel.matchExpressions ?? []) {
    const op = String(e.operator);
    if (op === 'In') parts.push(`${e.key} in (${[...(e.values ?? [])].sort().join(',')})`);
    else if (op === 'NotIn') parts.push(`${e.key} notin (${[...(e.values ?? [])].sort().join(',')})`);
    else if (op === 'Exists') parts.push(e.key);
    else if (op === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.length ? parts.join(',') : '<none>';
}

const containers = (o: Obj): Obj[] => o.spec?.template?.spec?.containers ?? [];

function servicePorts(o: Obj): string {
  const ports: Obj[] = o.spec?.ports ?? [];
  if (!ports.length) return '<none>';
  return ports.map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol ?? 'TCP'}` : `${p.port}/${p.protocol ?? 'TCP'}`)).join(',');
}

function serviceExternalIP(o: Obj): string {
  const type = o.spec?.type ?? 'ClusterIP';
  const ext: string[] = o.spec?.externalIPs ?? [];
  if (type === 'ExternalName') return o.spec?.externalName ?? '<none>';
  if (type === 'LoadBalancer') {
    const ing: string[] = (o.status?.loadBalancer?.ingress ?? []).map((i: Obj) => i.ip || i.hostname).filter(Boolean);
    const all = [...ing, ...ext];
    return all.length ? all.join(',') : '<pending>';
  }
  return ext.length ? ext.join(',') : '<none>';
}

function podStatus(o: Obj): string {
  if (o.metadata?.deletionTimestamp) return 'Terminating';
  let reason: string = o.status?.reason || o.status?.phase || '';
  for (const cs of o.status?.containerStatuses ?? []) {
    if (cs.state?.waiting?.reason) reason = cs.state.waiting.reason;
    else if (cs.state?.terminated?.reason) reason = cs.state.terminated.reason;
  }
  return reason;
}

interface Printer {
  columns: Column[];
  cells: CellFn[];
}

const BUILTIN_PRINTERS: Record<string, Printer> = {
  '/namespaces': {
    columns: [NAME_COL, col('Status', 'string', 'The status of the namespace'), AGE_COL],
    cells: [(o) => o.metadata.name, (o) => o.status?.phase ?? '', ageCell],
  },
  '/configmaps': {
    columns: [
      NAME_COL,
      col('Data', 'string', "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process."),
      AGE_COL,
    ],
    cells: [(o) => o.metadata.name, (o) => Object.keys(o.data ?? {}).length + Object.keys(o.binaryData ?? {}).length, ageCell],
  },
  '/secrets': {
    columns: [
      NAME_COL,
      col('Type', 'string', 'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types'),
      col('Data', 'string', "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"),
      AGE_COL,
    ],
    cells: [(o) => o.metadata.name, (o) => o.type ?? 'Opaque', (o) => Object.keys(o.data ?? {}).length, ageCell],
  },
  '/pods': {
    columns: [
      NAME_COL,
      col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
      col('Status', 'string', 'The aggregate status of the containers in this pod.'),
      col('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
      AGE_COL,
      col('IP', 'string', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
      col('Node', 'string', 'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename', 1),
      col('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.', 1),
      col('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates', 1),
    ],
    cells: [
      (o) => o.metadata.name,
      (o) => `${(o.status?.containerStatuses ?? []).filter((c: Obj) => c.ready).length}/${(o.spec?.containers ?? []).length}`,
      podStatus,
      (o) => String((o.status?.containerStatuses ?? []).reduce((n: number, c: Obj) => n + (c.restartCount ?? 0), 0)),
      ageCell,
      (o) => o.status?.podIP || '<none>',
      (o) => o.spec?.nodeName || '<none>',
      (o) => o.status?.nominatedNodeName || '<none>',
      (o) => {
        const gates: Obj[] = o.spec?.readinessGates ?? [];
        if (!gates.length) return '<none>';
        const conds: Obj[] = o.status?.conditions ?? [];
        const ok = gates.filter((g) => conds.some((c) => c.type === g.conditionType && c.status === 'True')).length;
        return `${ok}/${gates.length}`;
      },
    ],
  },
  '/services': {
    columns: [
      NAME_COL,
      col('Type', 'string', 'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types'),
      col('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies'),
      col('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.'),
      col('Port(s)', 'string', 'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies'),
      AGE_COL,
      col('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/', 1),
    ],
    cells: [
      (o) => o.metadata.name,
      (o) => o.spec?.type ?? 'ClusterIP',
      (o) => o.spec?.clusterIP || '<none>',
      serviceExternalIP,
      servicePorts,
      ageCell,
      (o) => formatLabels(o.spec?.selector),
    ],
  },
  'apps/deployments': {
    columns: [
      NAME_COL,
      col('Ready', 'string', 'Number of the pod with ready state'),
      col('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
      col('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
      AGE_COL,
      col('Containers', 'string', CONTAINERS_DOC, 1),
      col('Images', 'string', IMAGES_DOC, 1),
      col('Selector', 'string', 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template\'s labels.', 1),
    ],
    cells: [
      (o) => o.metadata.name,
      (o) => `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 1}`,
      (o) => o.status?.updatedReplicas ?? 0,
      (o) => o.status?.availableReplicas ?? 0,
      ageCell,
      (o) => containers(o).map((c) => c.name).join(','),
      (o) => containers(o).map((c) => c.image).join(','),
      (o) => selectorString(o.spec?.selector),
    ],
  },
};

const CR_NAME_COL = NAME_COL;

function crdColumns(r: ServedResource): { columns: Column[]; cells: CellFn[] } {
  const version = (r.crd!.spec?.versions ?? []).find((v: Obj) => v.name === r.version) ?? {};
  let defs: Obj[] = version.additionalPrinterColumns ?? r.crd!.spec?.additionalPrinterColumns ?? [];
  let defaultAge = false;
  if (!defs.length) {
    defs = [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
    defaultAge = true;
  }
  const columns: Column[] = [CR_NAME_COL];
  const cells: CellFn[] = [(o) => o.metadata?.name];
  for (const d of defs) {
    columns.push({
      name: d.name,
      type: d.type,
      format: d.format ?? '',
      description: defaultAge ? CREATED_DOC : d.description || `Custom resource definition column (in JSONPath format): ${d.jsonPath}`,
      priority: d.priority ?? 0,
    });
    let find: ((o: unknown) => unknown[]) | undefined;
    try {
      find = compileJsonPath(d.jsonPath);
    } catch {
      find = undefined;
    }
    cells.push((o, now) => {
      const found = find ? find(o) : [];
      if (!found.length || found[0] === undefined) return null;
      const v = found[0];
      if (v === null) return null;
      switch (d.type) {
        case 'string':
          return typeof v === 'object' ? JSON.stringify(v) : String(v);
        case 'integer':
          return typeof v === 'number' ? Math.trunc(v) : null;
        case 'number':
          return typeof v === 'number' ? v : null;
        case 'boolean':
          return typeof v === 'boolean' ? v : null;
        case 'date':
          return typeof v === 'string' ? (Number.isNaN(Date.parse(v)) ? '<invalid>' : age(v, now)) : null;
        default:
          return null;
      }
    });
  }
  return { columns, cells };
}

function printerFor(r: ServedResource): { columns: Column[]; cells: CellFn[] } {
  if (r.crd) return crdColumns(r);
  const p = BUILTIN_PRINTERS[`${r.group}/${r.resource}`];
  if (p) return p;
  return {
    columns: [NAME_COL, col('Created At', 'date', CREATED_DOC)],
    cells: [(o) => o.metadata?.name, (o) => o.metadata?.creationTimestamp ?? null],
  };
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions {
  /** 'v1' or 'v1beta1' of meta.k8s.io. */
  tableVersion: string;
  includeObject: IncludeObject;
  now: number;
  /** Table metadata (resourceVersion, continue, remainingItemCount). */
  listMeta: Obj;
  /** Turns a stored object into what the client would see (apiVersion set for the request). */
  present: (o: Obj) => Obj;
}

export function toTable(r: ServedResource, objects: Obj[], o: TableOptions): Obj {
  const p = printerFor(r);
  const metaGV = `meta.k8s.io/${o.tableVersion}`;
  const rows = objects.map((obj) => {
    const row: Obj = { cells: p.cells.map((f) => f(obj, o.now)) };
    if (o.includeObject === 'None') row.object = null;
    else if (o.includeObject === 'Object') row.object = o.present(obj);
    else row.object = { kind: 'PartialObjectMetadata', apiVersion: metaGV, metadata: obj.metadata };
    return row;
  });
  return { kind: 'Table', apiVersion: metaGV, metadata: o.listMeta, columnDefinitions: p.columns, rows };
}
