/**
 * kdyn as a kubectl plugin: with bin/kubectl-kdyn on PATH, `kubectl kdyn ...` runs kdyn with the
 * words after `kdyn`, kubectl's global flags (--kubeconfig, --context, -n, --request-timeout)
 * included, against the seeded local API server. Skipped where kubectl is missing.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { hasKubectl, repoRoot, runCommand, runKdyn } from '../support/cli.js';

let env: ServerEnv;
let pathEnv: Record<string, string>;

describe('kubectl kdyn', { skip: hasKubectl() ? false : 'kubectl not on PATH' }, () => {
  before(async () => {
    env = await startServerEnv({ seed: 'demo' }, 'kdyn-e2e-plugin-');
    const bin = join(env.dir, 'bin');
    mkdirSync(bin);
    // What `npm install -g` links: kubectl-kdyn on PATH (run with this test's node).
    writeFileSync(join(bin, 'kubectl-kdyn'), `#!/bin/sh\nexec "${process.execPath}" "${join(repoRoot(), 'bin', 'kubectl-kdyn')}" "$@"\n`);
    chmodSync(join(bin, 'kubectl-kdyn'), 0o755);
    pathEnv = { HOME: env.dir, PATH: `${bin}:${process.env.PATH}` };
  });
  after(() => env?.stop());

  const kubectl = (args: string[]) => runCommand('kubectl', args, { env: pathEnv });

  test('kubectl finds the plugin and runs kdyn version --client', async () => {
    const list = await kubectl(['plugin', 'list']);
    assert.match(list.out, /kubectl-kdyn$/m);
    const r = await kubectl(['kdyn', 'version', '--client']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Client Version: v\d+\.\d+\.\d+/);
  });

  test("kubectl's global flags pass through: the same output as kdyn itself", async () => {
    const args = ['get', 'rockets', '-n', 'demo', '--kubeconfig', env.kubeconfig, '--request-timeout=10s', '-o', 'go-template={{range .items}}{{.metadata.name}} {{end}}'];
    const [viaKubectl, direct] = await Promise.all([kubectl(['kdyn', ...args]), runKdyn(args, { env: pathEnv })]);
    assert.equal(viaKubectl.code, 0, viaKubectl.err);
    assert.equal(viaKubectl.out, direct.out);
    assert.match(viaKubectl.out, /falcon/);
  });

  test('as a plugin, help and usage errors say `kubectl kdyn` (kubectl help get: the same help as get --help)', async () => {
    const help = await kubectl(['kdyn', 'help', 'get']);
    assert.equal(help.code, 0, help.err);
    assert.match(help.out, /^Usage:\n {2}kubectl kdyn get \[/m);
    assert.match(help.out, /^ {2}kubectl kdyn get pods$/m);
    assert.match(help.out, /^ +-h, --help +help for get /m);
    assert.equal(help.out, (await kubectl(['kdyn', 'get', '--help'])).out);
    // kubectl's own `help get` is its `get --help` too.
    assert.equal((await kubectl(['help', 'get'])).out, (await kubectl(['get', '--help'])).out);
    const usage = await kubectl(['kdyn', 'get', '--no-such-flag']);
    assert.equal(usage.code, 2);
    assert.equal(usage.err, "error: unknown flag: --no-such-flag (see 'kubectl kdyn get --help')\n");
    const direct = await runKdyn(['get', '--no-such-flag'], { env: pathEnv });
    assert.equal(direct.err, "error: unknown flag: --no-such-flag (see 'kdyn get --help')\n", 'run directly, it is kdyn');
  });

  test('errors and exit codes come through unchanged', async () => {
    const r = await kubectl(['kdyn', 'get', 'nosuchtype', '--kubeconfig', env.kubeconfig]);
    assert.equal(r.code, 1);
    assert.match(r.err, /^error: the server doesn't have a resource type "nosuchtype"/m);
  });
});
