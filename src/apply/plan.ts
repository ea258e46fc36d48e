/**
 * The pure part of apply: which stage each object belongs to (Namespaces, then
 * CustomResourceDefinitions, then everything else), what the input's own CRDs declare (so their
 * instances' scope and plural are known before the CRDs exist), kubectl's namespace rules, and the
 * key that identifies one object (for duplicates in the input). No I/O.
 */
import { parseGroupVersion } from '../core/gvk.js';
import type { Unstructured } from '../core/unstructured.js';

export type Stage = 'namespaces' | 'crds' | 'resources';
export const STAGES: readonly Stage[] = ['namespaces', 'crds', 'resources'];

export const CRD_GROUP = 'apiextensions.k8s.io';

export function stageOf(obj: Unstructured): Stage {
  const { group } = parseGroupVersion(String(obj.apiVersion ?? ''));
  if (group === '' && obj.kind === 'Namespace') return 'namespaces';
  if (group === CRD_GROUP && obj.kind === 'CustomResourceDefinition') return 'crds';
  return 'resources';
}

/** The input's indexes per stage, each in input order; empty stages left out. */
export function planStages(objects: readonly Unstructured[]): Array<{ stage: Stage; indexes: number[] }> {
  const by = new Map<Stage, number[]>(STAGES.map((s) => [s, []]));
  objects.forEach((o, i) => by.get(stageOf(o))!.push(i));
  return STAGES.filter((s) => by.get(s)!.length > 0).map((stage) => ({ stage, indexes: by.get(stage)! }));
}

/** A kind that one of the input's CustomResourceDefinitions declares. */
export interface DeclaredKind {
  group: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** Served versions, in the CRD's order. */
  versions: string[];
  /** The CRD's metadata.name (`plural.group`). */
  crdName: string;
}

/** `group/Kind` -> what the input's CRDs declare about it. */
export function declaredKinds(objects: readonly Unstructured[]): Map<string, DeclaredKind> {
  const out = new Map<string, DeclaredKind>();
  for (const o of objects) {
    if (stageOf(o) !== 'crds') continue;
    const spec = (o.spec ?? {}) as { group?: unknown; scope?: unknown; names?: { kind?: unknown; plural?: unknown }; versions?: Array<{ name?: unknown; served?: unknown }> };
    const group = spec.group;
    const kind = spec.names?.kind;
    const plural = spec.names?.plural;
    if (typeof group !== 'string' || typeof kind !== 'string' || typeof plural !== 'string') continue;
    const versions = Array.isArray(spec.versions) ? spec.versions.filter((v) => v && v.served !== false && typeof v.name === 'string').map((v) => v.name as string) : [];
    out.set(kindKey(group, kind), { group, kind, plural, namespaced: spec.scope !== 'Cluster', versions, crdName: String(o.metadata?.name ?? '') });
  }
  return out;
}

export function kindKey(group: string, kind: string): string {
  return `${group}/${kind}`;
}

/** The namespace to use when a document has none: `-n`, else the context's, else `default`; `enforce` when `-n` was given. */
export interface NamespaceRule {
  namespace: string;
  enforce: boolean;
}

export type Placement = { object: Unstructured; namespace: string | undefined } | { error: string };

/**
 * kubectl's namespace rules (`CR/pkg/resource/visitor.go`: SetNamespace, RequireNamespace,
 * FilterNamespace): a cluster-scoped object loses a stray namespace; a namespaced one without a
 * namespace gets the rule's; one whose namespace differs from an explicit `-n` is an error.
 * Returns a new object when it changes, never mutates.
 */
export function placeNamespace(obj: Unstructured, namespaced: boolean, rule: NamespaceRule): Placement {
  const md = obj.metadata ?? {};
  const own = typeof md.namespace === 'string' && md.namespace !== '' ? md.namespace : undefined;
  if (!namespaced) {
    if (md.namespace === undefined) return { object: obj, namespace: undefined };
    const { namespace: _dropped, ...rest } = md;
    return { object: { ...obj, metadata: rest }, namespace: undefined };
  }
  if (own === undefined) return { object: { ...obj, metadata: { ...md, namespace: rule.namespace } }, namespace: rule.namespace };
  if (rule.enforce && own !== rule.namespace) {
    return {
      error: `the namespace from the provided object ${JSON.stringify(own)} does not match the namespace ${JSON.stringify(rule.namespace)}. You must pass '--namespace=${own}' to perform this operation.`,
    };
  }
  return { object: obj, namespace: own };
}

/** Identifies one object on the server: `group/Kind/namespace/name`. */
export function objectKey(obj: Unstructured, namespace: string | undefined): string {
  const { group } = parseGroupVersion(String(obj.apiVersion ?? ''));
  return `${group}/${String(obj.kind)}/${namespace ?? ''}/${String(obj.metadata?.name)}`;
}
