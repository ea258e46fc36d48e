/**
 * The documentation's TypeScript examples, taken from the pages themselves (README.md and
 * docs/library.md) and run as written, so a test can never pass against a copy that has drifted from
 * the docs. An example runs in a child process as a user's script would: `import ... from 'kdyn'`
 * loads the package's entry point (package.json "exports", the built dist/lib), `process.env` is the
 * environment given, relative paths resolve against `cwd`, and what it prints on stdout and stderr is
 * what the test checks.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transformSync } from 'esbuild';
import { repoRoot } from './cli.js';

/** The pages whose ```ts blocks are examples, relative to the repository root. */
export const EXAMPLE_PAGES = ['README.md', 'docs/library.md'];

/** The ```lang blocks of one page (relative to the repository). */
export function codeBlocks(page: string, lang = 'ts'): string[] {
  const text = readFileSync(join(repoRoot(), page), 'utf8');
  return [...text.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!);
}

/** The one ```lang block of `file` (relative to the repository) that contains `marker`. */
export function docBlock(file: string, lang: string, marker: string): string {
  const found = codeBlocks(file, lang).filter((b) => b.includes(marker));
  if (found.length !== 1) throw new Error(`${file} has ${found.length} ${lang} blocks containing ${JSON.stringify(marker)}, expected 1`);
  return found[0]!;
}

/** The one ```ts block of the example pages that contains `marker` (a line of the example, verbatim). */
export function docsExample(marker: string): string {
  const found = EXAMPLE_PAGES.flatMap((page) => codeBlocks(page).filter((b) => b.includes(marker)));
  if (found.length !== 1) throw new Error(`${EXAMPLE_PAGES.join(' and ')} have ${found.length} TypeScript examples containing ${JSON.stringify(marker)}, expected 1`);
  return found[0]!;
}

export interface ExampleRun {
  code: number | null;
  out: string;
  err: string;
}

export interface ExampleOptions {
  /** The script's directory and working directory. */
  cwd: string;
  /** Its whole environment (PATH is added). */
  env: Record<string, string>;
  /** Called with each complete line the example prints on stdout, as it prints it. */
  onLine?: (line: string) => void;
  /** Hang guard: killed after this long (default 60 s). */
  timeoutMs?: number;
  /** Sends the example SIGTERM when aborted (a long-running example, such as a controller). */
  stop?: AbortSignal;
  /** Told the example's pid once it started. */
  onStart?: (pid: number) => void;
}

/** Runs a documentation example (TypeScript, top-level await) as an ES module script. */
export function runExample(source: string, o: ExampleOptions): Promise<ExampleRun> {
  const pkg = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as { exports: { '.': { import: string } } };
  const entry = pathToFileURL(join(repoRoot(), pkg.exports['.'].import)).href;
  const js = transformSync(source, { loader: 'ts', format: 'esm' }).code.replace(/(from\s+)(['"])kdyn\2/g, `$1'${entry}'`);
  const file = join(o.cwd, 'readme-example.mjs');
  writeFileSync(file, js);
  const child = spawn(process.execPath, [file], { cwd: o.cwd, env: { PATH: process.env.PATH ?? '', ...o.env }, timeout: o.timeoutMs ?? 60_000 });
  if (child.pid !== undefined) o.onStart?.(child.pid);
  let out = '';
  let err = '';
  let pending = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) o.onLine?.(line);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  o.stop?.addEventListener('abort', () => child.kill('SIGTERM'), { once: true });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}
