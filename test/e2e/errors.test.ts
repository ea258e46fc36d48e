/**
 * Every bad input of the foundation issue, through the built CLI (`node bin/kdyn`) as a child
 * process against the local API server: the one-line message on stderr and the exit code.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer } from '../support/apiserver/server.js';
import { repoRoot, runKdyn, type Run } from '../support/cli.js';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';

/** Runs the CLI asynchronously (the API server lives in this process) with HOME set to `home`. */
function kdyn(args: string[], home: string, env: Record<string, string> = {}): Promise<Run> {
  return runKdyn(args, { cwd: home, env: { PATH: process.env.PATH ?? '', HOME: home, ...env }, timeoutMs: 20_000 });
}

/** stderr must be exactly one line: the message. */
function oneLineError(r: Run): string {
  const lines = r.err.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.err}`);
  assert.ok(!/\n\s+at /.test(r.err), 'no stack trace');
  return lines[0]!;
}

/** Whether something accepts connections on localhost:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(port, 'localhost');
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

let env: ServerEnv;
let s: LocalApiServer;
let home: string;
let good: string;
const file = (name: string, content: string) => {
  const p = join(home, name);
  writeFileSync(p, content);
  return p;
};

before(async () => {
  assert.ok(existsSync(join(repoRoot(), 'dist/cli/bin.js')), 'the CLI is built (node scripts/build.mjs)');
  env = await startServerEnv({ seed: 'empty' }, 'kdyn-e2e-errors-');
  ({ server: s, dir: home, kubeconfig: good } = env);
});
after(() => env.stop());

const caData = () => Buffer.from(s.caPem!).toString('base64');
function config(o: { server?: string; ca?: boolean; user?: object; contextCluster?: string; contextUser?: string }): string {
  const server = o.server ?? s.url;
  return [
    'apiVersion: v1',
    'kind: Config',
    'current-context: c',
    'clusters:',
    '- name: local',
    '  cluster:',
    `    server: ${server}`,
    ...(o.ca === false ? [] : [`    certificate-authority-data: ${caData()}`]),
    'users:',
    '- name: u',
    `  user: ${JSON.stringify(o.user ?? { token: s.token })}`,
    'contexts:',
    '- name: c',
    `  context: {cluster: ${o.contextCluster ?? 'local'}, user: ${o.contextUser ?? 'u'}}`,
    '',
  ].join('\n');
}

describe('bad input: message and exit code', () => {
  test('no kubeconfig at all: kubectl\'s localhost:8080 connection error', async (t) => {
    if (await listening(8080)) return t.skip('something listens on localhost:8080 here');
    const empty = mkdtempSync(join(tmpdir(), 'kdyn-e2e-home-'));
    t.after(() => rmSync(empty, { recursive: true, force: true }));
    const r = await kdyn(['version'], empty);
    assert.equal(r.code, 1);
    assert.match(r.out, /^Client Version: v\d+\.\d+\.\d+\S*\n$/, 'the client version comes first, as kubectl prints it');
    assert.equal(oneLineError(r), 'The connection to the server localhost:8080 was refused - did you specify the right host or port?');
  });

  test('a kubeconfig that is not YAML', async () => {
    const bad = file('bad.yaml', 'apiVersion: v1\nclusters: [\n  - name: x\n    cluster: {server: https://x\n');
    const r = await kdyn(['version', '--kubeconfig', bad], home);
    assert.equal(r.code, 1);
    assert.match(oneLineError(r), new RegExp(`^error: error loading config file "${bad}": yaml: line \\d+: \\S.*$`));
  });

  test('KUBECONFIG naming a non-YAML file', async () => {
    const bad = file('bad2.yaml', 'clusters: {{{\n');
    const r = await kdyn(['version'], home, { KUBECONFIG: `${join(home, 'missing')}:${bad}` });
    assert.equal(r.code, 1);
    assert.match(oneLineError(r), /^error: error loading config file ".*bad2\.yaml": yaml: line \d+: /);
  });

  test('--kubeconfig that does not exist', async () => {
    const r = await kdyn(['version', '--kubeconfig', 'nope.yaml'], home);
    assert.equal(r.code, 1);
    assert.equal(oneLineError(r), 'error: stat nope.yaml: no such file or directory');
  });

  test('an unknown --context', async () => {
    const r = await kdyn(['version', '--kubeconfig', good, '--context', 'nope'], home);
    assert.equal(r.code, 1);
    assert.equal(oneLineError(r), `error: context "nope" does not exist in kubeconfig "${good}"`);
  });

  test('a context naming a missing cluster', async () => {
    const f = file('nocluster.yaml', config({ contextCluster: 'ghost' }));
    const r = await kdyn(['version', '--kubeconfig', f], home);
    assert.equal(r.code, 1);
    assert.equal(oneLineError(r), `error: context "c" in "${f}" refers to cluster "ghost", which does not exist in kubeconfig "${f}"`);
  });

  test('a context naming a missing user', async () => {
    const f = file('nouser.yaml', config({ contextUser: 'ghost' }));
    const r = await kdyn(['version', '--kubeconfig', f], home);
    assert.equal(r.code, 1);
    assert.equal(oneLineError(r), `error: context "c" in "${f}" refers to user "ghost", which does not exist in kubeconfig "${f}"`);
  });

  test('a server that refuses the connection', async () => {
    const stopped = await startServer({ tls: true, seed: 'empty' });
    const port = stopped.port;
    await stopped.stop();
    const f = file('refused.yaml', config({ server: `https://127.0.0.1:${port}` }));
    const r = await kdyn(['version', '--kubeconfig', f], home);
    assert.equal(r.code, 1);
    assert.equal(oneLineError(r), `The connection to the server 127.0.0.1:${port} was refused - did you specify the right host or port?`);
  });

  test('a TLS certificate that does not verify', async () => {
    const f = file('noca.yaml', config({ ca: false }));
    const r = await kdyn(['version', '--kubeconfig', f], home);
    assert.equal(r.code, 1);
    assert.equal(oneLineError(r), 'Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority');
  });

  test('a certificate for another name (--tls-server-name)', async () => {
    const r = await kdyn(['version', '--kubeconfig', good, '--tls-server-name', 'kube.example.com'], home);
    assert.equal(r.code, 1);
    assert.match(oneLineError(r), /^Unable to connect to the server: tls: failed to verify certificate: x509: certificate is valid for .*localhost.*, not kube\.example\.com$/);
  });

  test('a wrong or expired token (401)', async () => {
    const f = file('wrongtoken.yaml', config({ user: { token: 'expired-token-value' } }));
    const r = await kdyn(['version', '--kubeconfig', f], home);
    assert.equal(r.code, 1);
    assert.equal(oneLineError(r), 'error: You must be logged in to the server (Unauthorized)');
    assert.ok(!r.err.includes('expired-token-value'));
    const viaFlag = await kdyn(['version', '--kubeconfig', good, '--token', 'nope'], home);
    assert.equal(oneLineError(viaFlag), 'error: You must be logged in to the server (Unauthorized)');
  });

  test('an exec plugin that is missing', async () => {
    const f = file('exec-missing.yaml', config({ user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'kdyn-e2e-no-such-plugin', interactiveMode: 'Never', installHint: 'Install it from https://example.com/plugin' } } }));
    const r = await kdyn(['version', '--kubeconfig', f], home);
    assert.equal(r.code, 1);
    assert.equal(oneLineError(r), 'error: getting credentials: exec: executable kdyn-e2e-no-such-plugin not found (it looks like a client-go credential plugin that is not installed; Install it from https://example.com/plugin)');
  });

  test('an exec plugin that fails: its stderr is shown', async () => {
    const plugin = file('failing-plugin.mjs', "process.stderr.write('error: refresh token expired, run `login`\\n'); process.exit(2);\n");
    const f = file('exec-fails.yaml', config({ user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [plugin], interactiveMode: 'Never' } } }));
    const r = await kdyn(['version', '--kubeconfig', f], home);
    assert.equal(r.code, 1);
    assert.equal(oneLineError(r), `error: getting credentials: exec: executable ${process.execPath} failed with exit code 2: error: refresh token expired, run \`login\``);
  });

  test('an exec plugin that works authenticates the request', async () => {
    const plugin = file('good-plugin.mjs', `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: ${JSON.stringify(s.token)} } }));\n`);
    const f = file('exec-ok.yaml', config({ user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [plugin], interactiveMode: 'Never' } } }));
    const r = await kdyn(['version', '--kubeconfig', f], home);
    assert.equal(r.err, '');
    assert.equal(r.code, 0);
    assert.match(r.out, /^Server Version: v1\.32\.\d+$/m);
  });

  test('an unknown flag or command: exit 2', async () => {
    const flag = await kdyn(['version', '--bogus'], home);
    assert.equal(flag.code, 2);
    assert.equal(oneLineError(flag), "error: unknown flag: --bogus (see 'kdyn version --help')");
    const cmd = await kdyn(['bogus'], home);
    assert.equal(cmd.code, 2);
    assert.match(oneLineError(cmd), /^error: unknown command "bogus" for "kdyn"/);
    const bad = await kdyn(['version', '--request-timeout', 'soon'], home);
    assert.equal(bad.code, 2);
  });

  test('CA file and --insecure-skip-tls-verify together', async () => {
    const ca = file('ca.crt', s.caPem!);
    const r = await kdyn(['version', '--kubeconfig', good, '--certificate-authority', ca, '--insecure-skip-tls-verify'], home);
    assert.equal(r.code, 1);
    assert.equal(oneLineError(r), 'error: specifying a root certificates file with the insecure flag is not allowed');
  });

  test('a stack trace only at -v=9', async () => {
    const f = file('noca9.yaml', config({ ca: false }));
    const quiet = await kdyn(['version', '--kubeconfig', f, '-v=5'], home);
    assert.ok(!/\n\s+at /.test(quiet.err));
    const loud = await kdyn(['version', '--kubeconfig', f, '-v=9'], home);
    assert.equal(loud.code, 1);
    assert.match(loud.err, /Unable to connect to the server: tls: failed to verify certificate/);
    assert.match(loud.err, /\n\s+at /, 'stack trace at -v=9');
    assert.ok(!loud.err.includes(s.token), 'token never logged, even at -v=9');
  });
});
