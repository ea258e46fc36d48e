/**
 * Shared setup for the `kdyn watch` end-to-end tests: the built CLI as a long-running child process
 * (its output read as it comes) against the local API server in this process, a dynamic client to
 * change objects while it watches, and the replay of printed jsonl events into a state to compare
 * with the server's own store.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { DynamicClient } from '../../src/dynamic/client.js';
import { createTransport } from '../../src/transport/http.js';
import { tokenProvider } from '../../src/kubeconfig/credentials.js';
import { silentLogger } from '../../src/core/log.js';
import { systemClock } from '../../src/core/clock.js';
import type { Unstructured } from '../../src/core/unstructured.js';
import type { LocalApiServer } from '../support/apiserver/server.js';
import { KDYN } from '../support/cli.js';

export interface Running {
  child: ChildProcess;
  out(): string;
  err(): string;
  /** Resolves when `pred(stdout)` holds; rejects after `ms` with what was printed. */
  until(pred: (out: string) => boolean, ms?: number, what?: string): Promise<void>;
  /** Resolves with the exit code (or the signal name) once the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startKdyn(args: string[], env: Record<string, string | undefined>, cwd: string): Running {
  return startProcess(process.execPath, [KDYN, ...args], env, cwd);
}

export function startProcess(cmd: string, args: string[], env: Record<string, string | undefined>, cwd: string): Running {
  const child = spawn(cmd, args, { env, cwd });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return {
    child,
    out: () => out,
    err: () => err,
    exited,
    until: async (pred, ms = 15_000, what = 'output') => {
      const deadline = Date.now() + ms;
      while (!pred(out)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stdout:\n${out}\nstderr:\n${err}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

export function clientFor(server: LocalApiServer): DynamicClient {
  const transport = createTransport(
    { server: server.url, tls: { caData: server.caPem ? Buffer.from(server.caPem) : undefined, insecure: false }, credentials: tokenProvider(server.token), namespace: 'default', namespaceExplicit: false, source: 'flags', files: [] },
    { logger: silentLogger, clock: systemClock, env: {}, timeoutMs: 0 },
  );
  return new DynamicClient(transport);
}

export interface JsonlEvent {
  type: string;
  object: Unstructured;
}

export function parseJsonl(out: string): JsonlEvent[] {
  return out.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as JsonlEvent);
}

/** The events applied in order: name -> `rv data` (what the consumer believes). */
export function replay(events: readonly JsonlEvent[]): Map<string, string> {
  const state = new Map<string, string>();
  for (const e of events) {
    const name = e.object.metadata!.name!;
    if (e.type === 'DELETED') state.delete(name);
    else state.set(name, stateLine(e.object));
  }
  return state;
}

export function stateLine(o: Unstructured): string {
  return `${o.metadata?.uid} ${o.metadata?.resourceVersion} ${JSON.stringify(o.data ?? {})}`;
}

/** The server's own state of the configmaps in `ns` (from its store, not over HTTP). */
export function serverState(server: LocalApiServer, ns: string): Map<string, string> {
  const state = new Map<string, string>();
  for (const o of server.store.list('', 'configmaps', { namespace: ns }).items as Unstructured[]) state.set(o.metadata!.name!, stateLine(o));
  return state;
}

export function sorted(m: Map<string, string>): Array<[string, string]> {
  return [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
}

export function envFor(dir: string, kubeconfig: string, home = 'home-kdyn'): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: join(dir, home), KUBECONFIG: kubeconfig };
}
