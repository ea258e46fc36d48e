/**
 * Starts the local API server for a case as its own process, through the launcher's public
 * interface (issue 3: `main.js [--tls] [--kubeconfig FILE] [--seed ...] ...`, one `ready <url>` line).
 * A separate process keeps the server's work off the harness's event loop, whose timers measure
 * the tools.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './tools.js';
import type { RealServerOptions, RunningServer, ServerOptions } from './types.js';

export const SERVER_MAIN = join(ROOT, 'build', 'test', 'support', 'apiserver', 'main.js');

export interface ServerHandle extends RunningServer {
  stop(): Promise<void>;
}

export function serverFlags(opts: ServerOptions, kubeconfig: string): string[] {
  const flags = ['--port', '0', '--tls', '--kubeconfig', kubeconfig, '--seed', opts.seed ?? 'empty'];
  if (opts.extraGroups) flags.push('--extra-groups', String(opts.extraGroups));
  if (opts.configmaps) flags.push('--configmaps', String(opts.configmaps));
  if (opts.namespace) flags.push('--namespace', opts.namespace);
  if (opts.discovery) flags.push('--discovery', opts.discovery);
  return flags;
}

export function isRealServer(opts: ServerOptions | RealServerOptions): opts is RealServerOptions {
  return 'real' in opts;
}

/** A stable key: cases with equal options share one server (real: one per cluster, whichever user). */
export function serverKey(opts: ServerOptions | RealServerOptions): string {
  if (isRealServer(opts)) return JSON.stringify(['real', opts.real]);
  return JSON.stringify([opts.seed ?? 'empty', opts.extraGroups ?? 0, opts.configmaps ?? 0, opts.namespace ?? '', opts.discovery ?? 'aggregated']);
}

export function startLocalServer(opts: ServerOptions, kubeconfig: string, timeoutMs = 60_000): Promise<ServerHandle> {
  if (!existsSync(SERVER_MAIN)) {
    return Promise.reject(new Error(`the local API server is not built yet (${SERVER_MAIN} missing)`));
  }
  const started = process.hrtime.bigint();
  const child: ChildProcess = spawn(process.execPath, [SERVER_MAIN, ...serverFlags(opts, kubeconfig)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    let done = false;
    const timer = setTimeout(() => fail(new Error(`local API server not ready after ${timeoutMs} ms`)), timeoutMs);
    const fail = (e: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(e);
    };
    child.stderr!.on('data', (b: Buffer) => {
      if (err.length < 8192) err += b.toString();
    });
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      const why = err.trim().split('\n').slice(-3).join(' | ');
      fail(new Error(`local API server exited (${signal ?? code}) before ready${why ? `: ${why}` : ''}`));
    });
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /^ready (\S+)$/m.exec(out);
      if (!m || done) return;
      done = true;
      clearTimeout(timer);
      const startMs = Number(process.hrtime.bigint() - started) / 1e6;
      child.removeAllListeners('exit');
      resolve({
        url: m[1]!,
        kubeconfig,
        startMs,
        stop: () =>
          new Promise<void>((res) => {
            if (child.exitCode !== null || child.signalCode !== null) return res();
            const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
            child.once('exit', () => {
              clearTimeout(kill);
              res();
            });
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
