// Alternating measurement of bin/kdyn's code cache modes on one Node binary: Node's compile cache
// (KDYN_CODE_CACHE=node, Node 22.1+), the hand-made V8 code cache (the default) and none
// (KDYN_NO_CODE_CACHE=1). Reports the CPU time (user+sys) kdyn's process used, which stays
// meaningful on a busy machine where wall time does not. Two warm-up runs per mode first.
// Usage: node scripts/measure-code-cache.mjs NODE_BINARY KUBECONFIG [RUNS]
//   KUBECONFIG: a server with the demo seed (`npm run local-apiserver -- --seed demo --kubeconfig F`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [node, kubeconfig, runs = '21'] = process.argv.slice(2);
if (!node || !kubeconfig) {
  console.error('usage: node scripts/measure-code-cache.mjs NODE_BINARY KUBECONFIG [RUNS]');
  process.exit(2);
}
const kdyn = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'kdyn');
const home = mkdtempSync(join(tmpdir(), 'kdyn-measure-'));
const preload = join(home, 'cpu.cjs');
writeFileSync(preload, "process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeSync(2, `\\nCPUUS ${u.user + u.system}\\n`); });\n");
const modes = { 'node compile cache': { KDYN_CODE_CACHE: 'node' }, 'hand-made (default)': {}, none: { KDYN_NO_CODE_CACHE: '1' } };
const commands = { 'version --client': ['version', '--client'], 'get rockets -n demo': ['get', 'rockets', '-n', 'demo'] };
const run = (cmd, mode) => {
  const env = { PATH: process.env.PATH, HOME: home, KUBECONFIG: kubeconfig, ...modes[mode] };
  const r = spawnSync(node, ['-r', preload, kdyn, ...commands[cmd]], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`kdyn ${commands[cmd].join(' ')}: ${r.stderr}`);
  return Number(/CPUUS (\d+)/.exec(r.stderr)[1]) / 1000;
};
const samples = {};
for (const c of Object.keys(commands)) for (const m of Object.keys(modes)) for (let i = 0; i < 2; i++) run(c, m);
for (let i = 0; i < Number(runs); i++) {
  for (const c of Object.keys(commands)) for (const m of Object.keys(modes)) (samples[`${c} | ${m}`] ??= []).push(run(c, m));
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
console.log(`${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()}, ${runs} alternating runs, CPU time (user+sys)`);
for (const [k, v] of Object.entries(samples)) console.log(`${k.padEnd(44)} median ${median(v).toFixed(1)} ms  min ${Math.min(...v).toFixed(1)} ms`);
rmSync(home, { recursive: true, force: true });
