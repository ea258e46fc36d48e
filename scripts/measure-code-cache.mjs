// Alternating measurement of bin/kdyn's code cache modes on one Node binary: Node's compile cache
// (KDYN_CODE_CACHE=node), the hand-made V8 code cache (the default) and none
// (KDYN_NO_CODE_CACHE=1). Reports the median wall time of each run (spawn to exit) and the CPU time
// (user+sys) kdyn's process used, which stays meaningful on a busy machine where wall time does not.
// Two warm-up runs per mode first, so every cache is warm. See docs/design/startup.md for the results.
// Usage: node scripts/measure-code-cache.mjs NODE_BINARY KUBECONFIG [RUNS] [KDYN_DIR]
//   KUBECONFIG: a server with the demo seed (`npm run local-apiserver -- --tls --seed demo --kubeconfig F`).
//   KDYN_DIR: a directory holding bin/ and dist/cli/ (default: this checkout), e.g. a copy to measure
//   while the checkout is being rebuilt.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [node, kubeconfig, runs = '21', kdynDir] = process.argv.slice(2);
if (!node || !kubeconfig) {
  console.error('usage: node scripts/measure-code-cache.mjs NODE_BINARY KUBECONFIG [RUNS] [KDYN_DIR]');
  process.exit(2);
}
const kdyn = join(kdynDir ?? join(dirname(fileURLToPath(import.meta.url)), '..'), 'bin', 'kdyn');
const home = mkdtempSync(join(tmpdir(), 'kdyn-measure-'));
const preload = join(home, 'cpu.cjs');
writeFileSync(preload, "process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeSync(2, `\\nCPUUS ${u.user + u.system}\\n`); });\n");
const modes = { 'node compile cache': { KDYN_CODE_CACHE: 'node' }, 'hand-made (default)': {}, none: { KDYN_NO_CODE_CACHE: '1' } };
const commands = { 'version --client': ['version', '--client'], 'get rockets -n demo': ['get', 'rockets', '-n', 'demo'] };
const run = (cmd, mode) => {
  // A clean environment (no NODE_EXTRA_CA_CERTS: it adds ~60 ms to every Node start).
  const env = { PATH: process.env.PATH, HOME: home, KUBECONFIG: kubeconfig, ...modes[mode] };
  const started = performance.now();
  const r = spawnSync(node, ['-r', preload, kdyn, ...commands[cmd]], { env, encoding: 'utf8' });
  const wall = performance.now() - started;
  if (r.status !== 0) throw new Error(`kdyn ${commands[cmd].join(' ')}: ${r.stderr}`);
  return { wall, cpu: Number(/CPUUS (\d+)/.exec(r.stderr)[1]) / 1000 };
};
const samples = {};
for (const c of Object.keys(commands)) for (const m of Object.keys(modes)) for (let i = 0; i < 2; i++) run(c, m);
for (let i = 0; i < Number(runs); i++) {
  for (const c of Object.keys(commands)) for (const m of Object.keys(modes)) (samples[`${c} | ${m}`] ??= []).push(run(c, m));
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
console.log(`${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()}, ${runs} alternating runs, medians`);
for (const [k, v] of Object.entries(samples)) {
  const wall = v.map((s) => s.wall);
  const cpu = v.map((s) => s.cpu);
  console.log(`${k.padEnd(44)} wall ${median(wall).toFixed(1)} ms (min ${Math.min(...wall).toFixed(1)})  cpu ${median(cpu).toFixed(1)} ms (min ${Math.min(...cpu).toFixed(1)})`);
}
rmSync(home, { recursive: true, force: true });
