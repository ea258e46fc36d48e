import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { cachePaths, computeDiscoverCacheDir, resolveCacheRoot, serverResourcesFile } from '../../../src/discovery/cache-dir.js';
import { dropUnsafeNames, isSafeGroupName, isSafeVersionName } from '../../../src/discovery/names.js';

describe('computeDiscoverCacheDir (kubectl config_flags.go)', () => {
  // Expected values follow kubectl's rule: strip the first https:// then http://, `[^(\w/.)]` -> `_`.
  const cases: Array<[string, string | undefined]> = [
    ['https://my-c.example.com:6443', '/c/discovery/my_c.example.com_6443'],
    ['https://127.0.0.1:6443', '/c/discovery/127.0.0.1_6443'],
    ['http://localhost:8080', '/c/discovery/localhost_8080'],
    ['https://[::1]:6443', '/c/discovery/___1__6443'],
    ['https://host/prefix/path', '/c/discovery/host/prefix/path'],
    ['https://host:443/', '/c/discovery/host_443'],
    ['https://a(b)c', '/c/discovery/a(b)c'],
    ['https://x/../../etc', undefined],
    ['https://..', undefined],
  ];
  for (const [host, want] of cases) {
    test(host, () => assert.equal(computeDiscoverCacheDir('/c/discovery', host), want));
  }
  test('cachePaths keeps kdyn files in a folder of its own', () => {
    const p = cachePaths('/c', 'https://127.0.0.1:6443')!;
    assert.equal(p.serverGroupsFile, '/c/discovery/127.0.0.1_6443/servergroups.json');
    assert.equal(p.combinedFile, '/c/kdyn/127.0.0.1_6443/discovery.json');
    assert.equal(serverResourcesFile(p.kubectlDir, '', 'v1'), '/c/discovery/127.0.0.1_6443/v1/serverresources.json');
    assert.equal(serverResourcesFile(p.kubectlDir, 'apps', 'v1'), '/c/discovery/127.0.0.1_6443/apps/v1/serverresources.json');
    assert.equal(cachePaths('/c', 'https://x/../../..'), undefined);
  });
});

describe('cache root', () => {
  test('--cache-dir, then $KUBECACHEDIR, then ~/.kube/cache', async () => {
    assert.equal(await resolveCacheRoot({ cacheDir: '/flag', env: { KUBECACHEDIR: '/env', HOME: '/home/u' } }), '/flag');
    assert.equal(await resolveCacheRoot({ cacheDir: '', env: { KUBECACHEDIR: '/env', HOME: '/home/u' } }), '/env');
    assert.equal(await resolveCacheRoot({ env: { HOME: '/home/u' } }), join('/home/u', '.kube', 'cache'));
    assert.equal(await resolveCacheRoot({ cacheDir: 'rel', env: {}, cwd: '/w' }), '/w/rel');
  });
  test('no home directory: env-paths cache dir for kdyn', async () => {
    const { default: envPaths } = await import('env-paths');
    assert.equal(await resolveCacheRoot({ env: {} }), envPaths('kdyn', { suffix: '' }).cache);
  });
});

describe('group and version names', () => {
  test('DNS-style names pass, hostile ones do not', () => {
    for (const g of ['', 'apps', 'stable.example.com', 'x-1.io']) assert.ok(isSafeGroupName(g), g);
    for (const g of ['..', '.', 'a/b', '../../etc', 'a\u0000b', 'A.io', 'a..b', '-a', 'a.', 'x'.repeat(254), 'a b']) assert.ok(!isSafeGroupName(g), JSON.stringify(g));
    for (const v of ['v1', 'v1beta1', 'v2alpha3']) assert.ok(isSafeVersionName(v), v);
    for (const v of ['', '..', 'v1/../x', 'v1.2', 'V1', 'v1\u0000']) assert.ok(!isSafeVersionName(v), JSON.stringify(v));
  });
  test('dropUnsafeNames removes hostile groups and versions and reports them', () => {
    const s = dropUnsafeNames({
      groups: [
        { name: '', versions: ['v1'], preferredVersion: 'v1' },
        { name: '../../evil', versions: ['v1'], preferredVersion: 'v1' },
        { name: 'ok.io', versions: ['..', 'v1'], preferredVersion: '..' },
      ],
      resources: new Map([['v1', []], ['../../evil/v1', []], ['ok.io/..', []], ['ok.io/v1', []]]),
      failures: [],
    });
    assert.deepEqual(s.groups, [{ name: '', versions: ['v1'], preferredVersion: 'v1' }, { name: 'ok.io', versions: ['v1'], preferredVersion: 'v1' }]);
    assert.deepEqual([...s.resources.keys()], ['v1', 'ok.io/v1']);
    assert.equal(s.failures.length, 2);
    assert.ok(s.failures.every((f) => f.reason === 'failed' && /not a valid group\/version name/.test(f.message)));
  });
});
