/**
 * What Go does to every TCP connection it makes, shared by the direct dial (./dial.ts) and the
 * connection to a proxy (./proxy.ts).
 */
import { isIP, type Socket } from 'node:net';
import { constants as osConstants } from 'node:os';

/**
 * TCP_NODELAY, as Go sets on every connection: kdyn writes a request (or the TLS flight the gate
 * held) in pieces, and with Nagle's algorithm a small piece waits for the server's delayed ACK,
 * 40 ms on Linux. Set on the TCP socket itself, it also covers TLS over a JS stream (./gate.ts).
 */
export function setGoSocketOptions(s: Socket): void {
  s.setNoDelay(true);
}

/**
 * On 'connect': a connection to itself is reset and reported as the refusal it stands for;
 * undefined for any other connection.
 *
 * On Linux, a connect() to a port nothing listens on, inside the ephemeral range on the same host,
 * can get that port as its source: the SYN meets itself (simultaneous open) and the connect
 * succeeds. A watcher retrying through an outage can get there; the request would then read itself,
 * and while the socket lives the port is taken: the server cannot listen again. Go closes such a
 * connection (net/tcpsock_posix.go, selfConnect) and dials again, which can only be refused
 * (nothing listened): kdyn reports the refusal at once, so the watcher's fast retry sees the server
 * unreachable and the port is free again. Reset, not closed: a close leaves the port in TIME_WAIT,
 * and the server could not listen on it for a minute.
 */
export function selfConnectRefusal(s: Socket, host: string, port: number): Error | undefined {
  if (s.localPort === undefined || s.localPort !== s.remotePort || s.localAddress !== s.remoteAddress) return undefined;
  s.on('error', () => undefined);
  s.resetAndDestroy();
  const address = s.remoteAddress ?? host;
  return Object.assign(new Error(`connect ECONNREFUSED ${address}:${port}`), { code: 'ECONNREFUSED', errno: -osConstants.errno.ECONNREFUSED, syscall: 'connect', address, port });
}

/** `host:port`, an IPv6 literal in brackets, as Go's net.JoinHostPort. */
export function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
