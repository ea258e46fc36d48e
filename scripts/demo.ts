/**
 * `npm run demo`: starts the local API server (TLS, demo seed), points a temporary kubeconfig at it,
 * and runs each kdyn command (./demo-steps.ts), with a `$ kdyn ...` heading, as a user would in a
 * shell (HOME, the discovery cache and the steps' files in a temp dir). Exits 1 if any command fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalServer, type ServerHandle } from '../bench/server.js';
import { KDYN_BIN, ROOT } from '../bench/tools.js';

import { DEMO_FILES, STEPS } from './demo-steps.js';

function shellQuote(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

async function main(): Promise<number> {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'bin.js'))) {
    process.stderr.write('demo: kdyn is not built; run `npm run build` first\n');
    return 1;
  }
  const dir = mkdtempSync(join(tmpdir(), 'kdyn-demo-'));
  const home = join(dir, 'home');
  mkdirSync(home);
  const kubeconfig = join(dir, 'kubeconfig');
  let server: ServerHandle | undefined;
  let failed = 0;
  let ran = 0;
  try {
    server = await startLocalServer({ seed: 'demo' }, kubeconfig);
    process.stdout.write(`# local API server at ${server.url} (TLS, demo seed); KUBECONFIG=${kubeconfig}\n`);
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, KUBECONFIG: kubeconfig };
    if (process.env.TERM) env.TERM = process.env.TERM;
    for (const [name, text] of Object.entries(DEMO_FILES)) writeFileSync(join(home, name), text);
    for (const step of STEPS) {
      process.stdout.write(`\n$ kdyn ${step.args.map(shellQuote).join(' ')}\n`);
      if (step.note) process.stdout.write(`# ${step.note}\n`);
      // A long output (a completion script) is shown by its first lines.
      const r = spawnSync(process.execPath, [KDYN_BIN, ...step.args], { env, cwd: home, stdio: step.headLines ? ['ignore', 'pipe', 'inherit'] : 'inherit', encoding: 'utf8', timeout: 60_000 });
      if (step.headLines) {
        const lines = (r.stdout ?? '').split('\n');
        process.stdout.write(`${lines.slice(0, step.headLines).join('\n')}\n# ... ${lines.length - step.headLines} more lines\n`);
      }
      ran++;
      if (r.status !== 0) {
        failed++;
        process.stdout.write(`# FAILED: exit ${r.status ?? r.signal}\n`);
      }
    }
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`\n# demo: ${ran} commands run, ${failed} failed\n`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`demo: ${(e as Error).message}\n`);
    process.exit(1);
  },
);
