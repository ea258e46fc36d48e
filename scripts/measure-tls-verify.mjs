// What kdyn's TLS verification costs against another build (issue 33: this build requires OpenSSL's
// and Go's verdicts; a checkout of 2e2abcc still has issue 20's JS fast path): a whole warm
// `kdyn get namespaces` against the local API server, alternating fresh processes of this build and of
// the baseline checkout (built: `npm ci && npm run build` there), for a token and a client-certificate
// kubeconfig, on each Node binary given. Reports wall-clock medians and the CPU time (user+sys) of
// kdyn's process, which stays meaningful on a busy machine where wall time does not.
// Needs `npm run build` (dist/ and build/). Three warm-up runs per variant first.
// Usage: node scripts/measure-tls-verify.mjs BASELINE_DIR [RUNS] [NODE_BINARY...]   (default: 21 runs, this node)
// Against another server (e.g. a real kube-apiserver from test/support/real-apiserver.ts): set
// MEASURE_TOKEN_KUBECONFIG and MEASURE_CERT_KUBECONFIG to a token and a client-certificate kubeconfig.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [baselineArg, runsArg = '21', ...nodeArgs] = process.argv.slice(2);
if (!baselineArg || !existsSync(join(baselineArg, 'dist', 'cli', 'bin.js'))) {
  console.error('usage: node scripts/measure-tls-verify.mjs BASELINE_DIR [RUNS] [NODE_BINARY...] (BASELINE_DIR: a built checkout of another commit)');
  process.exit(2);
}
const runs = Number(runsArg);
const nodes = nodeArgs.length ? nodeArgs : [process.execPath];
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tmp = mkdtempSync(join(tmpdir(), 'kdyn-tls-measure-'));
const variants = { baseline: resolve(baselineArg), 'this build': root };

const external = process.env.MEASURE_TOKEN_KUBECONFIG && process.env.MEASURE_CERT_KUBECONFIG;
const kubeconfig = external ? process.env.MEASURE_TOKEN_KUBECONFIG : join(tmp, 'kubeconfig');
const server = external ? undefined : spawn(process.execPath, [join(root, 'build/test/support/apiserver/main.js'), '--port', '0', '--tls', '--kubeconfig', kubeconfig, '--seed', 'demo'], { stdio: ['ignore', 'pipe', 'inherit'] });
if (server) await new Promise((resolve) => {
  let out = '';
  server.stdout.on('data', (b) => (out += b) && /^ready /m.test(out) && resolve());
});
// A self-signed client certificate: the local server authenticates by token; the certificate only has to be sent.
spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(tmp, 'client.key'), '-out', join(tmp, 'client.crt'), '-subj', '/O=system:masters/CN=measure', '-days', '2'], { stdio: 'ignore' });
const preload = join(tmp, 'cpu.cjs');
writeFileSync(preload, "process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeSync(2, `\\nCPUUS ${u.user + u.system}\\n`); });\n");

const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
try {
  for (const node of nodes) {
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    for (const kind of ['token', 'client certificate']) {
      const extra = kind === 'token' ? [] : external ? ['--kubeconfig', process.env.MEASURE_CERT_KUBECONFIG] : ['--client-certificate', join(tmp, 'client.crt'), '--client-key', join(tmp, 'client.key')];
      const wall = {};
      const cpu = {};
      const run = (name) => {
        const home = join(tmp, `home-${version}-${name.replace(' ', '-')}`);
        mkdirSync(home, { recursive: true });
        const t0 = process.hrtime.bigint();
        const r = spawnSync(node, ['-r', preload, join(variants[name], 'bin', 'kdyn'), 'get', 'namespaces', ...(extra[0] === '--kubeconfig' ? extra : ['--kubeconfig', kubeconfig, ...extra])], { env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8' });
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (r.status !== 0) throw new Error(`${name} (${version}, ${kind}): ${r.stderr}`);
        (wall[name] ??= []).push(ms);
        (cpu[name] ??= []).push(Number(/CPUUS (\d+)/.exec(r.stderr)[1]) / 1000);
      };
      for (let i = 0; i < 3; i++) for (const name of Object.keys(variants)) run(name);
      for (const name of Object.keys(variants)) (wall[name] = []), (cpu[name] = []);
      for (let i = 0; i < runs; i++) for (const name of i % 2 ? ['this build', 'baseline'] : ['baseline', 'this build']) run(name);
      const line = Object.keys(variants).map((n) => `${n}: wall median ${median(wall[n]).toFixed(1)} ms, CPU mean ${mean(cpu[n]).toFixed(1)} median ${median(cpu[n]).toFixed(1)} ms`);
      console.log(`${version} ${kind} (${runs} alternating runs) | ${line.join(' | ')} | CPU difference (this build - baseline) ${(median(cpu['this build']) - median(cpu.baseline)).toFixed(1)} ms (medians)`);
    }
  }
} finally {
  server?.kill();
  rmSync(tmp, { recursive: true, force: true });
}
