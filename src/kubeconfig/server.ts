/** Server URL validation as client-go's DefaultServerURL (rest/url_utils.go) and transport checks. */
import { ConfigError } from '../core/errors.js';
import type { TLSConfig } from './types.js';

/**
 * `host:port` without a scheme gets `https://` when any TLS setting is present, else `http://`.
 * Returns the URL without a trailing slash (a path prefix is kept: some proxies serve under one).
 */
export function validateServer(raw: string, tls: TLSConfig): string {
  const defaultTLS = !!(tls.caData || tls.certData || tls.insecure || tls.serverName);
  let u = tryParse(raw);
  if ((!u || !u.host) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) u = tryParse(`${defaultTLS ? 'https' : 'http'}://${raw}`);
  if (!u || !u.host) throw new ConfigError(`host must be a URL or a host:port pair: "${raw}"`);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ConfigError(`unsupported protocol scheme "${u.protocol.replace(/:$/, '')}" in the server URL (use https:// or http://)`);
  }
  if (u.username || u.password) throw new ConfigError('the server URL must not contain credentials');
  if (u.search || u.hash) throw new ConfigError(`the server URL must not have a query or fragment: "${u.origin}${u.pathname}"`);
  const path = u.pathname.replace(/\/+$/, '');
  // Keep an explicit default port as written (`https://10.0.0.1:443`), as Go's url.URL.Host does.
  const written = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw.includes('://') ? raw : `x://${raw}`)?.[1]?.toLowerCase();
  const host = written && new URL(`${u.protocol}//${written}`).host === u.host ? written : u.host;
  return `${u.protocol}//${host}${path}`;
}

function tryParse(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
}
