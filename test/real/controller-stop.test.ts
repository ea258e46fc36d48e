/**
 * docs/controller-example.md's controller stopping while its real kube-apiserver hangs (issue 35):
 * the server is stopped with SIGSTOP after the controller synced; the informer's resync (shortened
 * here from the page's 5 minutes) queues the Notes again and a reconcile's PATCH waits at the
 * stopped server (seen as unread bytes on the server's side of the controller's connection: `ss`,
 * or one the server read just before it stopped);
 * then SIGTERM. The controller must exit while the server is still stopped, within the drain
 * deadline (shortened from the page's 10 s), naming the key it left in flight; the server is
 * resumed only after that.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { docBlock, runExample } from '../support/readme-example.js';
import { CONTROLLER_DOC } from '../support/controller-example.js';
import { installCrd } from './crd-fixtures.js';
import { SKIP_REAL, startRealEnv, type RealEnv } from './real-helpers.js';

/** The server-side sockets of `port` holding unread bytes sent from one of `pid`'s sockets. */
function waitingAtServer(port: number, pid: number): number {
  const lines = execFileSync('ss', ['-tnpH', 'state', 'established'], { encoding: 'utf8' }).split('\n');
  const own = new Set<string>(); // the client's local ports to the server
  const server: Array<{ recvQ: number; peerPort: string }> = [];
  for (const l of lines) {
    const f = l.trim().split(/\s+/);
    if (f.length < 4) continue;
    const [recvQ, , local, peer] = f;
    if (peer!.endsWith(`:${port}`) && l.includes(`pid=${pid},`)) own.add(local!.split(':').pop()!);
    if (local!.endsWith(`:${port}`)) server.push({ recvQ: Number(recvQ), peerPort: peer!.split(':').pop()! });
  }
  return server.filter((s) => s.recvQ > 0 && own.has(s.peerPort)).length;
}

/** The process state letter of /proc/PID/stat (`T`: stopped). */
function procState(pid: number): string {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0]!;
}

describe('the controller example stopping against a hung (SIGSTOP) kube-apiserver', { skip: SKIP_REAL }, () => {
  let env: RealEnv;
  before(async () => {
    env = await startRealEnv();
  });
  after(async () => {
    const pid = env?.cluster.pid();
    if (pid) process.kill(pid, 'SIGCONT');
    await env?.stop();
  });

  test('SIGTERM with a PATCH hanging at the stopped server: exits 0 within its drain deadline, naming the key in flight', async (t) => {
    const crd = load(docBlock(CONTROLLER_DOC, 'yaml', 'kind: CustomResourceDefinition')) as Record<string, unknown>;
    await installCrd(env, crd);
    const ns = await env.namespace('hang');
    for (const name of ['n1', 'n2']) await env.create(`/apis/example.kdyn.dev/v1/namespaces/${ns}/notes`, { apiVersion: 'example.kdyn.dev/v1', kind: 'Note', metadata: { name }, spec: { text: name } });
    const source = docBlock(CONTROLLER_DOC, 'ts', 'await runWorkers(queue, reconcile, {');
    // The page's guard skips a Note whose generation is done, so a resync sends nothing; this test
    // needs the resync's reconcile to send its PATCH to the stopped server: the guard goes.
    const guard = /^\s*if \(generation === .*observedGeneration\) return;\n/m;
    assert.match(source, guard, 'the page still has the guard this test takes out');
    const shortened = source.replace(guard, '').replace('resyncMs: 5 * 60_000', 'resyncMs: 300').replace('drainTimeoutMs: 10_000', 'drainTimeoutMs: 2_000');
    assert.notEqual(shortened, source);
    assert.ok(shortened.includes('drainTimeoutMs: 2_000') && shortened.includes('resyncMs: 300'), 'the page still has the resync and drain settings this test shortens');

    const home = join(env.dir, 'home-controller');
    mkdirSync(home);
    const apiserver = env.cluster.pid()!;
    const stop = new AbortController();
    let controller = 0;
    let reconciled = 0;
    let stoppedAt: Promise<void> | undefined;
    let serverStateAtExit = '';
    let termAt = 0;
    const run = runExample(shortened, {
      cwd: home,
      env: { HOME: home, KUBECONFIG: env.cluster.kubeconfigs.token },
      timeoutMs: 120_000,
      stop: stop.signal,
      onStart: (pid) => (controller = pid),
      onLine: (line) => {
        if (!line.startsWith(`reconciled ${ns}/`) || ++reconciled !== 2 || stoppedAt) return;
        // Synced and both Notes done: the server hangs from now on.
        process.kill(apiserver, 'SIGSTOP');
        stoppedAt = (async () => {
          // A reconcile's PATCH now hangs at the stopped server: either one the server read just
          // before it stopped (no unread bytes to see), or the next resync's, which sits unread. Wait
          // for the unread one, or 5 resync periods, by which a reconcile is surely blocked.
          const until = Date.now() + 1_500;
          while (waitingAtServer(env.cluster.port, controller) === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
          termAt = Date.now();
          stop.abort(); // SIGTERM
        })();
      },
    }).then((r) => {
      serverStateAtExit = procState(apiserver);
      t.diagnostic(`the controller exited ${Date.now() - termAt} ms after SIGTERM (drain deadline 2000 ms), the server stopped`);
      return r;
    });
    const result = await run;
    await stoppedAt;
    process.kill(apiserver, 'SIGCONT');
    assert.equal(serverStateAtExit, 'T', 'the controller exited while the server was still stopped');
    assert.equal(result.code, 0, `${result.err}\n${result.out}`);
    assert.equal(result.out.trim().split('\n').at(-1), 'stopped');
    assert.match(result.err, new RegExp(`^stopped with ${ns}/n[12](, ${ns}/n[12])? in flight$`, 'm'));
    assert.match(result.err, new RegExp(`^reconcile ${ns}/n[12]: the controller's drain deadline \\(2000 ms\\) passed$`, 'm'));
  });
});
