/**
 * Running the built CLI (`node bin/kdyn`) and kubectl as child processes in tests. Asynchronous on
 * purpose: the local API server usually runs in the test's own process, so a blocking spawnSync
 * would deadlock it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's root (the nearest directory with a package.json above this file, built or not). */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above test/support');
    dir = up;
  }
  return dir;
}

/** bin/kdyn: run it with `process.execPath` (see runKdyn). */
export const KDYN = join(repoRoot(), 'bin', 'kdyn');

let kubectlFound: boolean | undefined;
/** Whether `kubectl` runs from PATH (checked once). Tests that need it skip with 'kubectl not on PATH'. */
export function hasKubectl(): boolean {
  return (kubectlFound ??= spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0);
}

export interface Run {
  /** The exit status; -1 when the process could not start or ended by a signal (e.g. the timeout). */
  code: number;
  out: string;
  err: string;
}

export interface RunOptions {
  /** The child's whole environment (nothing is inherited). */
  env: Record<string, string | undefined>;
  cwd?: string;
  /** Killed after this long (default 60 s). */
  timeoutMs?: number;
  /** The signal the timeout sends (default SIGTERM, which kdyn handles in JS: SIGKILL for a process that may be stuck in a synchronous loop). */
  killSignal?: NodeJS.Signals;
  /** Written to the child's stdin, which is then closed (default: stdin closed at once). */
  stdin?: string | Buffer;
  /** Called with all of stdout so far each time more arrives (to act while the child runs). */
  onStdout?: (soFar: string) => void;
  /** Run as this user and group id (the parent must be root). */
  uid?: number;
  gid?: number;
}

/** Runs `cmd args`, collecting stdout and stderr as UTF-8 text. */
export function runCommand(cmd: string, args: readonly string[], opts: RunOptions): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: opts.env, cwd: opts.cwd, timeout: opts.timeoutMs ?? 60_000, killSignal: opts.killSignal, uid: opts.uid, gid: opts.gid });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      opts.onStdout?.(out);
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('error', (e) => {
      err += `${e.message}\n`;
    });
    child.stdin.on('error', () => undefined); // the child may exit before reading it all
    child.stdin.end(opts.stdin ?? '');
    child.on('close', (code) => resolve({ code: code === null || code < 0 ? -1 : code, out, err }));
  });
}

/** Runs the built CLI: `node bin/kdyn ...args`. */
export function runKdyn(args: readonly string[], opts: RunOptions): Promise<Run> {
  return runCommand(process.execPath, [KDYN, ...args], opts);
}
