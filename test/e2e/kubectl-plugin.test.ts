/**
 * kdyn as a kubectl plugin: with bin/kubectl-kdyn on PATH, `kubectl kdyn ...` runs kdyn with the
 * words after `kdyn`, kubectl's global flags (--kubeconfig, --context, -n, --request-timeout)
 * included, against the seeded local API server; `kubectl kdyn <TAB>` through kubectl's plugin
 * completion (kubectl_complete-kdyn on PATH), by kubectl's `__complete` and in fish where installed.
 * Skipped where kubectl is missing.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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
    for (const name of ['kubectl-kdyn', 'kubectl_complete-kdyn']) {
      writeFileSync(join(bin, name), `#!/bin/sh\nexec "${process.execPath}" "${join(repoRoot(), 'bin', name)}" "$@"\n`);
      chmodSync(join(bin, name), 0o755);
    }
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

  describe('kubectl kdyn <TAB> (kubectl_complete-kdyn)', () => {
    let completeEnv: Record<string, string>;
    before(async () => {
      // A TAB press waits one second for names; a loaded CI machine may need more (docs/configuration.md).
      completeEnv = { ...pathEnv, KUBECONFIG: env.kubeconfig, KDYN_TEST_COMPLETION_TIMEOUT_MS: '30000' };
      // Types complete from the discovery cache, as kdyn's own completion: fill it as a first command would.
      assert.equal((await runKdyn(['api-resources'], { env: completeEnv })).code, 0);
    });
    /** kubectl's completion engine (what its bash, zsh and fish scripts call): the candidates and the directive line. */
    const complete = async (...words: string[]) => {
      const r = await runCommand('kubectl', ['__complete', 'kdyn', ...words], { env: completeEnv });
      assert.equal(r.code, 0, r.err);
      const lines = r.out.split('\n').filter((l) => l !== '');
      return { words: lines.slice(0, -1).map((l) => l.split('\t')[0]!), directive: lines.at(-1) };
    };

    test('commands first, flags after a dash; resource types; names; TYPE/NAME; -o formats', async () => {
      const commands = await complete('');
      assert.deepEqual(commands.words, ['api-resources', 'diff', 'apply', 'applyset', 'completion', 'explain', 'get', 'delete', 'watch', 'types', 'version', 'help']);
      assert.equal(commands.directive, ':4', 'no file names');
      assert.ok((await complete('get', '--show-k')).words.includes('--show-kind'));
      const types = await complete('get', 'ro');
      assert.ok(types.words.includes('rockets.demo.kdyn.dev'), types.words.join(' '));
      assert.deepEqual((await complete('get', 'bi')).words, [], 'bindings cannot be read: not offered');
      assert.deepEqual((await complete('get', '-n', 'demo', 'rockets.demo.kdyn.dev', '')).words, ['electron', 'falcon']);
      assert.deepEqual((await complete('get', '-n', 'demo', 'rockets', 'falcon', '')).words, ['electron'], 'names given are left out, as kubectl');
      assert.deepEqual((await complete('get', '-n', 'demo', 'rockets/f')).words, ['rockets/falcon']);
      assert.deepEqual((await complete('get', '-n', 'de')).words, ['default', 'demo']);
      const formats = await complete('get', '-o', 'go');
      assert.deepEqual(formats, { words: ['go-template=', 'go-template-file='], directive: ':6' });
      assert.equal((await complete('apply', '-f', '')).directive, ':0', 'file names for -f');
    });

    test('in fish, through kubectl\'s own completion script', { skip: spawnSync('fish', ['--version'], { stdio: 'ignore' }).status === 0 ? false : 'fish not installed' }, async () => {
      const fish = async (line: string) => {
        const r = await runCommand('fish', ['--no-config', '-c', `kubectl completion fish | source; complete -C ${JSON.stringify(line)}`], { env: completeEnv });
        assert.equal(r.code, 0, r.err);
        return r.out.split('\n').filter((l) => l !== '').map((l) => l.split('\t')[0]!);
      };
      assert.ok((await fish('kubectl kdyn ge')).includes('get'));
      assert.deepEqual(await fish('kubectl kdyn get -n demo rockets fa'), ['falcon']);
      assert.deepEqual(await fish('kubectl kdyn get -n demo rockets/el'), ['rockets/electron']);
    });
  });

  test('errors and exit codes come through unchanged', async () => {
    const r = await kubectl(['kdyn', 'get', 'nosuchtype', '--kubeconfig', env.kubeconfig]);
    assert.equal(r.code, 1);
    assert.match(r.err, /^error: the server doesn't have a resource type "nosuchtype"/m);
  });
});
