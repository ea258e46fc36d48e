/**
 * Request paths for the dynamic client (client-go `dynamic/simple.go` `makeURLSegments`). Pure.
 * Every segment a caller supplies (group, version, resource, namespace, name, subresource) is
 * validated as apimachinery's `IsValidPathSegmentName` does, plus: no empty segments and no
 * control characters, so a name can never walk to another path or inject into the request line.
 */
import { KdynError } from '../core/errors.js';
import type { GroupVersionResource } from '../core/gvk.js';
import type { Query } from '../transport/types.js';

/** A path segment that is not allowed (`..`, contains `/` or `%`, empty, control characters). */
export class InvalidPathSegmentError extends KdynError {}

export interface ResourcePath {
  gvr: GroupVersionResource;
  /** '' or undefined: no namespace segment (cluster-scoped, or a list across all namespaces). */
  namespace?: string;
  name?: string;
  /** `status`, `scale`, ... (only with a name). */
  subresource?: string;
}

/**
 * Why `segment` is not a valid path segment, or undefined when it is.
 * apimachinery `path.IsValidPathSegmentName`: not `.`/`..`, no `/` or `%`.
 */
export function pathSegmentProblem(segment: string): string | undefined {
  if (segment === '') return 'may not be empty';
  if (segment === '.' || segment === '..') return `may not be '${segment}'`;
  if (segment.includes('/')) return "may not contain '/'";
  if (segment.includes('%')) return "may not contain '%'";
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(segment)) return 'may not contain control characters';
  return undefined;
}

function check(what: string, value: string): string {
  const problem = pathSegmentProblem(value);
  if (problem) throw new InvalidPathSegmentError(`invalid ${what} ${JSON.stringify(value)}: ${problem}`);
  return value;
}

/**
 * `/api/v1/namespaces/ns/configmaps/name/status` or `/apis/g/v/...`.
 * Throws InvalidPathSegmentError for a bad segment, before any request is made.
 */
export function resourcePath(p: ResourcePath): string {
  const { gvr } = p;
  const parts: string[] = gvr.group === '' ? ['api'] : ['apis', check('group', gvr.group)];
  parts.push(check('version', gvr.version));
  if (p.namespace) parts.push('namespaces', check('namespace', p.namespace));
  parts.push(check('resource', gvr.resource));
  if (p.name !== undefined) parts.push(check('name', p.name));
  if (p.subresource !== undefined) {
    if (p.name === undefined) throw new InvalidPathSegmentError(`subresource ${JSON.stringify(p.subresource)} needs an object name`);
    parts.push(check('subresource', p.subresource));
  }
  return '/' + parts.join('/');
}

/** Query-string building: undefined and '' values are left out (as client-go's ListOptions encoding). */
export function compactQuery(q: Record<string, string | number | boolean | undefined>): Query {
  const out: Query = {};
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === '') continue;
    out[k] = v;
  }
  return out;
}

/** `?a=1&b=x%3Dy` for messages and tests (the transport builds the real one). */
export function formatQuery(q: Query): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}
