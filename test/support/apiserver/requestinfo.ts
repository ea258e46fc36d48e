/**
 * Parses a request path the way k8s.io/apiserver's RequestInfoFactory does (purely from the URL, no
 * catalog), so that authorization and routing agree on verb, group, version, namespace and resource.
 */
export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string; // get list watch create update patch delete deletecollection (or the lower-cased method for non-resource paths)
  apiPrefix: string; // 'api' | 'apis'
  group: string;
  version: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    group: '',
    version: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  let parts = path.replace(/^\/+|\/+$/g, '').split('/').filter((p, _i, a) => !(p === '' && a.length === 1));
  if (parts.length === 0) return info;
  const prefix = parts[0]!;
  if (prefix !== 'api' && prefix !== 'apis') return info;
  info.apiPrefix = prefix;
  parts = parts.slice(1);
  if (prefix === 'apis') {
    if (parts.length < 3) return info; // /apis, /apis/g, /apis/g/v are discovery
    info.group = parts[0]!;
    parts = parts.slice(1);
  } else if (parts.length < 2) {
    return info; // /api, /api/v1
  }
  info.version = parts[0]!;
  parts = parts.slice(1);
  info.isResourceRequest = true;
  switch (method) {
    case 'POST':
      info.verb = 'create';
      break;
    case 'GET':
    case 'HEAD':
      info.verb = 'get';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = 'delete';
      break;
    default:
      info.verb = '';
  }
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = decodeURIComponent(parts[1]!);
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
    }
  }
  info.parts = parts.map((p) => decodeURIComponent(p));
  if (info.parts.length >= 3) info.subresource = info.parts[2]!;
  if (info.parts.length >= 2) info.name = info.parts[1]!;
  if (info.parts.length >= 1) info.resource = info.parts[0]!;
  if (info.name === '' && info.verb === 'get') info.verb = 'list';
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  const watch = query.get('watch');
  if ((info.verb === 'list' || info.verb === 'get') && (watch === 'true' || watch === '1')) info.verb = 'watch';
  return info;
}

/** `User "x" cannot list resource "configmaps" in API group "" in the namespace "ns"` (authorizer's forbiddenMessage). */
export function forbiddenMessage(user: string, info: RequestInfo): string {
  if (!info.isResourceRequest) return `User "${user}" cannot ${info.verb} path "${info.path}"`;
  const res = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  const where = info.namespace ? `in the namespace "${info.namespace}"` : 'at the cluster scope';
  return `User "${user}" cannot ${info.verb} resource "${res}" in API group "${info.group}" ${where}`;
}
