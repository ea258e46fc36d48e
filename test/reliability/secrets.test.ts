/**
 * Reliability suite 3, secrets (issue 13): with a bearer token, a client key and exec plugins'
 * credentials in play, every command runs at -v=9, on its success path and on every error path
 * (401, 403, NotFound, a 500, refused connection, TLS failure, a kubeconfig that does not parse
 * around the token, an exec plugin that prints half a credential, bad manifests). Then stdout,
 * stderr, the discovery cache directory and the V8 code-cache directory are searched for every
 * secret, raw and base64-encoded: none may appear.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { POOL, startRelEnv, type RelEnv, type Run } from './harness.js';
import { generateServingCerts } from '../support/apiserver/tls.js';

let env: RelEnv;
let home: string;
let kc: string;
/** name -> secret text */
const secrets = new Map<string, string>();
const outputs: Array<{ name: string; run: Run }> = [];

const b64 = (s: string) => Buffer.from(s).toString('base64');
const secret = (name: string) => {
  const s = `${name}-${randomBytes(12).toString('hex')}`;
  secrets.set(name, s);
  return s;
};

/** A kubeconfig for the test server with `user` (a YAML flow mapping), optional server/CA overrides. */
function kubeconfig(name: string, user: string, o: { server?: string; caPem?: string; raw?: string } = {}): string {
  const p = join(kc, name);
  const ca = b64(o.caPem ?? env.server.caPem!);
  writeFileSync(
    p,
    o.raw ??
      `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: local\n  cluster:\n    server: ${o.server ?? env.server.url}\n    certificate-authority-data: ${ca}\ncontexts:\n- name: c\n  context: {cluster: local, user: u, namespace: demo}\nusers:\n- name: u\n  user: ${user}\n`,
  );
  return p;
}

/** An exec plugin (a node script) that prints `stdout`. */
function execUser(script: string): string {
  const file = join(kc, `plugin-${randomBytes(4).toString('hex')}.js`);
  writeFileSync(file, script);
  return `{exec: {apiVersion: client.authentication.k8s.io/v1, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(file)}], interactiveMode: Never}}`;
}
const credential = (token: string) => `process.stdout.write(JSON.stringify({apiVersion:'client.authentication.k8s.io/v1',kind:'ExecCredential',status:{token:${JSON.stringify(token)}}}))`;

const configs: Record<string, string> = {};

before(async () => {
  env = await startRelEnv();
  home = join(env.dir, 'home-secrets');
  kc = join(env.dir, 'kubeconfigs');
  mkdirSync(home);
  mkdirSync(kc);
  secrets.set('token', env.server.token);
  secrets.set('read-only token (from the exec plugin)', env.server.readOnlyToken);
  const client = await generateServingCerts(['client']);
  const keyBody = client.keyPem.split('\n').slice(1, 3).join('');
  secrets.set('client key (PEM body)', keyBody);
  secrets.set('client key (kubeconfig client-key-data)', b64(client.keyPem).slice(0, 60));
  const certData = b64(client.certPem.slice(0, client.certPem.indexOf('-----END CERTIFICATE-----') + 26));
  const keyData = b64(client.keyPem);
  configs.token = kubeconfig('token', `{token: ${env.server.token}, client-certificate-data: ${certData}, client-key-data: ${keyData}}`);
  configs.exec = kubeconfig('exec', execUser(credential(env.server.readOnlyToken)));
  configs['exec-401'] = kubeconfig('exec-401', execUser(credential(secret('exec-rejected'))));
  configs['exec-half'] = kubeconfig('exec-half', execUser(`process.stdout.write(${JSON.stringify(`{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${secret('exec-half-printed')}`)})`));
  configs['exec-fails'] = kubeconfig('exec-fails', execUser(`process.stdout.write(${JSON.stringify(secret('exec-stdout-on-failure'))}); process.exit(3)`));
  configs['token-401'] = kubeconfig('token-401', `{token: ${secret('rejected-token')}}`);
  configs.refused = kubeconfig('refused', `{token: ${env.server.token}}`, { server: 'https://127.0.0.1:1' });
  configs['wrong-ca'] = kubeconfig('wrong-ca', `{token: ${env.server.token}, client-key-data: ${keyData}, client-certificate-data: ${certData}}`, { caPem: client.caPem });
  const broken = secret('token-in-broken-yaml');
  configs['yaml-error'] = kubeconfig('yaml-error', '', { raw: `apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: "${broken}\n    other: [\n` });
  configs['yaml-error-2'] = kubeconfig('yaml-error-2', '', { raw: `apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user: {token: ${secret('token-before-bad-indent')}}\n   bad: x\n` });
  mkdirSync(join(home, 'm'));
  writeFileSync(join(home, 'm', 'ok.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: secrets-suite\ndata:\n  k: v\n');
  writeFileSync(join(home, 'm', 'bad.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n data: x: y\n');
  // A 500 whose body is not a Status, for the error path of a list.
  env.server.faults.add({ path: '/api/v1/namespaces/demo/services', status: 500, body: 'internal failure' });
});
after(() => env.stop());

const COMMANDS: string[][] = [
  ['version'],
  ['api-resources'],
  ['api-resources', '--cache-ttl', '0', '-o', 'wide'],
  ['get', 'configmaps', '-o', 'yaml'],
  ['get', 'secrets', '-o', 'json'],
  ['get', 'configmap', 'no-such'],
  ['get', 'services'],
  ['get', 'podz'],
  ['apply', '-f', 'm/ok.yaml'],
  ['apply', '-f', 'm/ok.yaml', '--dry-run=client'],
  ['apply', '-f', 'm/bad.yaml'],
  ['watch', 'configmaps', '--max-events', '1', '--timeout', '20s'],
];

const CONFIGS = ['token', 'exec', 'exec-401', 'exec-half', 'exec-fails', 'token-401', 'refused', 'wrong-ca', 'yaml-error', 'yaml-error-2'];

describe('every command at -v=9 with each credential and error path', { concurrency: POOL }, () => {
  for (const config of CONFIGS) {
    test(`kubeconfig ${config}: ${COMMANDS.length} commands`, async () => {
      for (const args of COMMANDS) {
        const run = await env.kdyn([...args, '-v=9'], { env: { HOME: home, KUBECONFIG: configs[config]! }, cwd: home });
        outputs.push({ name: `${config}: kdyn ${args.join(' ')}`, run });
        assertNoSecret(`${config}: kdyn ${args.join(' ')} (exit ${run.code})`, [run.out, run.err]);
      }
    });
  }
});

describe('what the runs left behind', () => {
  test('the error paths were taken (so the search covers them)', () => {
    const all = (config: string) => outputs.filter((o) => o.name.startsWith(`${config}:`)).map((o) => o.run.err).join('\n');
    assert.match(all('token-401'), /You must be logged in to the server \(Unauthorized\)/);
    assert.match(all('exec-401'), /You must be logged in to the server \(Unauthorized\)/);
    assert.match(all('exec'), /Error from server \(Forbidden\)/, 'the read-only exec credential was refused a write');
    assert.match(all('exec-half'), /getting credentials/);
    assert.match(all('exec-fails'), /getting credentials: exec: /);
    assert.match(all('refused'), /was refused/);
    assert.match(all('wrong-ca'), /certificate signed by unknown authority/);
    assert.match(all('yaml-error'), /error loading config file/);
    assert.match(all('yaml-error-2'), /error loading config file/);
    assert.match(all('token'), /Error from server \(NotFound\): configmaps "no-such" not found/);
    assert.match(all('token'), /Error from server \(InternalError\)|internal failure/);
    assert.match(all('token'), /Authorization: Bearer <masked>/, '-v=9 prints the headers, masked');
    assert.match(outputs.find((o) => o.name === 'token: kdyn watch configmaps --max-events 1 --timeout 20s')!.run.out, /ADDED|app-config/, 'the watch ran');
    assert.ok(outputs.length === CONFIGS.length * COMMANDS.length);
  });

  test('the discovery cache holds no secret', () => {
    const cache = join(home, '.kube', 'cache');
    assert.ok(existsSync(cache), 'the runs wrote a cache');
    assertNoSecretInTree(cache);
  });

  test('the V8 code cache holds no secret', () => {
    const codeCache = join(home, '.cache', 'kdyn-code-cache');
    assert.ok(existsSync(codeCache), 'the runs wrote a code cache');
    assertNoSecretInTree(codeCache);
  });

  test('nothing else under HOME holds a secret (kubeconfigs live outside it)', () => {
    assertNoSecretInTree(home);
  });
});

function assertNoSecret(where: string, texts: Array<string | Buffer>): void {
  for (const text of texts) {
    const s = typeof text === 'string' ? text : text.toString('latin1');
    for (const [name, value] of secrets) {
      for (const form of [value, b64(value)]) assert.ok(!s.includes(form), `${where}: the ${name} appears:\n${s.slice(Math.max(0, s.indexOf(form) - 300), s.indexOf(form) + 100)}`);
    }
  }
}

function assertNoSecretInTree(dir: string): void {
  let files = 0;
  const walk = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else {
        files++;
        assertNoSecret(p, [readFileSync(p)]);
      }
    }
  };
  walk(dir);
  assert.ok(files > 0, `files were searched in ${dir}`);
}
