/**
 * connect() as a library user meets it, against the local API server: with no options it reads
 * the process's environment (KUBECONFIG, HOME) as client-node's loadFromDefault() does, and its
 * errors name the library's options (`requestTimeoutMs`) where the CLI's name its flags.
 * The process environment is the child's own: each case runs connect() in a child process.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServerEnv, type ServerEnv } from '../support/server-env.js';
import { repoRoot, runCommand, runKdyn } from '../support/cli.js';
import { connect, ConnectionError } from '../../src/index.js';

let env: ServerEnv;
before(async () => {
  env = await startServerEnv({ seed: 'demo' }, 'kdyn-connect-');
});
after(() => env.stop());

const index = pathToFileURL(join(repoRoot(), 'build/src/index.js')).href;

/** Runs `body` (after `const kdyn = await import(<the library>)`) in a node child with exactly `childEnv`. */
async function inChild(body: string, childEnv: Record<string, string>): Promise<string> {
  const script = `const kdyn = await import(${JSON.stringify(index)});\n${body}`;
  const r = await runCommand(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH, ...childEnv }, cwd: env.dir, timeoutMs: 30_000 });
  assert.equal(r.code, 0, r.err);
  return r.out;
}

/** What connect() found: the server, the namespace, and the configmaps it lists there. */
const REPORT = `const k = await kdyn.connect(OPTIONS);
try {
  const m = await k.mapper.resourceFor('configmaps');
  const list = await k.client.resource(m.gvr, m).namespace(k.namespace).listAll();
  console.log(k.config.source, k.config.server, k.namespace, list.items.map((o) => o.metadata.name).sort().join(','));
} finally {
  k.close();
}`;

test('connect() with no options reads $KUBECONFIG from the process environment', async () => {
  const kubeconfig = join(env.dir, 'from-env');
  env.server.writeKubeconfig(kubeconfig, { namespace: 'demo' });
  const out = await inChild(REPORT.replace('OPTIONS', ''), { KUBECONFIG: kubeconfig, HOME: join(env.dir, 'empty-home') });
  const [source, server, namespace, names] = out.trim().split(' ');
  assert.deepEqual([source, server, namespace], ['kubeconfig', env.server.url, 'demo']);
  assert.ok(names!.split(',').length > 0 && names !== '', `the demo namespace's configmaps: ${names}`);
});

test('connect() with no options and no KUBECONFIG reads ~/.kube/config under $HOME', async () => {
  const home = join(env.dir, 'home');
  mkdirSync(join(home, '.kube'), { recursive: true });
  env.server.writeKubeconfig(join(home, '.kube/config'), { namespace: 'team-a' });
  const out = await inChild(REPORT.replace('OPTIONS', ''), { HOME: home });
  const [source, server, namespace] = out.trim().split(' ');
  assert.deepEqual([source, server, namespace], ['kubeconfig', env.server.url, 'team-a']);
});

test('an injected env replaces the process environment entirely', async () => {
  const home = join(env.dir, 'home-injected');
  mkdirSync(join(home, '.kube'), { recursive: true });
  env.server.writeKubeconfig(join(home, '.kube/config'), { namespace: 'team-b' });
  // The child's own KUBECONFIG points at a file that does not exist: connect() must not look at it.
  const out = await inChild(REPORT.replace('OPTIONS', `{ env: { HOME: ${JSON.stringify(home)} } }`), { KUBECONFIG: join(env.dir, 'missing'), HOME: env.dir });
  assert.deepEqual(out.trim().split(' ').slice(0, 3), ['kubeconfig', env.server.url, 'team-b']);
});

test("a timed-out request names connect()'s requestTimeoutMs; the CLI's names --request-timeout", async () => {
  env.server.faults.add({ path: '/api/v1/namespaces/demo/configmaps', delayMs: 5000 });
  try {
    const k = await connect({ kubeconfig: env.kubeconfig, env: { HOME: env.dir }, cacheDir: join(env.dir, 'cache'), requestTimeoutMs: 300 });
    try {
      const list = k.client.resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('demo').listAll();
      await assert.rejects(list, (e: unknown) => {
        assert.ok(e instanceof ConnectionError);
        assert.match(e.message, /Client\.Timeout exceeded after 300ms on GET https:\/\/\S+\/api\/v1\/namespaces\/demo\/configmaps\?timeout=300ms; see requestTimeoutMs\)$/);
        return true;
      });
    } finally {
      k.close();
    }
    const cli = await runKdyn(['get', 'configmaps', '-n', 'demo', '--request-timeout=300ms', '--cache-dir', join(env.dir, 'cache')], {
      env: { PATH: process.env.PATH, HOME: env.dir, KUBECONFIG: env.kubeconfig },
      cwd: env.dir,
    });
    assert.equal(cli.code, 1);
    assert.match(cli.err, /Client\.Timeout exceeded after 300ms on GET \S+; see --request-timeout\)\n$/);
  } finally {
    env.server.faults.clear();
  }
});

test("connect()'s flags reach the configuration: namespace and impersonation", async () => {
  const k = await connect({
    kubeconfig: env.kubeconfig,
    env: { HOME: env.dir },
    cacheDir: join(env.dir, 'cache'),
    flags: { namespace: 'team-a', as: 'alice', 'as-group': ['devs', 'ops'], 'as-uid': '42' },
  });
  try {
    assert.equal(k.namespace, 'team-a');
    assert.equal(k.config.server, env.server.url);
    assert.deepEqual(k.config.impersonate, { user: 'alice', uid: '42', groups: ['devs', 'ops'], extra: undefined });
  } finally {
    k.close();
  }
});
