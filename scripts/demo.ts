/**
 * `npm run demo`: starts the local API server (TLS, demo seed), points a temporary kubeconfig at it,
 * and runs each kdyn command that exists, with a `$ kdyn ...` heading, as a user would in a shell
 * (HOME and the discovery cache in a temp dir). Exits 1 if any command fails.
 *
 * To add a step (each new command adds its own), append to STEPS.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalServer, type ServerHandle } from '../bench/server.js';
import { KDYN_BIN, ROOT } from '../bench/tools.js';

interface Step {
  args: string[];
  /** One line shown above the command. */
  note?: string;
}

const GROUP = 'demo.kdyn.dev';

const STEPS: Step[] = [
  { args: ['version'], note: 'client and server versions' },
  { args: ['api-resources', '--api-group', GROUP, '-o', 'wide'], note: 'the demo CRDs as discovery reports them' },
  { args: ['api-resources', '--namespaced=false', '--sort-by=name'] },
  { args: ['get', 'namespaces'] },
  { args: ['get', 'rockets', '-A'], note: "a custom resource: columns come from the CRD's printer columns" },
  { args: ['get', 'rkt', '-n', 'demo', '-o', 'wide'], note: 'by short name; -o wide adds the priority-1 column' },
  { args: ['get', 'fleet', '-A'], note: 'a category of its own' },
  { args: ['get', 'launchpads', '-o', 'name'] },
  { args: ['get', 'rocket/falcon', '-n', 'demo', '-o', 'yaml'] },
  { args: ['get', 'configmaps', '-n', 'demo', '-o', 'yaml'] },
  { args: ['get', 'pods,services', '-n', 'demo'], note: 'several types at once' },
  { args: ['get', 'rockets', '-A', '-l', 'tier=heavy', '-o', 'custom-columns=NAME:.metadata.name,NAMESPACE:.metadata.namespace,PAD:.spec.launchPad'] },
  { args: ['get', 'rockets', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.spec.stage}{"\\n"}{end}'] },
  { args: ['get', 'rockets', '-A', '-o', 'jsonl'], note: 'one JSON object per line, for jq' },
];

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
    for (const step of STEPS) {
      process.stdout.write(`\n$ kdyn ${step.args.map(shellQuote).join(' ')}\n`);
      if (step.note) process.stdout.write(`# ${step.note}\n`);
      const r = spawnSync(process.execPath, [KDYN_BIN, ...step.args], { env, cwd: home, stdio: 'inherit', timeout: 60_000 });
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
