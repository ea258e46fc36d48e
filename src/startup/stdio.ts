/**
 * kdyn's stdout/stderr: direct writes to file descriptors 1 and 2.
 *
 * Node builds process.stdout lazily, and for a pipe (`kdyn get ... | jq`) that loads the net module
 * and creates a libuv pipe handle: 2-12 ms of start-up measured on the project's machines, against a
 * budget of a few ms; process.stdin costs 2-8 ms more. A CLI does not need streams to print: a
 * blocking write(2) per chunk, as kubectl does, keeps memory flat too (no stream buffering).
 * If the descriptor turns out to be non-blocking (EAGAIN: a parent shared an O_NONBLOCK pipe), the
 * writer falls back to Node's stream for the rest, which handles that case. EPIPE (the reader went
 * away: `kdyn get ... | head`) is not kdyn's failure: `onEpipe` decides (the CLI exits 0). So is
 * ECONNRESET: the same event when the parent's "pipe" is a socket pair (Node's and libuv's child
 * stdio on Linux) and the reader closed it with data still unread.
 */
import { writeSync } from 'node:fs';
import type { Output } from '../core/io.js';

export function fdOutput(fd: 1 | 2, fallback: () => NodeJS.WritableStream, onEpipe: () => never): Output {
  let stream: NodeJS.WritableStream | undefined;
  return {
    write(chunk: string): boolean {
      if (stream) return stream.write(chunk);
      const buf = Buffer.from(chunk, 'utf8');
      let off = 0;
      while (off < buf.length) {
        try {
          off += writeSync(fd, buf, off, buf.length - off);
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code === 'EPIPE' || code === 'ECONNRESET') onEpipe();
          if (code !== 'EAGAIN') throw e;
          stream = fallback();
          return stream.write(buf.subarray(off));
        }
      }
      return true;
    },
  };
}
