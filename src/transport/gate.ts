/**
 * A stream between a TLS client and its TCP socket that lets the ClientHello out and holds every
 * later client byte until the server has been verified. Why: Node's OpenSSL verify callback
 * accepts every chain and the verdict is applied in JS after the handshake, by which time the
 * client's second flight (its Certificate, e.g. `O=system:masters`) has left. Go's TLS client
 * aborts before sending it; with the gate, so does kdyn.
 *
 * - Passed through: records that are plaintext ClientHellos (content type 22, handshake type 1,
 *   again after a HelloRetryRequest) or ChangeCipherSpec (a fixed byte, TLS 1.3 middlebox compat).
 * - Held: anything else, from the first such record on. `held` fires once then (asynchronously).
 *   TLS 1.3 completes the client side of the handshake without the server's answer, so the
 *   caller verifies at `secureConnect`; TLS 1.2 needs the server's answer to the held flight, so
 *   the caller verifies at `held`, when OpenSSL has read and checked the server's Certificate.
 * - `open()` sends what was held and passes everything after; `destroy()` drops it unsent.
 */
import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

export class ClientFlightGate extends Duplex {
  private held: Buffer[] = [];
  private state: 'hello' | 'held' | 'open' = 'hello';

  constructor(private readonly tcp: Socket) {
    super();
    tcp.on('data', (b: Buffer) => {
      if (!this.push(b)) tcp.pause();
    });
    tcp.on('end', () => this.push(null));
    tcp.on('error', (e) => this.destroy(e));
    tcp.on('close', () => {
      if (!this.destroyed) this.destroy();
    });
  }

  /** Bytes held back so far (for tests). */
  get heldBytes(): number {
    return this.held.reduce((n, b) => n + b.length, 0);
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** Sends what was held, in one write (one segment with TCP_NODELAY); later writes pass straight through. */
  open(): void {
    if (this.state === 'open' || this.destroyed) return;
    this.state = 'open';
    const held = this.held.splice(0);
    if (held.length) this.tcp.write(held.length === 1 ? held[0]! : Buffer.concat(held));
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    if (this.state === 'open') {
      this.tcp.write(chunk, cb);
      return;
    }
    if (this.state === 'hello' && onlyHelloRecords(chunk)) {
      this.tcp.write(chunk);
      cb();
      return;
    }
    if (this.state === 'hello') {
      this.state = 'held';
      setImmediate(() => this.emit('held'));
    }
    this.held.push(chunk);
    cb();
  }

  override _read(): void {
    this.tcp.resume();
  }

  override _final(cb: (e?: Error | null) => void): void {
    if (this.state === 'open') this.tcp.end();
    else this.tcp.destroy();
    cb();
  }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    this.held = [];
    this.tcp.destroy();
    cb(err);
  }
}

/** True when `chunk` is whole TLS records, each a plaintext ClientHello or a ChangeCipherSpec. */
export function onlyHelloRecords(chunk: Buffer): boolean {
  let p = 0;
  while (p < chunk.length) {
    if (p + 5 > chunk.length) return false;
    const type = chunk[p]!;
    const len = chunk.readUInt16BE(p + 3);
    if (p + 5 + len > chunk.length) return false;
    const ok = (type === 22 && len > 0 && chunk[p + 5] === 1) || (type === 20 && len === 1);
    if (!ok) return false;
    p += 5 + len;
  }
  return p > 0;
}
