import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../../src/core/log.js';
import { createTransport } from '../../../src/transport/http.js';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { recordingClock } from '../transport/helpers.js';
import { kubeconfig, load, tempDir } from './helpers.js';

/** An (unsigned) JWT as OIDC providers issue: client-node only reads its `exp`. */
function jwt(exp: number): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ iss: 'https://issuer.kdyn-test.invalid', sub: 'alice', aud: 'kdyn', exp })}.c2lnbmF0dXJl`;
}

const idToken = jwt(Math.floor(Date.now() / 1000) + 3600);
const t = tempDir('kdyn-oidc-');
let s: LocalApiServer;
before(async () => {
  // The server accepts the id-token as its admin token, as a real API server with OIDC would.
  s = await startServer({ tls: true, seed: 'empty', token: idToken });
});
after(async () => {
  await s.stop();
  t.cleanup();
});

function config(idTok: string): string {
  return t.write(`kc-${idTok.length}-${Math.random()}.yaml`, kubeconfig({
    current: 'oidc',
    clusters: { local: { server: s.url, 'certificate-authority-data': Buffer.from(s.caPem!).toString('base64') } },
    users: { alice: { 'auth-provider': { name: 'oidc', config: { 'client-id': 'kdyn', 'id-token': idTok, 'idp-issuer-url': 'https://issuer.kdyn-test.invalid' } } } },
    contexts: { oidc: { cluster: 'local', user: 'alice' } },
  }));
}

describe('auth-provider users (through @kubernetes/client-node)', () => {
  test('oidc with a valid id-token: client-node turns it into the bearer token the server accepts', async () => {
    const rc = await load({ flags: { kubeconfig: config(idToken) } });
    assert.equal(rc.credentials.kind, 'auth-provider');
    assert.equal(await rc.credentials.getAuthorization(), `Bearer ${idToken}`);
    const tr = createTransport(rc, { logger: silentLogger, clock: recordingClock(), env: {}, timeoutMs: 0 });
    s.clearLog();
    const res = await tr.request({ path: '/version' });
    tr.close();
    assert.equal(res.status, 200);
  });

  test('oidc with an expired id-token and no refresh token: no header, the server answers 401', async () => {
    const expired = jwt(Math.floor(Date.now() / 1000) - 60);
    const rc = await load({ flags: { kubeconfig: config(expired) } });
    assert.equal(await rc.credentials.getAuthorization(), undefined);
    const tr = createTransport(rc, { logger: silentLogger, clock: recordingClock(), env: {}, timeoutMs: 0 });
    const res = await tr.request({ path: '/version' });
    tr.close();
    assert.equal(res.status, 401);
  });

  test('--token bypasses the auth provider (client-node is not consulted)', async () => {
    const rc = await load({ flags: { kubeconfig: config(idToken), token: 'flag-token' } });
    assert.equal(rc.credentials.kind, 'token');
    assert.equal(await rc.credentials.getAuthorization(), 'Bearer flag-token');
  });
});
