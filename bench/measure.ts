/**
 * Running one process and measuring it.
 *
 * Wall time: process.hrtime from spawn() to the child's 'exit' event, stdout and stderr to /dev/null
 * (so neither tool pays for a pipe the other does not), the same for kdyn and the baseline.
 *
 * Peak memory: GNU time's `%M` (the child's ru_maxrss from wait4, in KiB) when /usr/bin/time exists
 * (apt package `time`); it execs the command, so the figure is that process's own high-water mark
 * (bin/kdyn's `#!/usr/bin/env node` execs node in the same pid). Without it, the harness polls
 * /proc/<pid>/status VmHWM every 2 ms; VmHWM is itself a high-water mark, so only growth in the last
 * poll interval before exit can be missed. process.resourceUsage() cannot be used: it reports the
 * harness, not the child.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RunSpec {
  argv: string[];
  env: Record<string, string>;
  cwd?: string;
}

export interface RunOptions {
  /** Capture stdout/stderr (for the warm-up run's checks) instead of /dev/null. */
  capture?: boolean;
  rss?: boolean;
  timeoutMs?: number;
}

export interface RunOutcome {
  ms: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  rssKb?: number;
  stdoutBytes?: number;
  stdoutLines?: number;
  stderr?: string;
}

const GNU_TIME = '/usr/bin/time';

/** How peak memory is measured on this machine (reported in the output). */
export function rssMethod(): string {
  return hasGnuTime() ? '/usr/bin/time -f %M (ru_maxrss)' : '/proc/<pid>/status VmHWM polled every 2 ms';
}

let gnuTime: boolean | undefined;
function hasGnuTime(): boolean {
  return (gnuTime ??= existsSync(GNU_TIME));
}

export function runOnce(spec: RunSpec, opts: RunOptions = {}): Promise<RunOutcome> {
  let argv = spec.argv;
  let timeFile: string | undefined;
  let timeDir: string | undefined;
  if (opts.rss && hasGnuTime()) {
    timeDir = mkdtempSync(join(tmpdir(), 'kdyn-bench-time-'));
    timeFile = join(timeDir, 'rss');
    argv = [GNU_TIME, '-f', '%M', '-o', timeFile, ...argv];
  }
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(argv[0]!, argv.slice(1), {
      env: spec.env,
      cwd: spec.cwd,
      stdio: opts.capture ? ['ignore', 'pipe', 'pipe'] : 'ignore',
    });
    let stdoutBytes = 0;
    let stdoutLines = 0;
    let stderr = '';
    if (opts.capture) {
      child.stdout!.on('data', (b: Buffer) => {
        stdoutBytes += b.length;
        for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) stdoutLines++;
      });
      child.stderr!.on('data', (b: Buffer) => {
        if (stderr.length < 64 * 1024) stderr += b.toString();
      });
    }
    let hwm = 0;
    let poll: NodeJS.Timeout | undefined;
    if (opts.rss && !timeFile && child.pid) {
      const status = `/proc/${child.pid}/status`;
      poll = setInterval(() => {
        try {
          const m = /VmHWM:\s+(\d+)/.exec(readFileSync(status, 'utf8'));
          if (m) hwm = Math.max(hwm, Number(m[1]));
        } catch {
          // gone
        }
      }, 2);
    }
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.on('error', (e) => {
      if (poll) clearInterval(poll);
      if (timer) clearTimeout(timer);
      reject(e);
    });
    // 'close' waits for captured pipes to drain; without capture 'exit' is the moment the process ended.
    const finish = (code: number | null, signal: NodeJS.Signals | null, ms: number) => {
      if (poll) clearInterval(poll);
      if (timer) clearTimeout(timer);
      let rssKb: number | undefined;
      if (timeFile) {
        try {
          const lines = readFileSync(timeFile, 'utf8').trim().split('\n');
          rssKb = Number(lines[lines.length - 1]);
        } catch {
          rssKb = undefined;
        }
        rmSync(timeDir!, { recursive: true, force: true });
      } else if (opts.rss) {
        rssKb = hwm || undefined;
      }
      resolve({
        ms, code, signal, rssKb,
        ...(opts.capture ? { stdoutBytes, stdoutLines, stderr } : {}),
      });
    };
    let exitMs = 0;
    child.on('exit', (code, signal) => {
      exitMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (!opts.capture) finish(code, signal, exitMs);
    });
    if (opts.capture) child.on('close', (code, signal) => finish(code, signal, exitMs));
  });
}
