// What the JS chain-verification fast path saves (issue 20): a whole warm `kdyn get namespaces`
// against the local API server, alternating fresh processes of this build and of a copy of it whose
// dialer verifies with OpenSSL (plus kdyn's Go rules) from the start, for a token and a client-
// certificate kubeconfig, on each Node binary given. Reports wall-clock medians and the CPU time
// (user+sys) of kdyn's process, which stays meaningful on a busy machine where wall time does not.
// Needs `npm run build` (dist/ and build/). Three warm-up runs per variant first.
// Usage: node scripts/measure-tls-verify.mjs [RUNS] [NODE_BINARY...]   (default: 21 runs, this node)
// Against another server (e.g. a real kube-apiserver from test/support/real-apiserver.ts): set
// MEASURE_TOKEN_KUBECONFIG and MEASURE_CERT_KUBECONFIG to a token and a client-certificate kubeconfig.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [runsArg = '21', ...nodeArgs] = process.argv.slice(2);
const runs = Number(runsArg);
const nodes = nodeArgs.length ? nodeArgs : [process.execPath];
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tmp = mkdtempSync(join(tmpdir(), 'kdyn-tls-measure-'));

// The OpenSSL variant: the same bundle with the fast path switched off where the dialer picks its mode.
const variant = join(tmp, 'openssl-variant');
for (const d of ['bin', 'dist']) cpSync(join(root, d), join(variant, d), { recursive: true });
cpSync(join(root, 'package.json'), join(variant, 'package.json'));
symlinkSync(join(root, 'node_modules'), join(variant, 'node_modules'));
const bundle = join(variant, 'dist', 'cli', 'bin.js');
const source = readFileSync(bundle, 'utf8');
const forced = source.replace(/\w+&&\w+\.verification!=="openssl"\?"js"/, 'false?"js"');
if (forced === source) throw new Error('measure-tls-verify: the dialer\'s mode choice was not found in dist/cli/bin.js');
writeFileSync(bundle, forced);
const variants = { 'fast path': root, OpenSSL: variant };

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
      for (let i = 0; i < runs; i++) for (const name of i % 2 ? ['OpenSSL', 'fast path'] : ['fast path', 'OpenSSL']) run(name);
      const line = Object.keys(variants).map((n) => `${n}: wall median ${median(wall[n]).toFixed(1)} ms, CPU mean ${mean(cpu[n]).toFixed(1)} median ${median(cpu[n]).toFixed(1)} ms`);
      console.log(`${version} ${kind} (${runs} alternating runs) | ${line.join(' | ')} | CPU saved ${(median(cpu.OpenSSL) - median(cpu['fast path'])).toFixed(1)} ms (medians)`);
    }
  }
} finally {
  server?.kill();
  rmSync(tmp, { recursive: true, force: true });
}
