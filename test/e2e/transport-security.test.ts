/**
 * Transport security through the built CLI: a CA bundle that is not PEM is a CA-parse error naming
 * where it came from (issue 15, row 6), and a plain http:// server receives no credentials of any
 * kind while `-v=6` says none were sent (issue 9), side by side with kubectl where it is installed.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findKubectl } from '../../bench/tools.js';
import { runCommand, runKdyn, type Run } from '../support/cli.js';

let home: string;
before(() => {
  home = mkdtempSync(join(tmpdir(), 'kdyn-e2e-sec-'));
});
after(() => rmSync(home, { recursive: true, force: true }));

function kdyn(args: string[]): Promise<Run> {
  return runKdyn(args, { cwd: home, env: { PATH: process.env.PATH ?? '', HOME: home }, timeoutMs: 20_000 });
}

function kubeconfig(name: string, cluster: string[], user: string[]): string {
  const p = join(home, name);
  writeFileSync(
    p,
    ['apiVersion: v1', 'kind: Config', 'current-context: c', 'clusters:', '- name: local', '  cluster:', ...cluster.map((l) => `    ${l}`), 'users:', '- name: u', '  user:', ...user.map((l) => `    ${l}`), 'contexts:', '- name: c', '  context: {cluster: local, user: u}', ''].join('\n'),
  );
  return p;
}

describe('a CA bundle that is not PEM', () => {
  test('certificate-authority-data: kubectl\'s CA-parse error, naming the field and the cluster, exit 1', async () => {
    const f = kubeconfig('ca-data.yaml', ['server: https://127.0.0.1:1', `certificate-authority-data: ${Buffer.from('hello, not PEM').toString('base64')}`], ['token: abc']);
    const r = await kdyn(['get', 'pods', '--kubeconfig', f]);
    assert.equal(r.code, 1);
    assert.equal(r.err, 'error: unable to load root certificates: unable to parse bytes as PEM block (certificate-authority-data of cluster "local")\n');
  });

  test('certificate-authority file and --certificate-authority: the same, naming the file', async () => {
    const bad = join(home, 'bad-ca.crt');
    writeFileSync(bad, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const f = kubeconfig('ca-file.yaml', ['server: https://127.0.0.1:1', `certificate-authority: ${bad}`], ['token: abc']);
    const r = await kdyn(['version', '--kubeconfig', f]);
    assert.equal(r.code, 1);
    assert.match(r.err, new RegExp(`^error: unable to load root certificates: failed to parse certificate: .*\\(certificate-authority ${bad} of cluster "local"\\)\\n$`));
    const empty = join(home, 'empty-ca.crt');
    writeFileSync(empty, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
    const r2 = await kdyn(['version', '--kubeconfig', f, '--certificate-authority', empty]);
    assert.equal(r2.code, 1);
    assert.equal(r2.err, `error: unable to load root certificates: no valid certificate authority data seen (--certificate-authority ${empty})\n`);
  });
});

describe('a plain http:// server', () => {
  let server: Server;
  let url: string;
  const seen: Array<Record<string, string | undefined>> = [];
  before(async () => {
    server = createServer((req, res) => {
      seen.push({ authorization: req.headers.authorization, impersonate: req.headers['impersonate-user'] as string | undefined });
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  test('no token and no basic auth are sent (impersonation is, as by kubectl); -v=6 says so; kubectl sends none either', async () => {
    const f = kubeconfig('http.yaml', [`server: ${url}`], ['token: secret-token-must-not-leak', 'as: someone']);
    seen.length = 0;
    const r = await kdyn(['version', '--kubeconfig', f, '-v=6']);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(seen, [{ authorization: undefined, impersonate: 'someone' }]);
    assert.match(r.err, new RegExp(`Not sending credentials to ${url}: user credentials \\(token\\) are used only over https`));
    assert.ok(!r.err.includes('secret-token'));
    const basic = kubeconfig('http-basic.yaml', [`server: ${url}`], ['username: admin', 'password: hunter2']);
    seen.length = 0;
    assert.equal((await kdyn(['version', '--kubeconfig', basic])).code, 0);
    assert.deepEqual(seen, [{ authorization: undefined, impersonate: undefined }]);

    const kubectl = findKubectl();
    if (!kubectl) return;
    seen.length = 0;
    const k = await runCommand(kubectl.path, ['version', '--kubeconfig', f], { env: { PATH: process.env.PATH ?? '', HOME: home }, timeoutMs: 30_000 });
    assert.equal(k.code, 0, k.err);
    assert.deepEqual(seen, [{ authorization: undefined, impersonate: 'someone' }], 'kubectl sends no credentials over http either');
  });

  test('an exec plugin is not even run for an http server', async () => {
    const marker = join(home, 'exec-ran');
    const f = kubeconfig('http-exec.yaml', [`server: ${url}`], [
      'exec:',
      '  apiVersion: client.authentication.k8s.io/v1',
      '  command: /bin/sh',
      `  args: ["-c", "touch ${marker}; echo '{\\"apiVersion\\":\\"client.authentication.k8s.io/v1\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"t\\"}}'"]`,
      '  interactiveMode: Never',
    ]);
    seen.length = 0;
    const r = await kdyn(['version', '--kubeconfig', f]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(seen, [{ authorization: undefined, impersonate: undefined }]);
    const { existsSync } = await import('node:fs');
    assert.equal(existsSync(marker), false, 'the exec plugin did not run');
  });
});
