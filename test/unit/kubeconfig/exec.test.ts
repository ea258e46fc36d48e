import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { FakeClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import { CredentialError, createExecProvider, execInfo } from '../../../src/kubeconfig/exec.js';
import type { ExecConfig } from '../../../src/kubeconfig/types.js';
import { kubeconfig, load, tempDir } from './helpers.js';

const t = tempDir('kdyn-exec-');
after(() => t.cleanup());

/**
 * A credential plugin: appends {info, args, env FOO} to $RECORD (one JSON line per run) and prints
 * the ExecCredential from $REPLY (a JSON file), with the run number substituted for "#N".
 */
const plugin = t.write('plugin.mjs', `
import { appendFileSync, readFileSync, existsSync } from 'node:fs';
const rec = process.env.RECORD;
const runs = existsSync(rec) ? readFileSync(rec, 'utf8').split('\\n').filter(Boolean).length : 0;
appendFileSync(rec, JSON.stringify({ info: JSON.parse(process.env.KUBERNETES_EXEC_INFO), args: process.argv.slice(2), foo: process.env.FOO ?? null }) + '\\n');
if (process.env.FAIL) { process.stderr.write('plugin says: ' + process.env.FAIL + '\\n  second line\\n'); process.exit(4); }
process.stderr.write('note from plugin\\n');
process.stdout.write(readFileSync(process.env.REPLY, 'utf8').replaceAll('#N', String(runs + 1)));
`);

let n = 0;
function setup(reply: unknown, extra: Partial<ExecConfig> = {}, envExtra: Record<string, string> = {}) {
  n++;
  const record = join(t.dir, `record-${n}.jsonl`);
  const replyFile = t.write(`reply-${n}.json`, typeof reply === 'string' ? reply : JSON.stringify(reply));
  const exec: ExecConfig = {
    apiVersion: 'client.authentication.k8s.io/v1',
    command: process.execPath,
    args: [plugin, '--flag', 'v'],
    env: [{ name: 'FOO', value: 'bar' }, { name: 'RECORD', value: record }, { name: 'REPLY', value: replyFile }],
    interactiveMode: 'IfAvailable',
    ...extra,
  };
  const runs = () => (existsSync(record) ? readFileSync(record, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
  return { exec, runs, env: { PATH: process.env.PATH, ...envExtra } };
}

const cred = (status: object, apiVersion = 'client.authentication.k8s.io/v1') => ({ apiVersion, kind: 'ExecCredential', status });

function provider(s: ReturnType<typeof setup>, o: { clock?: FakeClock; tty?: boolean; cluster?: object } = {}) {
  let stderr = '';
  const p = createExecProvider({
    exec: s.exec,
    userName: 'u',
    cluster: { server: 'https://k:6443', ...(o.cluster ?? {}) },
    env: s.env,
    clock: o.clock ?? new FakeClock(),
    logger: silentLogger,
    stderr: { write: (x: string) => (stderr += x) },
    stdinIsTTY: o.tty ?? false,
  });
  return { p, stderr: () => stderr };
}

describe('exec credential plugins', () => {
  test('token, KUBERNETES_EXEC_INFO, args and env; cached without expiry', async () => {
    const s = setup(cred({ token: 'tok-#N' }));
    const { p, stderr } = provider(s);
    assert.equal(await p.getAuthorization(), 'Bearer tok-1');
    assert.equal(await p.getAuthorization(), 'Bearer tok-1');
    const runs = s.runs();
    assert.equal(runs.length, 1, 'cached in memory');
    assert.deepEqual(runs[0].info, { kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1', spec: { interactive: false } });
    assert.deepEqual(runs[0].args, ['--flag', 'v']);
    assert.equal(runs[0].foo, 'bar');
    assert.equal(stderr(), 'note from plugin\n', 'a successful plugin\'s stderr is passed on');
  });

  test('concurrent callers share one plugin run', async () => {
    const s = setup(cred({ token: 'tok-#N' }));
    const { p } = provider(s);
    const all = await Promise.all([p.getAuthorization(), p.getAuthorization(), p.getAuthorization()]);
    assert.deepEqual(all, ['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-1']);
    assert.equal(s.runs().length, 1);
  });

  test('expirationTimestamp: reused until it passes, then the plugin runs again', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 0, 0, 0));
    const s = setup(cred({ token: 'tok-#N', expirationTimestamp: '2026-01-01T00:10:00Z' }));
    const { p } = provider(s, { clock });
    assert.equal(await p.getAuthorization(), 'Bearer tok-1');
    clock.advance(9 * 60_000);
    assert.equal(await p.getAuthorization(), 'Bearer tok-1');
    clock.advance(60_000);
    assert.equal(await p.getAuthorization(), 'Bearer tok-2');
    assert.equal(s.runs().length, 2);
  });

  test('refresh after a 401 runs the plugin again', async () => {
    const s = setup(cred({ token: 'tok-#N' }));
    const { p } = provider(s);
    assert.equal(await p.refreshAfterUnauthorized(), false, 'nothing cached yet: nothing to refresh');
    await p.getAuthorization();
    assert.equal(await p.refreshAfterUnauthorized(), true);
    assert.equal(await p.getAuthorization(), 'Bearer tok-2');
  });

  test('client certificate and key', async () => {
    const s = setup(cred({ clientCertificateData: 'CERT-PEM', clientKeyData: 'KEY-PEM' }));
    const { p } = provider(s);
    assert.equal(await p.getAuthorization(), undefined);
    const c = await p.getClientCertificate!();
    assert.equal(c!.cert.toString(), 'CERT-PEM');
    assert.equal(c!.key.toString(), 'KEY-PEM');
  });

  test('v1beta1 and provideClusterInfo with the exec extension config', async () => {
    const s = setup(cred({ token: 'x' }, 'client.authentication.k8s.io/v1beta1'), {
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      interactiveMode: undefined,
      provideClusterInfo: true,
    });
    const { p } = provider(s, { cluster: { caData: Buffer.from('CA'), tlsServerName: 'sni', insecureSkipTLSVerify: false, config: { audience: 'a' } } });
    await p.getAuthorization();
    assert.deepEqual(s.runs()[0].info, {
      kind: 'ExecCredential',
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      spec: { interactive: false, cluster: { server: 'https://k:6443', 'tls-server-name': 'sni', 'certificate-authority-data': Buffer.from('CA').toString('base64'), config: { audience: 'a' } } },
    });
  });

  test('interactive: IfAvailable follows the TTY; Never is never; Always without a TTY fails', async () => {
    assert.equal((execInfo({ exec: { apiVersion: 'client.authentication.k8s.io/v1', provideClusterInfo: false }, cluster: { server: 's' } }, true).spec as { interactive: boolean }).interactive, true);
    const never = setup(cred({ token: 'x' }), { interactiveMode: 'Never' });
    await provider(never, { tty: true }).p.getAuthorization();
    assert.equal(never.runs()[0].info.spec.interactive, false);
    const always = setup(cred({ token: 'x' }), { interactiveMode: 'Always' });
    await assert.rejects(provider(always).p.getAuthorization(), {
      message: 'getting credentials: exec plugin cannot support interactive mode: standard input is not a terminal',
    });
    assert.equal(always.runs().length, 0);
  });
});

describe('exec plugin failures: one line, no secrets', () => {
  test('missing binary names the command and the install hint', async () => {
    const s = setup(cred({ token: 'x' }), { command: 'kdyn-no-such-plugin-xyz', args: [], installHint: 'Install it with:\n  brew install xyz' });
    await assert.rejects(provider(s).p.getAuthorization(), (e: Error) => {
      assert.ok(e instanceof CredentialError);
      assert.equal(e.message, 'getting credentials: exec: executable kdyn-no-such-plugin-xyz not found (it looks like a client-go credential plugin that is not installed; Install it with: brew install xyz)');
      return true;
    });
  });

  test('non-zero exit shows the plugin\'s stderr on one line', async () => {
    const s = setup(cred({ token: 'x' }), {}, { FAIL: 'token expired, run login' });
    await assert.rejects(provider(s).p.getAuthorization(), {
      message: `getting credentials: exec: executable ${process.execPath} failed with exit code 4: plugin says: token expired, run login second line`,
    });
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ['not JSON', 'tok-secret-value not json', /decoding stdout: the exec plugin's output is not JSON \(\d+ bytes\)$/],
    ['wrong kind', { kind: 'Pod', apiVersion: 'client.authentication.k8s.io/v1' }, /expected kind ExecCredential/],
    ['wrong apiVersion', cred({ token: 'x' }, 'client.authentication.k8s.io/v1beta1'), /configured to use API version client.authentication.k8s.io\/v1, plugin returned version client.authentication.k8s.io\/v1beta1/],
    ['no status', { kind: 'ExecCredential', apiVersion: 'client.authentication.k8s.io/v1' }, /didn't return a status field/],
    ['empty status', cred({}), /didn't return a token or cert\/key pair/],
    ['cert without key', cred({ clientCertificateData: 'C' }), /returned only certificate or key, not both/],
    ['bad expiry', cred({ token: 'tok-secret-value', expirationTimestamp: 'soon' }), /invalid expirationTimestamp "soon"/],
  ];
  for (const [name, reply, re] of bad) {
    test(name, async () => {
      const s = setup(reply);
      await assert.rejects(provider(s).p.getAuthorization(), (e: Error) => {
        assert.ok(e instanceof CredentialError);
        assert.match(e.message, re);
        assert.ok(!e.message.includes('tok-secret-value'), 'plugin output never echoed');
        assert.ok(!e.message.includes('\n'));
        return true;
      });
    });
  }

  test('configuration checks', () => {
    const mk = (exec: ExecConfig) => () => createExecProvider({ exec, userName: 'u', cluster: { server: 's' }, env: {}, clock: new FakeClock(), logger: silentLogger, stderr: { write: () => true }, stdinIsTTY: false });
    assert.throws(mk({ apiVersion: 'client.authentication.k8s.io/v1alpha1', command: 'x' }), /exec plugin: invalid apiVersion "client.authentication.k8s.io\/v1alpha1"/);
    assert.throws(mk({ apiVersion: 'client.authentication.k8s.io/v1', command: 'x' }), /interactiveMode must be specified for u to use exec authentication plugin/);
    assert.throws(mk({ apiVersion: 'client.authentication.k8s.io/v1', command: 'x', interactiveMode: 'Sometimes' }), /invalid interactiveMode/);
  });
});

describe('exec through loadRestConfig', () => {
  test('the cluster extension reaches spec.cluster.config; --token bypasses the plugin', async () => {
    const s = setup(cred({ token: 'from-plugin' }), { provideClusterInfo: true });
    const cfg = t.write('exec-kubeconfig', kubeconfig({
      current: 'c',
      clusters: { c: { server: 'https://k:6443', 'insecure-skip-tls-verify': true, extensions: [{ name: 'client.authentication.k8s.io/exec', extension: { region: 'eu' } }] } },
      users: { u: { exec: s.exec } },
      contexts: { c: { cluster: 'c', user: 'u' } },
    }));
    const rc = await load({ flags: { kubeconfig: cfg }, env: s.env });
    assert.equal(rc.credentials.kind, 'exec');
    assert.equal(await rc.credentials.getAuthorization(), 'Bearer from-plugin');
    assert.deepEqual(s.runs()[0].info.spec.cluster, { server: 'https://k:6443', 'insecure-skip-tls-verify': true, config: { region: 'eu' } });

    const rc2 = await load({ flags: { kubeconfig: cfg, token: 'flag' }, env: s.env });
    assert.equal(await rc2.credentials.getAuthorization(), 'Bearer flag');
    assert.equal(s.runs().length, 1, 'plugin not run with --token');
  });
});
