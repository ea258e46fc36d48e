/**
 * The ApplySet specification (KEP-3659) as kubectl v1.32 implements it, pure: the parent's ID, the
 * labels and annotations on the parent and its members in kubectl's formats, the `--applyset`
 * reference grammar, and the checks a tool makes before it mutates a set (the parent's ID label,
 * its tooling). No I/O: ./run.ts reads and writes the server.
 */
import { createHash } from 'node:crypto';
import { KdynError } from '../core/errors.js';
import type { Unstructured } from '../core/unstructured.js';

export const ID_LABEL = 'applyset.kubernetes.io/id';
export const PART_OF_LABEL = 'applyset.kubernetes.io/part-of';
export const TOOLING_ANNOTATION = 'applyset.kubernetes.io/tooling';
export const GROUP_KINDS_ANNOTATION = 'applyset.kubernetes.io/contains-group-kinds';
/** The deprecated form kubectl still reads (resources, not kinds); rewritten as group-kinds on the next update. */
export const GROUP_RESOURCES_ANNOTATION = 'applyset.kubernetes.io/contains-group-resources';
export const NAMESPACES_ANNOTATION = 'applyset.kubernetes.io/additional-namespaces';
/** On a CRD: its custom resources may be ApplySet parents. */
export const PARENT_TYPE_LABEL = 'applyset.kubernetes.io/is-parent-type';

/** An ApplySet error: one line, nothing was changed by the check that raised it. */
export class ApplySetError extends KdynError {}

/** The parent object: what its ID is computed from. `namespace` is '' for a cluster-scoped parent. */
export interface ParentIdentity {
  name: string;
  namespace: string;
  kind: string;
  group: string;
}

/** `applyset-` + base64url (no padding) of sha256(`<name>.<namespace>.<kind>.<group>`) + `-v1`. */
export function applySetId(p: ParentIdentity): string {
  const hash = createHash('sha256').update([p.name, p.namespace, p.kind, p.group].join('.')).digest('base64url');
  return `applyset-${hash}-v1`;
}

/** The member label selector (`applyset.kubernetes.io/part-of=<id>`), as kubectl lists members. */
export function memberSelector(id: string): string {
  return `${PART_OF_LABEL}=${id}`;
}

/** `[RESOURCE][.GROUP]/NAME` parsed as kubectl does: no `/` means a Secret of that name. */
export interface ParentRef {
  /** `configmap`, `secrets`, `applysets.example.com`: what the mapper resolves. */
  resource: string;
  name: string;
}

export function parseParentRef(ref: string): ParentRef {
  const slash = ref.indexOf('/');
  const parsed = slash < 0 ? { resource: 'secrets', name: ref } : { resource: ref.slice(0, slash), name: ref.slice(slash + 1) };
  if (!parsed.name) throw new ApplySetError(`invalid parent reference ${JSON.stringify(ref)}: name cannot be blank`);
  if (!parsed.resource) throw new ApplySetError(`invalid parent reference ${JSON.stringify(ref)}: resource cannot be blank`);
  return parsed;
}

/** `Kind` for the core group, `Kind.group` otherwise (apimachinery's GroupKind.String()). */
export function formatGroupKind(gk: { group: string; kind: string }): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

/** schema.ParseGroupKind: `Kind.group.with.dots` -> kind before the first dot, the rest the group. */
export function parseGroupKind(s: string): { group: string; kind: string } {
  const dot = s.indexOf('.');
  return dot < 0 ? { kind: s, group: '' } : { kind: s.slice(0, dot), group: s.slice(dot + 1) };
}

/** The contains-group-kinds value: unique, sorted by Go's string order, comma-separated. */
export function groupKindsAnnotation(gks: Iterable<string>): string {
  return sortedUnique(gks).join(',');
}

/** The additional-namespaces value: the namespaces but the parent's own, sorted, comma-separated. */
export function namespacesAnnotation(namespaces: Iterable<string>, parentNamespace: string): string {
  return sortedUnique([...namespaces].filter((n) => n !== '' && n !== parentNamespace)).join(',');
}

/** Byte-wise sort, as Go's sort.Strings. */
function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** What a parent records: its group-kinds (as written) and namespaces (its own included when namespaced). */
export interface RecordedSet {
  groupKinds: string[];
  namespaces: string[];
}

/**
 * The set a live parent records. A parent without contains-group-kinds but with the deprecated
 * contains-group-resources gives `groupResources` for the caller to map; with neither, kubectl
 * refuses (it does not discover), and so does kdyn.
 */
export function recordedSet(annotations: Readonly<Record<string, string>>, parentNamespace: string): RecordedSet & { groupResources?: string[] } {
  const split = (v: string | undefined) => (v ? v.split(',') : []);
  const namespaces = split(annotations[NAMESPACES_ANNOTATION]);
  if (parentNamespace) namespaces.push(parentNamespace);
  const ns = sortedUnique(namespaces);
  if (GROUP_KINDS_ANNOTATION in annotations) return { groupKinds: split(annotations[GROUP_KINDS_ANNOTATION]), namespaces: ns };
  if (annotations[GROUP_RESOURCES_ANNOTATION]) return { groupKinds: [], groupResources: split(annotations[GROUP_RESOURCES_ANNOTATION]), namespaces: ns };
  throw new ApplySetError(`kdyn requires the ${JSON.stringify(GROUP_KINDS_ANNOTATION)} annotation to be set on all ApplySet parent objects`);
}

/** `kubectl/v1.32.5` -> `kubectl` (everything before the last `/`), as kubectl compares tools. */
export function toolingName(tooling: string): string {
  const slash = tooling.lastIndexOf('/');
  return slash < 0 ? tooling : tooling.slice(0, slash);
}

/** kubectl's tooling: `kubectl/<version>` (the only sets `--applyset-takeover` takes over). */
function isKubectlTooling(tooling: string): boolean {
  return toolingName(tooling) === 'kubectl' && tooling.length > 'kubectl/'.length;
}

/** How a parent found on the server may be used. */
export type ParentVerdict =
  /** Ours (same tool, right ID), or only read: go on. */
  | { kind: 'ours' }
  /** kubectl's, and `--applyset-takeover` was given: go on, rewriting its tooling. */
  | { kind: 'takeover'; from: string };

/**
 * The checks before a tool mutates an existing parent, in kubectl's order and words: the tooling
 * annotation present and naming this tool (else a refusal; with `takeover`, a set kubectl manages,
 * `kubectl/<version>`, is taken over and any other tool's is still refused, naming its tooling), the
 * ID label present and equal to the ID computed from the parent (never waived: a wrong ID means
 * another set's objects would be pruned). `readOnly` (listing members): any tooling passes.
 */
export function checkParent(live: Unstructured, o: { ref: string; id: string; tool: string; takeover: boolean; readOnly?: boolean }): ParentVerdict {
  const labels = live.metadata?.labels ?? {};
  const annotations = live.metadata?.annotations ?? {};
  const tooling = annotations[TOOLING_ANNOTATION];
  const parent = `ApplySet parent object ${JSON.stringify(o.ref)} already exists and`;
  const onlyKubectl = `--applyset-takeover takes over only sets kubectl manages (tooling "kubectl/<version>")`;
  let verdict: ParentVerdict = { kind: 'ours' };
  if (o.readOnly) {
    // Reading mutates nothing: any tool's set may be listed.
  } else if (tooling === undefined) {
    throw new ApplySetError(`${parent} is missing required annotation ${JSON.stringify(TOOLING_ANNOTATION)}${o.takeover ? `: ${onlyKubectl}` : ''}`);
  } else if (toolingName(tooling) !== o.tool) {
    const kubectl = isKubectlTooling(tooling);
    if (o.takeover && !kubectl) throw new ApplySetError(`${parent} is managed by tooling ${JSON.stringify(tooling)}: ${onlyKubectl}`);
    if (!o.takeover) throw new ApplySetError(`${parent} is managed by tooling ${JSON.stringify(toolingName(tooling))} instead of ${JSON.stringify(o.tool)}${kubectl ? ` (to move it to ${o.tool}, apply again with --applyset-takeover; --dry-run=server shows what would change)` : ''}`);
    verdict = { kind: 'takeover', from: tooling };
  }
  const idLabel = labels[ID_LABEL];
  if (idLabel === undefined) throw new ApplySetError(`ApplySet parent object ${JSON.stringify(o.ref)} exists and does not have required label ${ID_LABEL}`);
  if (idLabel !== o.id) throw new ApplySetError(`ApplySet parent object ${JSON.stringify(o.ref)} exists and has incorrect value for label ${JSON.stringify(ID_LABEL)} (got: ${idLabel}, want: ${o.id})`);
  return verdict;
}

/** The part-of label added to each input object; an object that already carries it is refused (as kubectl). */
export function labelMember(object: Unstructured, id: string): void {
  const metadata = (object.metadata ??= {});
  const labels = (metadata.labels ??= {});
  if (PART_OF_LABEL in labels) throw new ApplySetError(`ApplySet label ${JSON.stringify(PART_OF_LABEL)} already set in input data`);
  labels[PART_OF_LABEL] = id;
}

/**
 * The server-side apply body that updates the parent: its ID label and the three annotations, as
 * kubectl's buildParentPatch (a PartialObjectMetadata: only metadata, so a ConfigMap's data is untouched).
 */
export function parentPatch(p: { apiVersion: string; kind: string; name: string; namespace: string; id: string; tooling: string; groupKinds: Iterable<string>; namespaces: Iterable<string> }): Unstructured {
  return {
    apiVersion: p.apiVersion,
    kind: p.kind,
    metadata: {
      name: p.name,
      ...(p.namespace ? { namespace: p.namespace } : {}),
      labels: { [ID_LABEL]: p.id },
      annotations: {
        [TOOLING_ANNOTATION]: p.tooling,
        [GROUP_KINDS_ANNOTATION]: groupKindsAnnotation(p.groupKinds),
        [NAMESPACES_ANNOTATION]: namespacesAnnotation(p.namespaces, p.namespace),
      },
    },
  };
}
