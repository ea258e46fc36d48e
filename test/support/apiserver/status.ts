/** `Status` bodies and plain responses as kube-apiserver writes them. */
import type { Obj, RawResponse } from './types.js';

export const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-cache, private' };

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: Array<{ reason?: string; message?: string; field?: string }>;
  retryAfterSeconds?: number;
}

/**
 * The `metav1.StatusReason` kube-apiserver writes for an HTTP status when the handler names no
 * other (k8s.io/apimachinery pkg/apis/meta/v1/types.go, the StatusReason constants and the codes
 * their comments give; 410 is `Expired`, as a too-old resourceVersion answers in recording 32).
 * The server's own table, kept apart from the client's on purpose.
 */
const REASON_FOR_CODE: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export function reasonFor(code: number): string {
  return REASON_FOR_CODE[code] ?? 'Unknown';
}

/** Thrown by handlers; the pipeline turns it into a Status response. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly reason: string = reasonFor(code),
    readonly details?: StatusDetails,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  toStatus(): Obj {
    return statusBody(this.code, this.message, this.reason, this.details);
  }
}

export function statusBody(code: number, message: string | undefined, reason?: string, details?: StatusDetails): Obj {
  const s: Obj = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure' };
  if (message !== undefined) s.message = message;
  if (reason) s.reason = reason;
  if (details) {
    const d: Obj = {};
    for (const k of ['name', 'group', 'kind', 'uid', 'causes', 'retryAfterSeconds'] as const) {
      const v = details[k];
      if (v !== undefined && v !== '') d[k] = v;
    }
    s.details = d;
  }
  s.code = code;
  return s;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): RawResponse {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

export function statusResponse(e: ApiError): RawResponse {
  const extra: Record<string, string> = { ...e.headers };
  if (e.code === 403) extra['x-content-type-options'] = 'nosniff';
  return json(e.code, e.toStatus(), extra);
}

export function pageNotFound(): RawResponse {
  return {
    status: 404,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache, private' },
    body: '404 page not found\n',
  };
}

/** `crontabs.stable.example.com` / `configmaps`: how the server names a resource in messages. */
export function qualified(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

export function notFound(group: string, resource: string, name: string): ApiError {
  return new ApiError(404, `${qualified(group, resource)} "${name}" not found`, 'NotFound', { name, group, kind: resource });
}

export function alreadyExists(group: string, resource: string, name: string): ApiError {
  return new ApiError(409, `${qualified(group, resource)} "${name}" already exists`, 'AlreadyExists', { name, group, kind: resource });
}

export function conflict(group: string, resource: string, name: string, why: string): ApiError {
  return new ApiError(409, `Operation cannot be fulfilled on ${qualified(group, resource)} "${name}": ${why}`, 'Conflict', {
    name,
    group,
    kind: resource,
  });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, message, 'BadRequest');
}

/** 422 Invalid with field causes, as `apierrors.NewInvalid`. */
export function invalid(group: string, kind: string, name: string, causes: Array<{ field: string; type: string; message: string; detail: string }>): ApiError {
  const msgs = causes.map((c) => `${c.field}: ${c.detail}`);
  const agg = msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
  return new ApiError(422, `${kind}${group ? '.' + group : ''} "${name}" is invalid: ${agg}`, 'Invalid', {
    name,
    group,
    kind,
    causes: causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })),
  });
}
