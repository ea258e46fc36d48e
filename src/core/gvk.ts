/** Group/version/kind/resource identifiers and Kubernetes version priority. Pure. */

export interface GroupVersion {
  group: string; // '' for the core group
  version: string;
}
export interface GroupVersionResource extends GroupVersion {
  resource: string;
}
export interface GroupVersionKind extends GroupVersion {
  kind: string;
}

/** `v1` for the core group, `group/version` otherwise. */
export function formatGroupVersion(gv: GroupVersion): string {
  return gv.group ? `${gv.group}/${gv.version}` : gv.version;
}

/** Parses an apiVersion (`v1`, `apps/v1`). */
export function parseGroupVersion(apiVersion: string): GroupVersion {
  const i = apiVersion.indexOf('/');
  if (i < 0) return { group: '', version: apiVersion };
  return { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** kubectl's `resource.version.group` form, e.g. `deployments.v1.apps`, `pods.v1.` */
export function formatGVR(gvr: GroupVersionResource): string {
  return `${gvr.resource}.${gvr.version}.${gvr.group}`;
}

/** apimachinery's `schema.GroupVersionResource.String()`: `apps/v1, Resource=deployments` (`/v1, Resource=pods` for core). */
export function gvrString(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}, Resource=${gvr.resource}`;
}

/** `resource` or `resource.group`. */
export function groupResource(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource;
}

export function sameGVR(a: GroupVersionResource, b: GroupVersionResource): boolean {
  return a.group === b.group && a.version === b.version && a.resource === b.resource;
}

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/**
 * Kubernetes version priority (apimachinery `version.CompareKubeAwareVersionStrings`):
 * GA > beta > alpha, higher numbers first within each; non-Kubernetes-like versions last, alphabetically.
 * Returns < 0 when `a` has the higher priority (sorts first).
 */
export function compareVersionPriority(a: string, b: string): number {
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma || !mb) {
    if (ma) return -1;
    if (mb) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const rank = (m: RegExpExecArray) => (m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1);
  const ra = rank(ma);
  const rb = rank(mb);
  if (ra !== rb) return rb - ra;
  const va = Number(ma[1]);
  const vb = Number(mb[1]);
  if (va !== vb) return vb - va;
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}
