/** In-memory IO for command tests: what a command wrote to stdout and stderr. */
import type { IO } from '../../src/core/io.js';

export function memoryIO(env: Record<string, string | undefined> = {}, cwd = process.cwd()): IO & { out(): string; err(): string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s: string) => { out += s; return true; } },
    stderr: { write: (s: string) => { err += s; return true; } },
    env,
    cwd,
    out: () => out,
    err: () => err,
  };
}
