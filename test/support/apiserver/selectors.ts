/**
 * Label selectors (=, ==, !=, in, notin, exists, !key, gt/lt; comma = AND) and field selectors
 * (=, ==, !=) as k8s.io/apimachinery parses and matches them.
 */
import type { Obj } from './types.js';
import { badRequest } from './status.js';
import { jsonPathFind } from './jsonpath.js';

export type LabelOp = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  op: LabelOp;
  values: string[];
}

const KEY_RE = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string, sel: string): void {
  if (!KEY_RE.test(key) || key.length > 317) {
    throw badRequest(`unable to parse requirement: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`);
  }
  void sel;
}

function checkValue(v: string): void {
  if (!VALUE_RE.test(v) || v.length > 63) {
    throw badRequest(`unable to parse requirement: Invalid value: "${v}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`);
  }
}

/** Splits on commas that are not inside parentheses. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

export function parseLabelSelector(sel: string): LabelRequirement[] {
  const s = sel.trim();
  if (!s) return [];
  const reqs: LabelRequirement[] = [];
  for (const raw of splitTop(s)) {
    const part = raw.trim();
    if (!part) throw badRequest(`unable to parse requirement: found '', expected: identifier`);
    let m: RegExpExecArray | null;
    if ((m = /^!\s*(\S+)$/.exec(part))) {
      checkKey(m[1]!, sel);
      reqs.push({ key: m[1]!, op: '!', values: [] });
    } else if ((m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(part))) {
      checkKey(m[1]!, sel);
      const values = m[3]!.split(',').map((v) => v.trim());
      values.forEach(checkValue);
      reqs.push({ key: m[1]!, op: m[2] as LabelOp, values });
    } else if ((m = /^([^=!<>\s]+)\s*(==|!=|=|>|<)\s*(\S*)$/.exec(part))) {
      checkKey(m[1]!, sel);
      const op = m[2] === '>' ? 'gt' : m[2] === '<' ? 'lt' : (m[2] as LabelOp);
      if ((op === 'gt' || op === 'lt') && !/^-?\d+$/.test(m[3]!)) {
        throw badRequest(`unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`);
      }
      checkValue(m[3]!);
      reqs.push({ key: m[1]!, op, values: [m[3]!] });
    } else if ((m = /^([^=!<>\s()]+)$/.exec(part))) {
      checkKey(m[1]!, sel);
      reqs.push({ key: m[1]!, op: 'exists', values: [] });
    } else {
      throw badRequest(`unable to parse requirement: found '${part}', expected: identifier`);
    }
  }
  return reqs;
}

export function matchLabels(reqs: LabelRequirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const r of reqs) {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    const v = l[r.key];
    switch (r.op) {
      case '=':
      case '==':
      case 'in':
        if (!has || !r.values.includes(v!)) return false;
        break;
      case '!=':
      case 'notin':
        if (has && r.values.includes(v!)) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case '!':
        if (has) return false;
        break;
      case 'gt':
      case 'lt': {
        if (!has || !/^-?\d+$/.test(v!)) return false;
        const a = Number(v);
        const b = Number(r.values[0]);
        if (r.op === 'gt' ? !(a > b) : !(a < b)) return false;
        break;
      }
    }
  }
  return true;
}

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

export function parseFieldSelector(sel: string): FieldRequirement[] {
  const s = sel.trim();
  if (!s) return [];
  return s.split(',').map((part) => {
    const m = /^([^=!]+?)\s*(==|!=|=)\s*(.*)$/.exec(part.trim());
    if (!m) throw badRequest(`invalid selector: '${sel}'; can't understand '${part}'`);
    return { field: m[1]!.trim(), op: m[2] === '!=' ? '!=' : '=', value: m[3]!.trim() };
  });
}

/** Extra field selectors kube-apiserver supports per built-in resource (beyond metadata.name/namespace). */
const BUILTIN_FIELDS: Record<string, Record<string, (o: Obj) => string>> = {
  '/pods': {
    'spec.nodeName': (o) => o.spec?.nodeName ?? '',
    'spec.restartPolicy': (o) => o.spec?.restartPolicy ?? '',
    'spec.schedulerName': (o) => o.spec?.schedulerName ?? '',
    'spec.serviceAccountName': (o) => o.spec?.serviceAccountName ?? '',
    'spec.hostNetwork': (o) => String(o.spec?.hostNetwork ?? false),
    'status.phase': (o) => o.status?.phase ?? '',
    'status.podIP': (o) => o.status?.podIP ?? '',
    'status.nominatedNodeName': (o) => o.status?.nominatedNodeName ?? '',
  },
  '/secrets': { type: (o) => o.type ?? '' },
  '/namespaces': { 'status.phase': (o) => o.status?.phase ?? '' },
  '/nodes': { 'spec.unschedulable': (o) => String(o.spec?.unschedulable ?? false) },
  '/events': {
    'involvedObject.kind': (o) => o.involvedObject?.kind ?? '',
    'involvedObject.namespace': (o) => o.involvedObject?.namespace ?? '',
    'involvedObject.name': (o) => o.involvedObject?.name ?? '',
    'involvedObject.uid': (o) => o.involvedObject?.uid ?? '',
    'involvedObject.apiVersion': (o) => o.involvedObject?.apiVersion ?? '',
    'involvedObject.resourceVersion': (o) => o.involvedObject?.resourceVersion ?? '',
    'involvedObject.fieldPath': (o) => o.involvedObject?.fieldPath ?? '',
    reason: (o) => o.reason ?? '',
    reportingComponent: (o) => o.reportingComponent ?? '',
    source: (o) => o.source?.component ?? '',
    type: (o) => o.type ?? '',
  },
  'apps/replicasets': { 'status.replicas': (o) => String(o.status?.replicas ?? 0) },
  'batch/jobs': { 'status.successful': (o) => String(o.status?.succeeded ?? 0) },
};

export interface SelectorTarget {
  group: string;
  resource: string;
  /** The CRD, for custom resources (selectableFields). */
  crd?: Obj;
  version: string;
}

/** A predicate for a field selector on a resource; 400 for fields the resource does not support. */
export function fieldMatcher(reqs: FieldRequirement[], t: SelectorTarget): (o: Obj) => boolean {
  const getters: Record<string, (o: Obj) => string> = {
    'metadata.name': (o) => o.metadata?.name ?? '',
    'metadata.namespace': (o) => o.metadata?.namespace ?? '',
  };
  if (t.crd) {
    const v = (t.crd.spec?.versions ?? []).find((x: Obj) => x.name === t.version);
    for (const f of v?.selectableFields ?? []) {
      const path: string = f.jsonPath;
      getters[path.replace(/^\./, '')] = (o) => {
        const r = jsonPathFind(o, path)[0];
        return r === undefined || r === null ? '' : String(r);
      };
    }
  } else Object.assign(getters, BUILTIN_FIELDS[`${t.group}/${t.resource}`] ?? {});
  const checks = reqs.map((r) => {
    const g = getters[r.field];
    if (!g) {
      if (t.crd) {
        const known = Object.keys(getters).map((k) => `"${k}"`).join(', ');
        throw badRequest(`"${r.field}" is not a known field selector: only ${known}`);
      }
      throw badRequest(`field label not supported: ${r.field}`);
    }
    return (o: Obj) => (g(o) === r.value) === (r.op === '=');
  });
  return (o) => checks.every((c) => c(o));
}
