/**
 * A TCP port that forwards to another one while open, and refuses connections while closed: the
 * outage cases (bench/cases/real-outage.ts) point the tools at it, so that "the server is back" is
 * one moment, after /readyz says ok. Without it a restarting kube-apiserver accepts connections some
 * seconds before it is ready (~6-10 s on these machines), and a watch that happens to retry in that
 * window is back before the object is made, whatever its retry policy.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export class PortGate {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** Connections accepted so far (each one a client's attempt; the informer tests bound them during an outage). */
  accepted = 0;

  constructor(
    /** The port the tools connect to (127.0.0.1). */
    readonly port: number,
    /** Where connections go while the gate is open (127.0.0.1). */
    private readonly target: number,
  ) {}

  get isOpen(): boolean {
    return this.server !== undefined;
  }

  /** Starts accepting connections on `port`, each piped to `target`. */
  open(): Promise<void> {
    if (this.server) return Promise.resolve();
    const server = createServer((client) => this.forward(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
  }

  /** Stops listening (new connections are refused) and drops every forwarded connection. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.dropConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Cuts every forwarded connection (as a dropped network), still accepting new ones. */
  dropConnections(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  private forward(client: Socket): void {
    this.accepted++;
    const upstream = connect(this.target, '127.0.0.1');
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      this.sockets.add(s);
      s.once('close', () => {
        this.sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
      s.on('error', () => undefined); // ends in 'close'
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
