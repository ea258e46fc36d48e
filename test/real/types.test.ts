/**
 * Generated types against reality: `kdyn types` for every group a real kube-apiserver v1.32 serves
 * (every built-in group and the test CRDs, each in its preferred version), then every object the
 * server lists for those kinds (the ones it makes itself, and ones created here with many fields set)
 * must (1) type-check as that kind under strict + exactOptionalPropertyTypes + noUncheckedIndexedAccess
 * and (2) hold every field the schema marks required.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { SKIP_REAL, startRealEnv, type RealEnv } from './real-helpers.js';
import { installCrd, WIDGETS_CRD } from './crd-fixtures.js';
import { fixturesDir } from '../support/exchanges.js';
import { compileStrict, haveDeclarations, DECLARATIONS } from '../support/tsc-strict.js';
import { connect, type Connection } from '../../src/connect.js';
import { createOpenApiV3 } from '../../src/openapi/v3.js';
import { generateFiles, kindsFromCrdManifests, kindsFromServer } from '../../src/typegen/types.js';
import { apiVersionOf, generateModule } from '../../src/typegen/generate.js';
import { missingRequired } from '../../src/typegen/sources.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';

const GADGETS = () => load(readFileSync(join(fixturesDir(), 'typegen', 'gadgets-crd.yaml'), 'utf8')) as Record<string, unknown>;

describe('generated types hold for what a real kube-apiserver serves', { skip: SKIP_REAL }, () => {
  let env: RealEnv;
  let k: Connection;
  before(async () => {
    env = await startRealEnv();
    await installCrd(env, WIDGETS_CRD);
    await installCrd(env, GADGETS());
    const ns = await env.namespace('types');
    await env.create(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'default' } });
    const podSpec = { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80, name: 'http' }], resources: { limits: { cpu: '500m', memory: '128Mi' } }, readinessProbe: { httpGet: { path: '/', port: 'http' } } }] };
    await env.create(`/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'web-0', labels: { app: 'web' } }, spec: podSpec });
    await env.create(`/api/v1/namespaces/${ns}/services`, { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] } });
    await env.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'cfg' }, data: { a: '1' }, binaryData: { b: 'AA==' } });
    await env.create(`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's' }, stringData: { p: 'x' } });
    await env.create(`/apis/apps/v1/namespaces/${ns}/deployments`, { metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: podSpec } } });
    await env.create(`/apis/batch/v1/namespaces/${ns}/cronjobs`, { metadata: { name: 'tick' }, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } } } });
    await env.create(`/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`, { metadata: { name: 'web' }, spec: { rules: [{ host: 'x.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] } });
    await env.create(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, { metadata: { name: 'web' }, spec: { minAvailable: '50%', selector: { matchLabels: { app: 'web' } } } });
    await env.create(`/apis/real.kdyn.dev/v1/namespaces/${ns}/widgets`, { apiVersion: 'real.kdyn.dev/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3, color: 'red', parts: [{ name: 'a', count: 1 }] } });
    await env.create(`/apis/types.kdyn.dev/v1/namespaces/${ns}/gadgets`, {
      apiVersion: 'types.kdyn.dev/v1',
      kind: 'Gadget',
      metadata: { name: 'g' },
      spec: {
        size: 2, mode: "it's", port: 'http', ratio: null, tags: ['a'], labels: { x: 'y' }, limits: { cpu: 2, mem: '1Gi' }, config: { any: { thing: [1] } },
        extra: { known: 'k', unknown: true }, template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, 'x-weird-name': 'w', 'with.dot': 'd',
        parts: [{ name: 'p', count: 1, range: { min: 0, max: 1 } }], primary: { min: 1 }, matrix: [[1, 2], [3]], choice: 'b',
      },
    });
    const dir = join(env.dir, 'kube');
    mkdirSync(dir);
    k = await connect({ kubeconfig: env.cluster.kubeconfigs.token, env: { HOME: dir }, cacheDir: join(dir, 'cache') });
  });
  after(async () => {
    k?.close();
    await env?.stop();
  });

  test('kdyn types on the real server: the served version from its /openapi/v3; a warm run makes one request', async () => {
    const cold = await env.kdyn(['types', 'gdg']);
    assert.equal(cold.code, 0, cold.err);
    const fromFile = generateModule(kindsFromCrdManifests(readFileSync(join(fixturesDir(), 'typegen', 'gadgets-crd.yaml'), 'utf8'), 'crd').filter((x) => x.version === 'v1'));
    assert.equal(cold.out, fromFile);
    const warm = await env.kdyn(['types', 'gdg', '-v', '6']);
    assert.equal(warm.out, cold.out);
    assert.deepEqual(warm.err.match(/GET https:\/\/\S+/g)?.map((u) => new URL(u.slice(4)).pathname), ['/openapi/v3']);
  });

  test('every served kind: listed objects type-check as the generated type and hold its required fields', async (t) => {
    if (!haveDeclarations()) return t.skip(`${DECLARATIONS} is missing: build with --declarations (npm test does)`);
    const openapi = createOpenApiV3({ transport: k.transport, server: k.config.server, env: {}, clock: systemClock, logger: silentLogger, cacheDir: join(env.dir, 'kube', 'cache') });
    const kinds = await kindsFromServer({ mapper: k.mapper, snapshot: () => k.discovery.snapshot(), openapi }, [], true);
    const groups = new Set(kinds.map((x) => x.group));
    for (const g of ['', 'apps', 'batch', 'networking.k8s.io', 'rbac.authorization.k8s.io', 'apiextensions.k8s.io', 'real.kdyn.dev', 'types.kdyn.dev']) assert.ok(groups.has(g), `group "${g}" generated`);
    const out = join(env.dir, 'typed');
    mkdirSync(join(out, 'gen'), { recursive: true });
    for (const [name, text] of generateFiles(kinds)) writeFileSync(join(out, 'gen', name), text);

    const snap = await k.discovery.snapshot();
    const checks: string[] = ["import type { KindMap } from './gen/index.js';"];
    const missing: string[] = [];
    let objects = 0;
    for (const kind of kinds) {
      const r = (snap.resources.get(apiVersionOf(kind)) ?? []).find((x) => x.kind === kind.kind && !x.name.includes('/'));
      if (!r?.verbs.includes('list')) continue;
      const list = await k.client.resource({ group: kind.group, version: kind.version, resource: r.name }).listAll();
      if (!list.items.length) continue;
      objects += list.items.length;
      for (const o of list.items) for (const m of missingRequired(kind, o)) missing.push(`${apiVersionOf(kind)} ${kind.kind} ${o.metadata?.name}: ${m}`);
      checks.push(`export const o${checks.length}: Array<KindMap['${apiVersionOf(kind)}/${kind.kind}']> = ${JSON.stringify(list.items)};`);
    }
    assert.ok(objects > 100, `${objects} objects checked`);
    assert.ok(checks.some((c) => c.includes("KindMap['types.kdyn.dev/v1/Gadget']")) && checks.some((c) => c.includes("KindMap['apps/v1/Deployment']")));
    assert.deepEqual(missing, []);
    writeFileSync(join(out, 'objects.ts'), `${checks.join('\n')}\n`);
    const r = compileStrict(out, ['objects.ts']);
    assert.equal(r.code, 0, r.out.slice(0, 4000));
  });
});
