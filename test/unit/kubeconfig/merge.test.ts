import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ConfigError } from '../../../src/core/errors.js';
import { loadMerged, selectFiles } from '../../../src/kubeconfig/merge.js';
import { kubeconfig, load, tempDir } from './helpers.js';

const t = tempDir();
after(() => t.cleanup());

describe('selectFiles', () => {
  test('--kubeconfig alone, resolved against cwd', () => {
    const sel = selectFiles('cfg', { KUBECONFIG: '/a:/b' }, '/work', '/home/u');
    assert.deepEqual(sel.files, ['/work/cfg']);
    assert.equal(sel.explicit, true);
  });
  test('KUBECONFIG split on ":", empty entries dropped, duplicates removed in order', () => {
    const sel = selectFiles(undefined, { KUBECONFIG: '/a::/b:/a:rel' }, '/w', '/home/u');
    assert.deepEqual(sel.files, ['/a', '/b', '/w/rel']);
    assert.equal(sel.explicit, false);
  });
  test('~/.kube/config when neither is set', () => {
    assert.deepEqual(selectFiles(undefined, {}, '/w', '/home/u').files, ['/home/u/.kube/config']);
    assert.deepEqual(selectFiles(undefined, { KUBECONFIG: '' }, '/w', '/home/u').files, ['/home/u/.kube/config']);
  });
});

describe('merge with kubectl rules', () => {
  const a = t.write('a.yaml', kubeconfig({
    current: 'ctx-a',
    clusters: { shared: { server: 'https://from-a:6443' }, onlyA: { server: 'https://a-only:1' } },
    users: { u: { token: 'token-a' } },
    contexts: { 'ctx-a': { cluster: 'shared', user: 'u', namespace: 'ns-a' } },
  }));
  const b = t.write('b.yaml', kubeconfig({
    current: 'ctx-b',
    clusters: { shared: { server: 'https://from-b:6443', 'insecure-skip-tls-verify': true }, onlyB: { server: 'https://b-only:1' } },
    users: { u: { token: 'token-b' }, ub: { token: 'tb' } },
    contexts: { 'ctx-a': { cluster: 'onlyB', user: 'ub' }, 'ctx-b': { cluster: 'onlyB', user: 'ub' } },
  }));

  test('first file owns a name whole; first current-context wins; missing files skipped', async () => {
    const m = await loadMerged(selectFiles(undefined, { KUBECONFIG: `${join(t.dir, 'missing.yaml')}:${a}:${b}` }, '/', undefined));
    assert.equal(m.currentContext, 'ctx-a');
    assert.deepEqual(m.files, [a, b]);
    // the whole entry comes from a: b's insecure flag is not merged into it
    assert.deepEqual(m.clusters.get('shared')!.value, { server: 'https://from-a:6443' });
    assert.equal(m.clusters.get('shared')!.file, a);
    assert.equal(m.clusters.get('onlyB')!.file, b);
    assert.equal((m.users.get('u')!.value as { token: string }).token, 'token-a');
    assert.equal(m.contexts.get('ctx-a')!.value.cluster, 'shared');
  });

  test('reversed order gives b precedence', async () => {
    const rc = await load({ env: { KUBECONFIG: `${b}:${a}` } });
    assert.equal(rc.contextName, 'ctx-b');
    assert.equal(rc.server, 'https://b-only:1');
    assert.equal(rc.files.length, 2);
  });

  test('the merged config resolves through the first file', async () => {
    const rc = await load({ env: { KUBECONFIG: `${a}:${b}` } });
    assert.equal(rc.server, 'https://from-a:6443');
    assert.equal(rc.tls.insecure, false);
    assert.equal(rc.namespace, 'ns-a');
    assert.equal(await rc.credentials.getAuthorization(), 'Bearer token-a');
  });

  test('all KUBECONFIG files missing: kubectl default server', async () => {
    const rc = await load({ env: { KUBECONFIG: join(t.dir, 'nope1') } });
    assert.equal(rc.server, 'http://localhost:8080');
    assert.equal(rc.source, 'default');
    assert.equal(rc.namespace, 'default');
  });
});

describe('file errors', () => {
  test('--kubeconfig that does not exist', async () => {
    await assert.rejects(load({ flags: { kubeconfig: 'no-such.yaml' }, cwd: t.dir }), (e: Error) => {
      assert.ok(e instanceof ConfigError);
      assert.equal(e.message, 'stat no-such.yaml: no such file or directory');
      return true;
    });
  });
  test('malformed YAML names the file and the line', async () => {
    const bad = t.write('bad.yaml', 'apiVersion: v1\nclusters:\n- name: x\n  cluster: {server: "https://x"\nusers: []\n');
    await assert.rejects(load({ flags: { kubeconfig: bad } }), (e: Error) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, new RegExp(`^error loading config file "${bad}": yaml: line \\d+: .+`));
      assert.ok(!e.message.includes('\n'), 'one line');
      return true;
    });
  });
  test('a YAML scalar is not a kubeconfig', async () => {
    const f = t.write('scalar.yaml', 'just a string\n');
    await assert.rejects(load({ flags: { kubeconfig: f } }), /error loading config file ".*scalar.yaml": not a kubeconfig/);
  });
  test('clusters that is not a list', async () => {
    const f = t.write('notlist.yaml', 'clusters: {a: 1}\n');
    await assert.rejects(load({ flags: { kubeconfig: f } }), /"clusters" must be a list/);
  });
  test('a name twice in one file is refused, as client-go does', async () => {
    const f = t.write('dup.yaml', kubeconfig({ clusters: { a: { server: 'https://a:1' } } }) as object);
    const text = `clusters:\n- name: a\n  cluster: {server: "https://a:1"}\n- name: a\n  cluster: {server: "https://a:2"}\n`;
    const g = t.write('dup2.yaml', text);
    await load({ flags: { kubeconfig: f } }); // one entry: fine
    await assert.rejects(load({ flags: { kubeconfig: g } }), { message: `error loading config file "${g}": duplicate name "a" in clusters` });
  });
  test('an empty file is an empty config', async () => {
    const f = t.write('empty.yaml', '');
    const rc = await load({ flags: { kubeconfig: f } });
    assert.equal(rc.server, 'http://localhost:8080');
  });
});

describe('relative paths resolve against the file that names them', () => {
  test('certificate-authority, client-certificate/key, tokenFile and exec command with a slash', async () => {
    t.write('sub/ca.crt', 'CA-BYTES');
    t.write('sub/client.crt', 'CERT-BYTES');
    t.write('sub/client.key', 'KEY-BYTES');
    t.write('sub/tok', 'file-token\n');
    const f = t.write('sub/cfg.yaml', kubeconfig({
      current: 'c',
      clusters: { c: { server: 'https://x:1', 'certificate-authority': 'ca.crt' } },
      users: { u: { 'client-certificate': 'client.crt', 'client-key': './client.key', tokenFile: 'tok' } },
      contexts: { c: { cluster: 'c', user: 'u' } },
    }));
    const rc = await load({ flags: { kubeconfig: f }, cwd: '/' });
    assert.equal(rc.tls.caData!.toString(), 'CA-BYTES');
    assert.equal(rc.tls.certData!.toString(), 'CERT-BYTES');
    assert.equal(rc.tls.keyData!.toString(), 'KEY-BYTES');
    assert.equal(rc.credentials.kind, 'token-file');
    assert.equal(await rc.credentials.getAuthorization(), 'Bearer file-token');

    const m = await loadMerged(selectFiles(undefined, { KUBECONFIG: t.write('sub/exec.yaml', kubeconfig({
      users: { e: { exec: { command: './bin/plugin', apiVersion: 'client.authentication.k8s.io/v1' } }, bare: { exec: { command: 'plugin' } } },
    })) }, '/', undefined));
    assert.equal((m.users.get('e')!.value.exec!.command), join(t.dir, 'sub/bin/plugin'));
    assert.equal((m.users.get('bare')!.value.exec!.command), 'plugin');
  });
});
