import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../src/core/errors.js';
import { validateServer } from '../../../src/kubeconfig/server.js';
import { kubeconfig, load, tempDir } from './helpers.js';

const t = tempDir();
after(() => t.cleanup());

const caA = t.write('ca-a.crt', 'CA-A');
const caFlag = t.write('ca-flag.crt', 'CA-FLAG');
const cfg = t.write('config', kubeconfig({
  current: 'main',
  clusters: {
    main: { server: 'https://main.example:6443', 'certificate-authority': caA, 'tls-server-name': 'kube.internal', 'proxy-url': 'http://proxy:3128' },
    insecure: { server: 'https://insecure.example', 'insecure-skip-tls-verify': true },
    other: { server: 'https://other.example:443/prefix/' },
    noserver: { 'insecure-skip-tls-verify': true },
  },
  users: {
    alice: { token: 'alice-token' },
    bob: { username: 'bob', password: 'pw' },
    carol: { 'client-certificate-data': Buffer.from('CERT').toString('base64'), 'client-key-data': Buffer.from('KEY').toString('base64') },
    halfcert: { 'client-certificate-data': Buffer.from('CERT').toString('base64') },
    imp: { token: 't', as: 'someone', 'as-groups': ['g1', 'g2'] },
    weird: { 'auth-provider': { name: 'keystone' } },
  },
  contexts: {
    main: { cluster: 'main', user: 'alice', namespace: 'team-a' },
    ins: { cluster: 'insecure', user: 'bob' },
    dangling: { cluster: 'gone', user: 'alice' },
    danglingUser: { cluster: 'main', user: 'ghost' },
    noserver: { cluster: 'noserver', user: 'alice' },
  },
}));
const withFlags = (flags: Record<string, unknown>) => load({ flags: { kubeconfig: cfg, ...flags }, cwd: t.dir });

describe('context selection and overrides', () => {
  test('current context: server, TLS, proxy, token, namespace', async () => {
    const rc = await withFlags({});
    assert.equal(rc.server, 'https://main.example:6443');
    assert.equal(rc.tls.caData!.toString(), 'CA-A');
    assert.equal(rc.tls.serverName, 'kube.internal');
    assert.equal(rc.tls.insecure, false);
    assert.equal(rc.proxyUrl, 'http://proxy:3128');
    assert.equal(await rc.credentials.getAuthorization(), 'Bearer alice-token');
    assert.deepEqual([rc.contextName, rc.clusterName, rc.userName], ['main', 'main', 'alice']);
    assert.equal(rc.namespace, 'team-a');
    assert.equal(rc.namespaceExplicit, false);
    assert.equal(rc.source, 'kubeconfig');
  });

  test('-n wins over the context namespace; default when neither', async () => {
    const rc = await withFlags({ namespace: 'mine' });
    assert.equal(rc.namespace, 'mine');
    assert.equal(rc.namespaceExplicit, true);
    assert.equal((await withFlags({ context: 'ins' })).namespace, 'default');
  });

  test('--context, --cluster, --user replace the context references', async () => {
    const rc = await withFlags({ context: 'ins', cluster: 'other', user: 'carol' });
    assert.equal(rc.server, 'https://other.example:443/prefix');
    assert.equal(rc.tls.certData!.toString(), 'CERT');
    assert.equal(rc.tls.keyData!.toString(), 'KEY');
    assert.equal(await rc.credentials.getAuthorization(), undefined);
  });

  test('basic auth user', async () => {
    const rc = await withFlags({ context: 'ins' });
    assert.equal(rc.tls.insecure, true);
    assert.equal(await rc.credentials.getAuthorization(), `Basic ${Buffer.from('bob:pw').toString('base64')}`);
  });

  test('--server and --token override the kubeconfig', async () => {
    const rc = await withFlags({ server: 'https://flag.example:7443', token: 'flag-token' });
    assert.equal(rc.server, 'https://flag.example:7443');
    assert.equal(rc.credentials.kind, 'token');
    assert.equal(await rc.credentials.getAuthorization(), 'Bearer flag-token');
    // the cluster's CA still applies
    assert.equal(rc.tls.caData!.toString(), 'CA-A');
  });

  test('--certificate-authority replaces the CA and clears insecure', async () => {
    const rc = await withFlags({ context: 'ins', 'certificate-authority': 'ca-flag.crt' });
    assert.equal(rc.tls.caData!.toString(), 'CA-FLAG');
    assert.equal(rc.tls.insecure, false);
  });

  test('--insecure-skip-tls-verify replaces the CA', async () => {
    const rc = await withFlags({ 'insecure-skip-tls-verify': true });
    assert.equal(rc.tls.caData, undefined);
    assert.equal(rc.tls.insecure, true);
  });

  test('CA and insecure together is rejected as kubectl does', async () => {
    await assert.rejects(withFlags({ 'insecure-skip-tls-verify': true, 'certificate-authority': caFlag }), {
      message: 'specifying a root certificates file with the insecure flag is not allowed',
    });
  });

  test('--tls-server-name, --client-certificate and --client-key', async () => {
    const cert = t.write('c.crt', 'FLAG-CERT');
    const key = t.write('c.key', 'FLAG-KEY');
    const rc = await withFlags({ 'tls-server-name': 'sni.example', 'client-certificate': cert, 'client-key': key });
    assert.equal(rc.tls.serverName, 'sni.example');
    assert.equal(rc.tls.certData!.toString(), 'FLAG-CERT');
    assert.equal(rc.tls.keyData!.toString(), 'FLAG-KEY');
  });

  test('impersonation fields are carried', async () => {
    const rc = await withFlags({ user: 'imp' });
    assert.deepEqual(rc.impersonate, { user: 'someone', uid: undefined, groups: ['g1', 'g2'], extra: undefined });
  });
});

describe('configuration errors', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['unknown --context', { context: 'nope' }, /^context "nope" does not exist in kubeconfig ".*config"$/],
    ['unknown --cluster', { cluster: 'nope' }, /^cluster "nope" does not exist in kubeconfig/],
    ['unknown --user', { user: 'nope' }, /^auth info "nope" does not exist in kubeconfig/],
    ['context naming a missing cluster', { context: 'dangling' }, /^context "dangling" in ".*config" refers to cluster "gone", which does not exist/],
    ['context naming a missing user', { context: 'danglingUser' }, /^context "danglingUser" in ".*config" refers to user "ghost", which does not exist/],
    ['cluster without a server', { context: 'noserver' }, /^no server found for cluster "noserver"/],
    ['cert without key', { user: 'halfcert' }, /client-cert and client-key must both be specified/],
    ['missing CA file', { 'certificate-authority': 'nope.crt' }, /^unable to read certificate-authority .*nope\.crt for --certificate-authority due to open .*: no such file or directory$/],
    ['unknown auth provider', { user: 'weird' }, /no Auth Provider found for name "keystone"/],
    ['bad server URL', { server: 'http://[bad' }, /^host must be a URL or a host:port pair: "http:\/\/\[bad"$/],
    ['unsupported scheme', { server: 'ftp://x' }, /unsupported protocol scheme "ftp"/],
  ];
  for (const [name, flags, re] of cases) {
    test(name, async () => {
      await assert.rejects(withFlags(flags), (e: Error) => {
        assert.ok(e instanceof ConfigError, `${e.constructor.name}: ${e.message}`);
        assert.match(e.message, re);
        assert.ok(!e.message.includes('alice-token'));
        return true;
      });
    });
  }

  test('a missing cluster is fine when --server is given', async () => {
    const rc = await withFlags({ context: 'dangling', server: 'https://s:1' });
    assert.equal(rc.server, 'https://s:1');
  });
});

describe('validateServer', () => {
  const none = { insecure: false };
  test('host:port gets http, or https when TLS settings exist', () => {
    assert.equal(validateServer('127.0.0.1:6443', none), 'http://127.0.0.1:6443');
    assert.equal(validateServer('localhost:8080', none), 'http://localhost:8080');
    assert.equal(validateServer('127.0.0.1:6443', { insecure: true }), 'https://127.0.0.1:6443');
    assert.equal(validateServer('kube:6443', { insecure: false, caData: Buffer.from('x') }), 'https://kube:6443');
  });
  test('trailing slashes dropped, prefixes kept', () => {
    assert.equal(validateServer('https://h:1/', none), 'https://h:1');
    assert.equal(validateServer('https://h/k8s/clusters/c-1/', none), 'https://h/k8s/clusters/c-1');
    assert.equal(validateServer('https://[::1]:6443', none), 'https://[::1]:6443');
  });
  test('credentials in the URL are refused without echoing them', () => {
    assert.throws(() => validateServer('https://user:secret@h:1', none), (e: Error) => !e.message.includes('secret'));
  });
});

describe('in-cluster', () => {
  const sa = tempDir('kdyn-sa-');
  after(() => sa.cleanup());
  sa.write('token', 'sa-token\n');
  sa.write('ca.crt', 'SA-CA');
  sa.write('namespace', 'pod-ns\n');
  const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };

  test('used when no kubeconfig gives a server', async () => {
    const rc = await load({ env, serviceAccountDir: sa.dir });
    assert.equal(rc.source, 'in-cluster');
    assert.equal(rc.server, 'https://10.0.0.1:443');
    assert.equal(rc.tls.caData!.toString(), 'SA-CA');
    assert.equal(await rc.credentials.getAuthorization(), 'Bearer sa-token');
    assert.equal(rc.namespace, 'pod-ns');
  });
  test('POD_NAMESPACE wins over the namespace file, -n over both', async () => {
    assert.equal((await load({ env: { ...env, POD_NAMESPACE: 'from-env' }, serviceAccountDir: sa.dir })).namespace, 'from-env');
    assert.equal((await load({ env: { ...env, POD_NAMESPACE: 'from-env' }, serviceAccountDir: sa.dir, flags: { namespace: 'x' } })).namespace, 'x');
  });
  test('IPv6 host is bracketed; --token overrides the service account', async () => {
    const rc = await load({ env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' }, serviceAccountDir: sa.dir, flags: { token: 'override' } });
    assert.equal(rc.server, 'https://[fd00::1]:6443');
    assert.equal(await rc.credentials.getAuthorization(), 'Bearer override');
  });
  test('not used without the token file, or when a kubeconfig has a server', async () => {
    assert.equal((await load({ env, serviceAccountDir: '/nonexistent' })).server, 'http://localhost:8080');
    const rc = await load({ env, serviceAccountDir: sa.dir, flags: { kubeconfig: cfg } });
    assert.equal(rc.source, 'kubeconfig');
  });
  test('a rotated token file is re-read after a 401', async () => {
    const rc = await load({ env, serviceAccountDir: sa.dir });
    assert.equal(await rc.credentials.getAuthorization(), 'Bearer sa-token');
    assert.equal(await rc.credentials.refreshAfterUnauthorized(), false, 'unchanged file: no retry');
    sa.write('token', 'rotated');
    assert.equal(await rc.credentials.refreshAfterUnauthorized(), true);
    assert.equal(await rc.credentials.getAuthorization(), 'Bearer rotated');
  });
});

describe('home directory', () => {
  test('~/.kube/config is read from the injected home', async () => {
    const home = tempDir('kdyn-home-');
    after(() => home.cleanup());
    home.write('.kube/config', kubeconfig({ current: 'h', clusters: { h: { server: 'https://home:1' } }, contexts: { h: { cluster: 'h' } } }));
    const rc = await load({ homeDir: home.dir });
    assert.equal(rc.server, 'https://home:1');
    assert.equal(rc.credentials.kind, 'none');
  });
});
