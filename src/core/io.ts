/** Where a command's output goes and what it may read from its environment. Only src/cli builds the real one. */
export interface Output {
  write(chunk: string): unknown;
}

export interface IO {
  stdout: Output;
  stderr: Output;
  /** Standard input, for `-f -`. */
  stdin?: NodeJS.ReadableStream;
  /** Whether stdin is a terminal (exec plugins' interactiveMode), known without opening the stream. */
  stdinIsTTY?: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
}

/** In-memory IO for tests. */
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
