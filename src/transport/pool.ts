/**
 * Keep-alive connections to one cluster (one Dialer): idle sockets are reused last-in first-out and
 * unref'd while idle so they never keep a process alive (one the server closed is skipped at the next
 * acquire); `preconnect()` opens one connection ahead
 * of the first request, so the TCP and TLS handshakes overlap the work a command does before it
 * asks (reading the discovery cache, resolving names). No limit on concurrent connections: kdyn's
 * widest fan-out (legacy discovery) is bounded by its caller.
 */
import type { Socket } from 'node:net';
import type { Dialer } from './dial.js';

export class ConnectionPool {
  private readonly idle: Socket[] = [];
  private readonly busy = new Set<Socket>();
  private warm: Promise<Socket> | undefined;
  private closed = false;

  constructor(private readonly dialer: Dialer) {}

  get absoluteTarget(): URL | undefined {
    return this.dialer.absoluteTarget;
  }

  /** Starts a connection for the next request, unless one is idle or already on its way. */
  preconnect(): void {
    if (this.closed || this.warm || this.idle.length > 0) return;
    const warm = this.dialer.dial();
    // A failure is reported by the request that takes this connection.
    warm.then(
      (s) => {
        s.on('error', ignore);
        if (this.warm === warm) s.unref();
      },
      () => undefined,
    );
    this.warm = warm;
  }

  async acquire(): Promise<Socket> {
    if (this.closed) throw poolClosed();
    let s: Socket | undefined;
    while ((s = this.idle.pop()) && s.destroyed);
    if (!s) {
      const warm = this.warm;
      this.warm = undefined;
      s = await (warm ?? this.dialer.dial());
      if (s.destroyed) s = await this.dialer.dial(); // the server closed the preconnected socket
      if (this.closed) {
        s.destroy();
        throw poolClosed();
      }
    }
    s.removeListener('error', ignore);
    s.ref();
    this.busy.add(s);
    return s;
  }

  /** Hands a socket back after an exchange; only a socket whose exchange completed cleanly is kept. */
  release(s: Socket, reusable: boolean): void {
    this.busy.delete(s);
    if (!reusable || this.closed || s.destroyed) {
      s.destroy();
      return;
    }
    s.unref();
    s.on('error', ignore);
    this.idle.push(s);
  }

  /** Destroys every connection, idle, busy or still being opened. */
  close(): void {
    this.closed = true;
    for (const s of this.idle.splice(0)) s.destroy();
    for (const s of this.busy) s.destroy();
    this.busy.clear();
    this.warm?.then((s) => s.destroy(), () => undefined);
    this.warm = undefined;
  }
}

function poolClosed(): Error {
  return Object.assign(new Error('the connection pool is closed'), { code: 'ERR_KDYN_POOL_CLOSED' });
}

function ignore(): void {
  // An idle connection's error (the server closed it) is noticed at the next use.
}
