/**
 * `kdyn explain` as a child process next to kubectl v1.32, on the local API server serving a real
 * v1.32 server's OpenAPI v3 documents for the core and apps groups (test/fixtures/openapi-v3) and a
 * CRD with a schema (test/fixtures/explain/widgets-crd.yaml): stdout, stderr and the exit code must
 * be kubectl's, byte for byte, for built-in and custom types, field paths, --recursive, --api-version
 * and the errors. Without kubectl those cases skip; the cache and usage cases run anyway.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAS_KUBECTL, startGetEnv, type GetEnv } from './get-helpers.js';
import { repoRoot } from '../support/cli.js';
import { BUILD_ID } from '../../src/core/version.js';
import { fixturesDir } from '../support/exchanges.js';
import { recordedOpenApiDocuments } from '../support/apiserver/openapi-fixtures.js';

const CRD_FILE = () => join(fixturesDir(), 'explain', 'widgets-crd.yaml');
const NO_KUBECTL = HAS_KUBECTL ? false : 'kubectl not on PATH';

let env: GetEnv;

before(async () => {
  env = await startGetEnv({ openapiDocuments: recordedOpenApiDocuments(repoRoot()) });
  const applied = await env.kdyn(['apply', '-f', CRD_FILE()]);
  assert.equal(applied.code, 0, applied.err);
});
after(async () => {
  await env?.stop();
});

/** kdyn's and kubectl's stdout, stderr and exit code for the same arguments, and kdyn's run. */
async function sameAsKubectl(args: string[]): Promise<void> {
  const [k, c] = await Promise.all([env.kdyn(['explain', ...args]), env.kubectl(['explain', ...args])]);
  assert.deepEqual({ code: k.code, err: k.err, out: k.out }, { code: c.code, err: c.err, out: c.out }, `explain ${args.join(' ')}`);
}

describe('kdyn explain next to kubectl explain (local API server, recorded v1.32 documents)', { skip: NO_KUBECTL }, () => {
  test('built-in types: pods, deployments.apps, a field path, a field with an enum, a Kind and a short name', async () => {
    for (const a of ['pods', 'deployments.apps', 'pods.spec.containers', 'pods.spec.containers.ports.protocol', 'Pod.spec.containers.name', 'deploy.spec.strategy', 'cm.data', 'pods.metadata.labels']) {
      await sameAsKubectl([a]);
    }
  });

  test('--recursive: configmaps, pods.spec, deployments.apps', async () => {
    for (const a of ['configmaps', 'pods.spec', 'deployments.apps']) await sameAsKubectl([a, '--recursive']);
  });

  test('JSONPath forms of the argument: a bracketed field, a trailing dot, a double dot', async () => {
    for (const a of ["pods.spec['containers']", 'pods.spec.containers.', 'pods..spec']) await sameAsKubectl([a]);
  });

  test('a CRD with a schema: enums, externalDocs (which v1.32 does not print), wrapping, int-or-string, maps, a dotted field name, --api-version', async () => {
    const cases = [
      ['widgets'],
      ['wdg.spec'],
      ['widgets.explain.kdyn.dev.spec.mode'],
      ['widgets.spec.size'],
      ['widgets.spec.docs'],
      ['widgets.spec.anything'],
      ["widgets.spec['with.dot']"],
      ['widgets.spec.parts.range'],
      ['widgets.spec', '--recursive'],
      ['widgets', '--recursive'],
      ['widgets.spec', '--api-version=explain.kdyn.dev/v1beta1'],
      ['Widget.status.conditions.status'],
    ];
    for (const c of cases) await sameAsKubectl(c);
  });

  test('errors: an unknown field (after the header), an unknown type, a path that is not all fields, the wrong --api-version', async () => {
    const cases = [['pods.spec.nosuch'], ['pods.nosuch.deeper'], ['deploy.apps'], ['nosuchtype'], ['pods[0]'], ['pods', '--api-version=apps/v1'], ['pods', '--api-version=v2'], ['widgets.spec.size.nosuch']];
    for (const c of cases) await sameAsKubectl(c);
  });

  test('warm runs, answered from the kept explanations, print the same bytes as kubectl', async () => {
    const cases = [['pods'], ['pods.spec.containers'], ['deployments.apps', '--recursive'], ['widgets.spec'], ['widgets.spec', '--api-version=explain.kdyn.dev/v1beta1'], ['pods.spec.nosuch'], ['deploy.apps']];
    for (const c of cases) {
      await env.kdyn(['explain', ...c]); // the explanation is kept (if this question was not asked before)
      env.server.clearLog();
      await sameAsKubectl(c);
      assert.deepEqual(env.server.requestLog.filter((r) => r.path.startsWith('/openapi/') && r.userAgent.startsWith('kdyn')).map((r) => r.path), ['/openapi/v3'], `explain ${c.join(' ')}: warm, the index only`);
    }
  });
});

describe('kdyn explain: cache and usage', () => {
  test("what explain keeps carries this build's id: a part or explanation kept by another kdyn is never read", async () => {
    await env.kdyn(['explain', 'pods.spec']);
    assert.match(BUILD_ID, /^[0-9a-f]{12}$/, 'the build defines its id');
    const kept = (readdirSync(join(env.dir, 'home-kdyn', '.kube', 'cache', 'kdyn'), { recursive: true }) as string[]).filter((f) => f.includes('explain-'));
    assert.ok(kept.some((f) => f.endsWith(`v1.explain-pods.${BUILD_ID}.json`)), `the part of pods: ${kept.join(', ')}`);
    assert.ok(kept.some((f) => new RegExp(`v1\\.explain-pods\\.${BUILD_ID}\\.q-[0-9a-f]{24}\\.json$`).test(f)), `an explanation: ${kept.join(', ')}`);
    assert.deepEqual(kept.filter((f) => !f.includes(`.${BUILD_ID}.`)), [], 'no kept file without the id');
  });

  test('warm: the index is the only OpenAPI request; a CRD change gives a new hash, and the new schema is explained at once', async () => {
    await env.kdyn(['explain', 'widgets.spec']);
    env.server.clearLog();
    const warm = await env.kdyn(['explain', 'widgets.spec']);
    assert.equal(warm.code, 0, warm.err);
    assert.deepEqual(env.server.requestLog.map((r) => `${r.path} ${r.status}`), ['/openapi/v3 200'], 'one request: the index');
    assert.match(warm.out, /^ {2}docs\t<string>$/m);
    // The same question as after the change below: its explanation is kept for the current hash.
    await env.kdyn(['explain', 'widgets.spec.docs']);
    const before = await env.kdyn(['explain', 'widgets.spec.docs']);
    assert.match(before.out, /A field with external docs\./);

    const changed = readFileSync(CRD_FILE(), 'utf8').replace('description: A field with external docs.', 'description: A field described anew.');
    const file = join(env.dir, 'widgets-changed.yaml');
    writeFileSync(file, changed);
    const applied = await env.kdyn(['apply', '-f', file]);
    assert.equal(applied.code, 0, applied.err);
    env.server.clearLog();
    const fresh = await env.kdyn(['explain', 'widgets.spec.docs']);
    assert.equal(fresh.code, 0, fresh.err);
    assert.match(fresh.out, /A field described anew\./);
    assert.deepEqual(
      env.server.requestLog.filter((r) => r.path.startsWith('/openapi/')).map((r) => `${r.path} ${r.status}`),
      ['/openapi/v3 200', '/openapi/v3/apis/explain.kdyn.dev/v1 200'],
      'the document whose hash changed is fetched again',
    );
  });

  test('usage errors exit 2 before any request: no type, two types, an output kubectl v1.32 has but kdyn not, an unknown output, a malformed --api-version', async () => {
    env.server.clearLog();
    const cases: Array<[string[], RegExp]> = [
      [[], /^error: You must specify the type of resource to explain\. Use "kdyn api-resources" for a complete list of supported resources\. \(see 'kdyn explain --help'\)\n$/],
      [['pods', 'nodes'], /^error: We accept only this format: explain RESOURCE \(see/],
      [['pods', '-o', 'plaintext-openapiv2'], /^error: --output plaintext-openapiv2 \(OpenAPI v2\) is not supported by kdyn/],
      [['pods', '-o', 'json'], /^error: unrecognized format: json \(see/],
      [['pods', '--api-version', 'a/b/c'], /^error: unexpected GroupVersion string: a\/b\/c \(see/],
    ];
    for (const [args, err] of cases) {
      const r = await env.kdyn(['explain', ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.equal(r.out, '');
      assert.match(r.err, err);
    }
    assert.deepEqual(env.server.requestLog, []);
  });
});
