/**
 * `kdyn types` as a child process: from the local API server's /openapi/v3 (one index request when
 * warm), from a CRD file without any server, --output-dir with an index, the output deterministic,
 * and one-line errors.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type LocalApiServer } from '../support/apiserver/server.js';
import { runKdyn, type Run } from '../support/cli.js';
import { fixturesDir } from '../support/exchanges.js';
import { generateModule } from '../../src/typegen/generate.js';
import { kindsFromCrdManifests } from '../../src/typegen/types.js';

const CRD_FILE = () => join(fixturesDir(), 'typegen', 'gadgets-crd.yaml');

describe('kdyn types', () => {
  let server: LocalApiServer;
  let home: string;
  const kdyn = (args: string[], opts: { stdin?: string } = {}): Promise<Run> =>
    runKdyn([...args, '--kubeconfig', join(home, 'kubeconfig')], { env: { PATH: process.env.PATH, HOME: home }, cwd: home, ...opts });
  const openapiRequests = () => server.requestLog.filter((r) => r.path.startsWith('/openapi/')).map((r) => `${r.path} ${r.status}`);

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'kdyn-e2e-types-'));
    server = await startServer({ tls: true, seed: 'demo' });
    server.writeKubeconfig(join(home, 'kubeconfig'));
  });
  after(async () => {
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  test('a custom resource by short name: its served version, from /openapi/v3; warm, the index is the only OpenAPI request', async () => {
    server.clearLog();
    const cold = await kdyn(['types', 'rkt']);
    assert.equal(cold.code, 0, cold.err);
    assert.equal(cold.err, '');
    assert.match(cold.out, /^export interface Rocket \{\n {2}apiVersion: 'demo\.kdyn\.dev\/v1';\n {2}kind: 'Rocket';\n {2}metadata: ObjectMeta;\n/m);
    assert.deepEqual(openapiRequests(), ['/openapi/v3 200', `/openapi/v3/apis/demo.kdyn.dev/v1 200`]);
    server.clearLog();
    const warm = await kdyn(['types', 'rkt']);
    assert.equal(warm.out, cold.out, 'the same text');
    assert.deepEqual(openapiRequests(), ['/openapi/v3 200']);
    assert.deepEqual(server.requestLog.filter((r) => !r.path.startsWith('/openapi/')).map((r) => r.path), [], 'no discovery request (cached)');
  });

  test('-f CRD file: no server contacted; the same text as the library', async () => {
    server.clearLog();
    const r = await runKdyn(['types', '-f', CRD_FILE()], { env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: join(home, 'missing') } });
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, generateModule(kindsFromCrdManifests(readFileSync(CRD_FILE(), 'utf8'), CRD_FILE())));
    const stdin = await kdyn(['types', '-f', '-'], { stdin: readFileSync(CRD_FILE(), 'utf8') });
    assert.equal(stdin.out, r.out);
    assert.equal(server.requestLog.length, 0);
  });

  test('--output-dir: one file per group-version and index.ts, deterministic', async () => {
    const out = join(home, 'gen');
    const r = await kdyn(['types', 'rockets', 'configmaps', 'deployments.apps', '--output-dir', 'gen']);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.out.split('\n').filter(Boolean), ['gen/core.v1.ts', 'gen/apps.v1.ts', 'gen/demo.kdyn.dev.v1.ts', 'gen/index.ts']);
    assert.deepEqual(readdirSync(out).sort(), ['apps.v1.ts', 'core.v1.ts', 'demo.kdyn.dev.v1.ts', 'index.ts']);
    const index = readFileSync(join(out, 'index.ts'), 'utf8');
    assert.match(index, /^ {2}'apps\/v1\/Deployment': apps_v1\.Deployment;$/m);
    const again = await kdyn(['types', 'deploy.apps', 'cm', 'rkt', '--output-dir', 'gen']);
    assert.equal(again.code, 0, again.err);
    assert.equal(readFileSync(join(out, 'index.ts'), 'utf8'), index, 'the names in another order give the same files');
  });

  test('a comma list of resource types, as get takes: the same output as the names one by one', async () => {
    const listed = await kdyn(['types', 'configmaps,deployments.apps']);
    assert.equal(listed.code, 0, listed.err);
    const separate = await kdyn(['types', 'configmaps', 'deployments.apps']);
    assert.equal(listed.out, separate.out);
    assert.match(listed.out, /^export interface ConfigMap \{$/m);
    assert.match(listed.out, /^export interface Deployment \{$/m);
    const trailing = await kdyn(['types', 'configmaps,']);
    assert.equal(trailing.code, 1);
    assert.equal(trailing.err, 'error: the server doesn\'t have a resource type ""\n', 'an empty item is named, as get names it');
  });

  test('errors: one line, non-zero exit', async () => {
    const none = await kdyn(['types']);
    assert.equal(none.code, 2, 'a usage error');
    assert.match(none.err, /^error: specify resource types \(e\.g\. kdyn types crontabs\), --all \[GROUP\.\.\.\], or -f CRD-FILE \(see 'kdyn types --help'\)\n$/);
    const unknown = await kdyn(['types', 'nosuchthings']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.err, 'error: the server doesn\'t have a resource type "nosuchthings"\n');
    const missing = await kdyn(['types', '-f', 'nope.yaml']);
    assert.equal(missing.code, 1);
    assert.equal(missing.err.split('\n').filter(Boolean).length, 1, missing.err);
    assert.match(missing.err, /nope\.yaml/);
  });
});
