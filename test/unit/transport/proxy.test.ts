import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, ConnectionError } from '../../../src/core/errors.js';
import { silentLogger } from '../../../src/core/log.js';
import { createTransport } from '../../../src/transport/http.js';
import { inCidr, selectProxy, useProxy } from '../../../src/transport/proxy.js';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { recordingClock, restConfigFor, startProxy } from './helpers.js';

describe('proxy selection (pure)', () => {
  const cases: Array<[string, string, string, boolean]> = [
    // host, port, NO_PROXY, expected useProxy
    ['kube.example.com', '443', '', true],
    ['localhost', '443', '', false],
    ['127.0.0.1', '6443', '', false],
    ['::1', '6443', '', false],
    ['kube.example.com', '443', '*', false],
    ['kube.example.com', '443', 'example.com', false],
    ['example.com', '443', 'example.com', false],
    ['example.com', '443', '.example.com', true],
    ['a.example.com', '443', '.example.com', false],
    ['a.example.com', '443', '*.example.com', false],
    ['notexample.com', '443', 'example.com', true],
    ['kube.example.com', '443', 'kube.example.com:6443', true],
    ['kube.example.com', '6443', ' other.org , kube.example.com:6443', false],
    ['10.1.2.3', '443', '10.0.0.0/8', false],
    ['11.1.2.3', '443', '10.0.0.0/8', true],
    ['10.1.2.3', '443', '10.1.2.3', false],
    ['fd00::5', '443', 'fd00::/8', false],
    ['KUBE.example.com'.toLowerCase(), '443', 'EXAMPLE.COM', false],
  ];
  for (const [host, port, np, want] of cases) {
    test(`${host}:${port} NO_PROXY=${JSON.stringify(np)} -> ${want ? 'proxy' : 'direct'}`, () => {
      assert.equal(useProxy(host, port, np), want);
    });
  }
  test('inCidr', () => {
    assert.equal(inCidr('192.168.1.7', '192.168.0.0/16'), true);
    assert.equal(inCidr('192.169.1.7', '192.168.0.0/16'), false);
    assert.equal(inCidr('192.168.1.7', 'garbage/x'), false);
  });
  test('scheme picks the variable; upper case first; proxy-url wins over env', () => {
    const env = { HTTPS_PROXY: 'http://up:1', https_proxy: 'http://low:1', http_proxy: 'http://plain:1' };
    assert.equal(selectProxy('https://k.example:6443', undefined, env)!.url.host, 'up:1');
    assert.equal(selectProxy('https://k.example:6443', undefined, { https_proxy: 'low:3128' })!.url.href, 'http://low:3128/');
    assert.equal(selectProxy('http://k.example:8080', undefined, env)!.url.host, 'plain:1');
    assert.equal(selectProxy('https://k.example:6443', 'http://kc:9', env)!.source, 'proxy-url');
    assert.equal(selectProxy('https://127.0.0.1:6443', 'http://kc:9', {})!.url.host, 'kc:9', 'proxy-url applies to loopback too');
    assert.equal(selectProxy('https://k.example:6443', undefined, {}), undefined);
  });
  test('socks5 is refused clearly', () => {
    assert.throws(() => selectProxy('https://k:1', 'socks5://p:1080', {}), (e: Error) => e instanceof ConfigError && /socks5 proxies are not supported/.test(e.message));
  });
});

describe('through a proxy (real sockets)', () => {
  let s: LocalApiServer;
  let plain: LocalApiServer;
  before(async () => {
    [s, plain] = await Promise.all([startServer({ tls: true, seed: 'empty' }), startServer({ tls: false, seed: 'empty' })]);
  });
  after(() => Promise.all([s.stop(), plain.stop()]));
  const opts = (env: Record<string, string> = {}) => ({ logger: silentLogger, clock: recordingClock(), env, timeoutMs: 0 });

  test('proxy-url: CONNECT tunnel, TLS verified end to end, one tunnel for several requests', async () => {
    const proxy = await startProxy(s.port);
    const t = createTransport(restConfigFor(s, { proxyUrl: `http://user:p%40ss@127.0.0.1:${proxy.port}` }), opts());
    try {
      for (let i = 0; i < 3; i++) assert.equal((await t.request({ path: '/version' })).status, 200);
      assert.deepEqual(proxy.tunnels, [`127.0.0.1:${s.port}`]);
      assert.deepEqual(proxy.auth, [`Basic ${Buffer.from('user:p@ss').toString('base64')}`]);
    } finally {
      t.close();
      await proxy.stop();
    }
  });

  test('HTTPS_PROXY for a name only the proxy can resolve; NO_PROXY bypasses it', async () => {
    const proxy = await startProxy(s.port);
    const server = `https://kube.kdyn-test.invalid:${s.port}`;
    const tls = { caData: Buffer.from(s.caPem!), insecure: false, serverName: 'localhost' };
    const t = createTransport(restConfigFor(s, { server, tls }), opts({ https_proxy: proxy.url }));
    try {
      assert.equal((await t.request({ path: '/version' })).status, 200);
      assert.deepEqual(proxy.tunnels, [`kube.kdyn-test.invalid:${s.port}`]);
    } finally {
      t.close();
    }
    const direct = createTransport(restConfigFor(s, { server, tls }), opts({ HTTPS_PROXY: proxy.url, NO_PROXY: '.kdyn-test.invalid' }));
    await assert.rejects(direct.request({ path: '/version' }), /lookup kube\.kdyn-test\.invalid: no such host/);
    direct.close();
    assert.equal(proxy.tunnels.length, 1, 'NO_PROXY: the proxy was not asked');
    await proxy.stop();
  });

  test('loopback servers ignore HTTPS_PROXY (as Go does)', async () => {
    const proxy = await startProxy(s.port);
    const t = createTransport(restConfigFor(s), opts({ HTTPS_PROXY: proxy.url }));
    assert.equal((await t.request({ path: '/version' })).status, 200);
    t.close();
    assert.equal(proxy.tunnels.length, 0);
    await proxy.stop();
  });

  test('an http server through HTTP_PROXY: absolute-URI requests', async () => {
    const proxy = await startProxy(plain.port);
    const server = `http://plain.kdyn-test.invalid:${plain.port}`;
    const t = createTransport(restConfigFor(plain, { server }), opts({ HTTP_PROXY: proxy.url }));
    // 401: the token is not sent over plain http (user credentials apply only to TLS, as in clientcmd).
    assert.equal((await t.request({ path: '/version' })).status, 401);
    t.close();
    assert.deepEqual(proxy.forwarded, [`GET ${server}/version HTTP/1.1`]);
    await proxy.stop();
  });

  test('a proxy that refuses the tunnel', async () => {
    const proxy = await startProxy(s.port, { refuse: true });
    const t = createTransport(restConfigFor(s, { proxyUrl: proxy.url }), opts());
    await assert.rejects(t.request({ path: '/version' }), (e: Error) => {
      assert.ok(e instanceof ConnectionError);
      assert.equal(e.message, `Unable to connect to the server: proxyconnect: the proxy http://127.0.0.1:${proxy.port} refused to tunnel to 127.0.0.1:${s.port}: 403 Forbidden`);
      return true;
    });
    t.close();
    await proxy.stop();
  });
});
