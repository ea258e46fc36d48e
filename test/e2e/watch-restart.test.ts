/**
 * `kdyn watch --for` through a restart whose server first answers 403 (issue 35), the built CLI
 * against the local API server: the outage (the port refuses connections), then 403 on the watch
 * while "the RBAC cache syncs" (an injected fault), then the answers again. The wait goes on and
 * ends when the condition holds; stderr says when each failure began and when the watch is back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServerEnv } from '../support/server-env.js';
import { clientFor, envFor, startKdyn } from './watch-helpers.js';

test('watch --for: an outage, then 403 while the server restarts, then the condition met: exit 0, one line per failure and one when it clears', async () => {
  const o = await startServerEnv({ seed: 'demo' }, 'kdyn-e2e-watch-restart-');
  const cms = clientFor(o.server).resource({ group: '', version: 'v1', resource: 'configmaps' }, { namespaced: true }).namespace('demo');
  await cms.create({ metadata: { name: 'gate' }, data: { phase: 'Pending' } });
  const k = startKdyn(['watch', 'configmaps', 'gate', '-n', 'demo', '--for', 'jsonpath={.data.phase}=Ready', '--timeout', '2m'], envFor(o.dir, o.kubeconfig), o.dir);
  const stderrShows = async (re: RegExp, what: string) => {
    const deadline = Date.now() + 20_000;
    while (!re.test(k.err())) {
      assert.ok(k.child.exitCode === null, `kdyn ended (${k.child.exitCode}) before ${what}; stderr:\n${k.err()}`);
      assert.ok(Date.now() < deadline, `timed out waiting for ${what}; stderr:\n${k.err()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  try {
    // The watch request is open once kdyn listed the object.
    const watching = () => o.server.requestLog.some((r) => r.path === '/api/v1/namespaces/demo/configmaps' && /(^|&)watch=/.test(r.query));
    for (const deadline = Date.now() + 15_000; !watching(); await new Promise((r) => setTimeout(r, 20))) assert.ok(Date.now() < deadline, 'kdyn started its watch');
    await o.server.stopListening();
    await stderrShows(/retrying every second until the server is back/, 'the outage warning');
    const message = 'configmaps "gate" is forbidden: User "viewer" cannot watch resource "configmaps" in API group "" in the namespace "demo"';
    const forbidden = o.server.faults.add({
      path: /^\/api\/v1\/namespaces\/demo\/configmaps\?.*watch=/,
      status: 403,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', code: 403 }),
      times: 3,
    });
    await o.server.listenAgain();
    await stderrShows(/Forbidden/, 'the 403 notice');
    await cms.patch('gate', { data: { phase: 'Ready' } }, 'merge');
    const end = await Promise.race([k.exited, new Promise<undefined>((r) => setTimeout(r, 30_000, undefined))]);
    assert.ok(end, `still waiting 30 s after the condition was met; stderr:\n${k.err()}`);
    assert.equal(end.code, 0, k.err());
    assert.equal(k.out(), 'configmap/gate condition met\n');
    assert.equal(forbidden.hits, 3);
    const lines = k.err().trimEnd().split('\n');
    assert.equal(lines.length, 3, k.err());
    assert.match(lines[0]!, /^Warning: watch of configmaps: The connection to the server 127\.0\.0\.1:\d+ was refused - did you specify the right host or port\?; retrying every second until the server is back$/);
    assert.equal(lines[1], `Warning: watch of configmaps: Error from server (Forbidden): ${message}; retrying for up to 120s, as a restarting server answers so for a moment (--retry-for)`);
    assert.match(lines[2]!, /^watch of configmaps: the server is back after \d+\.\ds; watching again$/);
  } finally {
    if (k.child.exitCode === null) k.child.kill('SIGTERM');
    await k.exited;
    await o.stop();
  }
});
