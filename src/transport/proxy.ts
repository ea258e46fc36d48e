/**
 * Proxy selection and CONNECT tunnelling.
 * - The cluster's `proxy-url` (kubeconfig) applies to every request, loopback included.
 * - Otherwise HTTPS_PROXY (https servers) / HTTP_PROXY (http servers) and NO_PROXY, upper- or
 *   lower-case, with Go's rules (golang.org/x/net/http/httpproxy): `localhost` and loopback IPs are
 *   never proxied; NO_PROXY entries are `*`, hosts (`example.com` matches it and its subdomains,
 *   `.example.com` only subdomains), `host:port`, IPs and CIDRs.
 */
import { BlockList, connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { hostPort, selfConnectRefusal, setGoSocketOptions } from './tcp-socket.js';
import { ConfigError } from '../core/errors.js';

export interface ProxyChoice {
  url: URL;
  /** Where it came from, for -v logs (the URL is logged without credentials). */
  source: 'proxy-url' | 'env';
}

function envAny(env: Record<string, string | undefined>, ...names: string[]): string | undefined {
  for (const n of names) if (env[n]) return env[n];
  return undefined;
}

function parseProxy(raw: string, what: string): URL {
  let u: URL | undefined;
  try {
    u = new URL(raw);
    if (!u.host) u = undefined;
  } catch {
    u = undefined;
  }
  if (!u || !/^[a-z][a-z0-9+.-]*:$/.test(u.protocol) || !u.host) {
    try {
      u = new URL(`http://${raw}`);
    } catch {
      throw new ConfigError(`invalid proxy address in ${what}`);
    }
  }
  if (u.protocol === 'socks5:' || u.protocol === 'socks5h:' || u.protocol === 'socks:') {
    throw new ConfigError(`${what}: socks5 proxies are not supported by kdyn (use an http or https proxy)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ConfigError(`${what}: unsupported proxy scheme "${u.protocol.replace(/:$/, '')}"`);
  }
  return u;
}

export function selectProxy(server: string, proxyUrl: string | undefined, env: Record<string, string | undefined>): ProxyChoice | undefined {
  if (proxyUrl) return { url: parseProxy(proxyUrl, 'the cluster\'s proxy-url'), source: 'proxy-url' };
  const target = new URL(server);
  const https = target.protocol === 'https:';
  const raw = https ? envAny(env, 'HTTPS_PROXY', 'https_proxy') : envAny(env, 'HTTP_PROXY', 'http_proxy');
  if (!raw) return undefined;
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = target.port || (https ? '443' : '80');
  if (!useProxy(host, port, envAny(env, 'NO_PROXY', 'no_proxy') ?? '')) return undefined;
  return { url: parseProxy(raw, https ? 'HTTPS_PROXY' : 'HTTP_PROXY'), source: 'env' };
}

/** Go's httpproxy.useProxy: false when the host must be reached directly. */
export function useProxy(host: string, port: string, noProxy: string): boolean {
  if (host === 'localhost') return false;
  const ip = isIP(host) ? host : undefined;
  if (ip && isLoopback(ip)) return false;
  for (let entry of noProxy.split(',')) {
    entry = entry.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return false;
    if (entry.includes('/')) {
      if (ip && inCidr(ip, entry)) return false;
      continue;
    }
    let eHost = entry;
    let ePort = '';
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry);
    if (m) {
      eHost = m[1]!;
      ePort = m[2]!;
    }
    eHost = eHost.replace(/^\[|\]$/g, '');
    if (isIP(eHost)) {
      if (ip && eHost === ip && (!ePort || ePort === port)) return false;
      continue;
    }
    if (eHost.startsWith('*.')) eHost = eHost.slice(1);
    const matchHost = !eHost.startsWith('.');
    const suffix = matchHost ? `.${eHost}` : eHost;
    if ((host.endsWith(suffix) || (matchHost && host === eHost)) && (!ePort || ePort === port)) return false;
  }
  return true;
}

function isLoopback(ip: string): boolean {
  return ip === '::1' || /^127\./.test(ip) || /^::ffff:127\./i.test(ip);
}

export function inCidr(ip: string, cidr: string): boolean {
  const [net, bitsStr = ''] = cidr.split('/');
  const family = isIP(net ?? '');
  const bits = Number(bitsStr);
  if (!family || family !== isIP(ip) || !/^\d+$/.test(bitsStr) || bits > (family === 4 ? 32 : 128)) return false;
  const list = new BlockList();
  list.addSubnet(net!, bits, family === 4 ? 'ipv4' : 'ipv6');
  return list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** `Proxy-Authorization` for a proxy URL with user:password (never logged). */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  return `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
}

/** The proxy's address for messages and logs: scheme://host:port, no credentials. */
export function proxyDisplay(proxy: URL): string {
  return `${proxy.protocol}//${proxy.host}`;
}

/** Bounds of the phases of a tunnel: TCP connect, TLS to an https proxy, the answer to CONNECT. */
export interface TunnelTimeouts {
  dialMs: number;
  tlsHandshakeMs: number;
  proxyConnectMs: number;
}

/**
 * Opens a tunnel through an http(s) proxy with CONNECT and resolves with the raw socket to
 * `host:port` (the caller starts TLS over it). Each phase is bounded as net/http bounds it, with
 * its messages (`proxyconnect tcp: ...`).
 */
export function connectTunnel(
  proxy: URL,
  host: string,
  port: number,
  proxyTls: { ca?: Buffer; rejectUnauthorized: boolean },
  timeouts: TunnelTimeouts = { dialMs: 30_000, tlsHandshakeMs: 10_000, proxyConnectMs: 60_000 },
  open: (host: string, port: number) => Socket = (h, p) => netConnect({ host: h, port: p }),
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const pPort = Number(proxy.port || (proxy.protocol === 'https:' ? 443 : 80));
    const pHost = proxy.hostname.replace(/^\[|\]$/g, '');
    const tcp = open(pHost, pPort);
    setGoSocketOptions(tcp);
    // The CONNECT exchange runs on `socket`: the TCP connection, or TLS over it for an https proxy.
    let socket: Socket = tcp;
    const authority = hostPort(host, port);
    const proxyAddr = hostPort(pHost, pPort);
    let buf = Buffer.alloc(0);
    let timer: NodeJS.Timeout | undefined;
    const phase = (ms: number, message: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => fail(proxyError(message)), ms);
    };
    const fail = (e: Error) => {
      clearTimeout(timer);
      socket.destroy();
      tcp.destroy();
      reject(e);
    };
    phase(timeouts.dialMs, `proxyconnect tcp: dial tcp ${proxyAddr}: i/o timeout`);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > 16384) fail(proxyError(`proxyconnect: the proxy ${proxyDisplay(proxy)} sent an oversized response to CONNECT`));
        return;
      }
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', onError);
      tcp.off('error', onError);
      const statusLine = buf.subarray(0, buf.indexOf('\r\n')).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
      if (!m || m[1] !== '200') {
        fail(proxyError(`proxyconnect: the proxy ${proxyDisplay(proxy)} refused to tunnel to ${authority}: ${statusLine.replace(/^HTTP\/1\.[01] /, '') || 'malformed response'}`));
        return;
      }
      const rest = buf.subarray(end + 4);
      if (rest.length) socket.unshift(rest);
      resolve(socket);
    };
    const onError = (e: NodeJS.ErrnoException) => fail(e);
    tcp.on('error', onError);
    const auth = proxyAuthorization(proxy);
    const send = () => {
      phase(timeouts.proxyConnectMs, 'proxyconnect tcp: context deadline exceeded');
      socket.on('data', onData);
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`);
    };
    tcp.once('connect', () => {
      const refusal = selfConnectRefusal(tcp, pHost, pPort);
      if (refusal) return fail(refusal);
      if (proxy.protocol !== 'https:') return send();
      phase(timeouts.tlsHandshakeMs, 'proxyconnect tcp: net/http: TLS handshake timeout');
      socket = tlsConnect({ socket: tcp, host: pHost, servername: isIP(pHost) ? undefined : pHost, ...(proxyTls.ca ? { ca: proxyTls.ca } : {}), rejectUnauthorized: proxyTls.rejectUnauthorized });
      socket.on('error', onError);
      socket.once('secureConnect', send);
    });
  });
}

function proxyError(message: string): Error {
  return Object.assign(new Error(message), { code: 'EPROXY' });
}
