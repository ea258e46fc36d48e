/**
 * How promptly kdyn ends on SIGINT in the middle of a long list (issue 13): `get` of 20,000
 * ConfigMaps, interrupted once its first page is printed; the time from the signal to the process's
 * end. This was a 5 s threshold in test/reliability/signals.test.ts, which keeps the behaviour
 * (exit 130/143, no more pages, a whole cache).
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { KDYN_BIN } from '../tools.js';
import type { BenchCase, CaseEnv } from '../types.js';

const CONFIGMAPS = 20_000;
const HANG_GUARD_MS = 60_000;

/** Ms from SIGINT (sent at kdyn's first output) to its end; throws unless it ends with 130. */
function interruptedGetMs(env: CaseEnv): Promise<number> {
  const child = spawn(KDYN_BIN, ['get', 'configmaps', '-n', 'bench', '-o', 'name'], {
    cwd: env.tmp,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: env.home.kdyn, KUBECONFIG: env.server!.kubeconfig },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), HANG_GUARD_MS);
  let signalledAt: number | undefined;
  child.stdout.once('data', () => {
    signalledAt = performance.now();
    child.kill('SIGINT');
  });
  child.stdout.resume();
  return new Promise((resolve, reject) => {
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      // Ended by the signal itself (before kdyn's handler is installed) counts as 130, as in the test.
      const status = code ?? (signal === 'SIGINT' ? 130 : signal);
      if (signalledAt === undefined || status !== 130) reject(new Error(`kdyn get ended with ${status} ${signalledAt === undefined ? 'before printing anything' : 'after SIGINT'}, expected 130`));
      else resolve(performance.now() - signalledAt);
    });
  });
}

/** Files run by `order` (see bench/registry.ts). */
export const order = 60;

export const cases: BenchCase[] = [
  {
    name: 'sigint-get-20k',
    description: `get of ${CONFIGMAPS} ConfigMaps, SIGINT at the first output: ms until kdyn has exited`,
    issue: 'issue 13',
    server: { seed: 'empty', configmaps: CONFIGMAPS, namespace: 'bench' },
    target: { kind: 'absolute', maxMs: 5000 },
    baseline: { kind: 'none' },
    custom: interruptedGetMs,
  },
];
