/**
 * The two tools under test: kdyn (this checkout's bin/kdyn) and kubectl.
 *
 * kubectl: the first `kubectl` on PATH. On machines with the Google Cloud SDK, /usr/bin/kubectl is a
 * "dispatcher" (it reports `v1.32.4-dispatcher`) that picks a real kubectl.1.NN next to it; when a
 * kubectl.1.32 sits beside the resolved binary, the harness runs that one directly, so the figures
 * are kubectl v1.32's own and the dispatcher's hop is not charged to the baseline.
 * `KDYN_BENCH_KUBECTL=/path` overrides the choice.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** bin/kdyn is run as users run it: executed directly (its `#!/usr/bin/env node` line picks node). */
export const KDYN_BIN = join(ROOT, 'bin', 'kdyn');

export interface KubectlInfo {
  path: string;
  version: string;
  /** How it was chosen, for the report. */
  note: string;
}

export function findOnPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // next
    }
  }
  return undefined;
}

export function findKubectl(env: NodeJS.ProcessEnv = process.env): KubectlInfo | undefined {
  const override = env.KDYN_BENCH_KUBECTL;
  if (override) return { path: override, version: clientVersion(override), note: 'KDYN_BENCH_KUBECTL' };
  const onPath = findOnPath('kubectl', env.PATH);
  if (!onPath) return undefined;
  const real = realpathSync(onPath);
  const pinned = join(dirname(real), 'kubectl.1.32');
  const version = clientVersion(real);
  if (existsSync(pinned) && pinned !== real) {
    return { path: pinned, version: clientVersion(pinned), note: `${onPath} is ${version}; running ${pinned} directly` };
  }
  return { path: real, version, note: `from PATH (${onPath})` };
}

function clientVersion(bin: string): string {
  try {
    const out = execFileSync(bin, ['version', '--client', '-o', 'json'], { encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'ignore'] });
    return (JSON.parse(out) as { clientVersion?: { gitVersion?: string } }).clientVersion?.gitVersion ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
