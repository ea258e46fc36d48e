// Small HTTP helpers for the local API server's own tests (real sockets, global fetch over http).
import type { LocalApiServer } from '../../support/apiserver/server.js';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface CallOptions {
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string;
  headers?: Record<string, string>;
  /** 'admin' (default), 'viewer' (read-only), 'none', or a literal token. */
  as?: 'admin' | 'viewer' | 'none' | { token: string };
}

export async function call(server: LocalApiServer, method: string, path: string, o: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  const as = o.as ?? 'admin';
  if (as === 'admin') headers.authorization = `Bearer ${server.token}`;
  else if (as === 'viewer') headers.authorization = `Bearer ${server.readOnlyToken}`;
  else if (as !== 'none') headers.authorization = `Bearer ${as.token}`;
  let body: string | undefined = o.raw;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(server.url + path, { method, headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export function configMap(name: string, namespace: string, data: Record<string, string> = { a: '1' }, labels?: Record<string, string>): Record<string, any> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...(labels ? { labels } : {}) }, data };
}
