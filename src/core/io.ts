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
