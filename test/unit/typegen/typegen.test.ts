/**
 * `kdyn types` as a library: the schema features of test/fixtures/typegen/gadgets-crd.yaml rendered as
 * TypeScript, the same text from the CRD file and from the local API server's /openapi/v3, the
 * OpenAPI cache (one index request when warm, a document refetched when its hash changes),
 * per-group-version files with an index, and the runtime check of required fields.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { startServer, type LocalApiServer } from '../../support/apiserver/server.js';
import { fixturesDir } from '../../support/exchanges.js';
import { connect, type Connection } from '../../../src/connect.js';
import { createOpenApiV3, type OpenApiV3 } from '../../../src/openapi/v3.js';
import { generateModule } from '../../../src/typegen/generate.js';
import { missingRequired } from '../../../src/typegen/sources.js';
import { generateFiles, kindsFromCrdManifests, kindsFromServer } from '../../../src/typegen/types.js';
import { systemClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/log.js';
import { KdynError } from '../../../src/core/errors.js';
import type { Unstructured } from '../../../src/core/unstructured.js';

const CRD_FILE = () => join(fixturesDir(), 'typegen', 'gadgets-crd.yaml');
const crdText = () => readFileSync(CRD_FILE(), 'utf8');

describe('generated declarations (from the CRD file)', () => {
  const text = generateModule(kindsFromCrdManifests(crdText(), 'gadgets-crd.yaml'));
  const block = (name: string) => {
    const m = new RegExp(`export interface ${name} \\{\\n([\\s\\S]*?)\\n\\}`).exec(text);
    assert.ok(m, `interface ${name} in:\n${text}`);
    return m[1]!;
  };

  test('the kind: literal apiVersion and kind, ObjectMeta imported from kdyn, required spec', () => {
    assert.match(text, /^import type \{ ObjectMeta, TypedKind \} from 'kdyn';$/m);
    assert.equal(block('Gadget'), ["  apiVersion: 'types.kdyn.dev/v1';", "  kind: 'Gadget';", '  metadata: ObjectMeta;', '  /** The desired state. */', '  spec: GadgetSpec;', '  status?: GadgetStatus;'].join('\n'));
  });

  test('required, enums, int-or-string, nullable, arrays, maps, quoted names', () => {
    const spec = block('GadgetSpec');
    for (const line of [
      '  size: number;',
      "  mode: 'Fast' | 'Slow' | 'it\\'s';",
      '  port?: number | string;',
      '  ratio?: number | null;',
      "  choice?: 'a' | 'b';",
      '  tags?: string[];',
      '  matrix?: Array<number[]>;',
      '  labels?: Record<string, string>;',
      '  limits?: Record<string, number | string>;',
      '  parts?: GadgetSpecParts[];',
      "  'with.dot'?: string;",
      "  'x-weird-name'?: string;",
    ]) {
      assert.ok(spec.split('\n').includes(line), `${line} in GadgetSpec:\n${spec}`);
    }
    assert.match(block('GadgetStatusConditions'), /^ {2}status: 'True' \| 'False' \| 'Unknown';$/m);
  });

  test('x-kubernetes-preserve-unknown-fields: an open record, or an index signature next to the known properties', () => {
    assert.match(block('GadgetSpec'), /^ {2}config\?: \{ \[key: string\]: unknown \};$/m);
    assert.equal(block('GadgetSpecExtra'), '  known?: string;\n  [key: string]: unknown;');
  });

  test('x-kubernetes-embedded-resource: apiVersion and kind required, metadata as ObjectMeta, as the API server publishes it', () => {
    assert.match(block('GadgetSpec'), /^ {2}template\?: GadgetSpecTemplate;$/m);
    assert.equal(block('GadgetSpecTemplate'), '  apiVersion: string;\n  kind: string;\n  metadata?: ObjectMeta;\n  [key: string]: unknown;');
  });

  test('a nested schema that repeats is one named type', () => {
    assert.match(block('GadgetSpecParts'), /^ {2}range\?: GadgetSpecPartsRange;$/m);
    assert.match(block('GadgetSpec'), /^ {2}primary\?: GadgetSpecPartsRange;$/m);
    assert.equal(text.match(/export interface GadgetSpecPartsRange /g)?.length, 1);
  });

  test('JSDoc from descriptions, a comment end inside one escaped; formats and defaults as tags', () => {
    assert.match(text, /Its description has a comment end: \*\\\/ and stays one comment\./);
    assert.match(block('GadgetSpec'), /\/\*\* @default true \*\/\n {2}enabled\?: boolean;/);
    assert.match(block('GadgetSpec'), / \* @format int32\n {3}\*\/\n {2}size: number;/);
  });

  test('every served version; the second kind of the same name is qualified by its group-version', () => {
    assert.match(text, /^export interface TypesV1beta1Gadget \{$/m);
    assert.match(text, /^ {2}'types\.kdyn\.dev\/v1beta1\/Gadget': \{ apiVersion: 'types\.kdyn\.dev\/v1beta1', kind: 'Gadget' \} as TypedKind<TypesV1beta1Gadget>,$/m);
  });

  test('a file without a CRD, or with a broken one, is a one-line error naming it', () => {
    assert.throws(() => kindsFromCrdManifests('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n', 'cm.yaml'), (e: unknown) => e instanceof KdynError && e.message === '"cm.yaml": no CustomResourceDefinition in it');
    assert.throws(
      () => kindsFromCrdManifests('apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x}\nspec: {}\n', 'bad.yaml'),
      /^KdynError: "bad\.yaml" document 1: not a CustomResourceDefinition \(spec\.group and spec\.names\.kind are required\)$/,
    );
  });

  test('missingRequired names the required fields an object lacks', () => {
    const [v1] = kindsFromCrdManifests(crdText(), 'gadgets-crd.yaml');
    const ok = { apiVersion: 'types.kdyn.dev/v1', kind: 'Gadget', metadata: { name: 'a' }, spec: { size: 1, mode: 'Fast', parts: [{ name: 'p' }] } };
    assert.deepEqual(missingRequired(v1!, ok), []);
    const bad = { apiVersion: 'types.kdyn.dev/v1', kind: 'Gadget', spec: { size: 1, parts: [{ count: 2 }] }, status: { conditions: [{ type: 'Ready' }] } };
    assert.deepEqual(missingRequired(v1!, bad), ['metadata', 'spec.mode', 'spec.parts[0].name', 'status.conditions[0].status']);
  });
});

describe('from the local API server', () => {
  let server: LocalApiServer;
  let dir: string;
  let conn: Connection;
  const openapi = (): OpenApiV3 =>
    createOpenApiV3({ transport: conn.transport, server: conn.config.server, cacheDir: join(dir, 'cache'), env: {}, clock: systemClock, logger: silentLogger });
  const crds = () => conn.client.resource({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }, { namespaced: false });
  const openapiRequests = () => server.requestLog.filter((r) => r.path.startsWith('/openapi/')).map((r) => r.path);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kdyn-typegen-'));
    server = await startServer({ tls: true, seed: 'demo' });
    server.writeKubeconfig(join(dir, 'kubeconfig'));
    conn = await connect({ kubeconfig: join(dir, 'kubeconfig'), env: { HOME: dir }, cacheDir: join(dir, 'cache') });
    await crds().create(load(crdText()) as Unstructured);
  });
  after(async () => {
    conn?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the served document gives the same text as the CRD file, for exactly the resolved version', async () => {
    const kinds = await kindsFromServer({ mapper: conn.mapper, snapshot: () => conn.discovery.snapshot(), openapi: openapi() }, ['gadgets']);
    assert.deepEqual(kinds.map((k) => `${k.group}/${k.version}/${k.kind}`), ['types.kdyn.dev/v1/Gadget']);
    const fromFile = kindsFromCrdManifests(crdText(), 'gadgets-crd.yaml').filter((k) => k.version === 'v1');
    assert.equal(generateModule(kinds), generateModule(fromFile));
    const beta = await kindsFromServer({ mapper: conn.mapper, snapshot: () => conn.discovery.snapshot(), openapi: openapi() }, ['gadgets.v1beta1.types.kdyn.dev']);
    assert.match(generateModule(beta), /^ {2}apiVersion: 'types\.kdyn\.dev\/v1beta1';$/m);
  });

  test('cached: a warm run asks for the index only; a changed CRD changes the hash and its document is fetched again', async () => {
    const deps = () => ({ mapper: conn.mapper, snapshot: () => conn.discovery.snapshot(), openapi: openapi() });
    await kindsFromServer(deps(), ['gadgets']); // fills the cache
    server.clearLog();
    const warm = await kindsFromServer(deps(), ['gadgets']);
    assert.deepEqual(openapiRequests(), ['/openapi/v3']);
    const crd = load(crdText()) as { spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }> } };
    crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties.added = { type: 'string', description: 'New.' };
    const cur = await crds().get('gadgets.types.kdyn.dev');
    await crds().update({ ...(crd as Unstructured), metadata: cur.metadata! });
    server.clearLog();
    const changed = await kindsFromServer(deps(), ['gadgets']);
    assert.deepEqual(openapiRequests(), ['/openapi/v3', '/openapi/v3/apis/types.kdyn.dev/v1']);
    assert.doesNotMatch(generateModule(warm), /added\?: string/);
    assert.match(generateModule(changed), /\/\*\* New\. \*\/\n {2}added\?: string;/);
  });

  test('--all for a group and the core group; per-group-version files and an index with KindMap and kinds', async () => {
    const kinds = await kindsFromServer({ mapper: conn.mapper, snapshot: () => conn.discovery.snapshot(), openapi: openapi() }, ['types.kdyn.dev', 'core'], true);
    assert.ok(kinds.some((k) => k.group === '' && k.kind === 'ConfigMap'));
    assert.ok(kinds.every((k) => k.version === 'v1'));
    const files = generateFiles(kinds);
    assert.deepEqual([...files.keys()], ['core.v1.ts', 'types.kdyn.dev.v1.ts', 'index.ts']);
    const index = files.get('index.ts')!;
    assert.match(index, /^import type \* as types_kdyn_dev_v1 from '\.\/types\.kdyn\.dev\.v1\.js';$/m);
    assert.match(index, /^ {2}'types\.kdyn\.dev\/v1\/Gadget': types_kdyn_dev_v1\.Gadget;$/m);
    assert.match(index, /^ {2}'v1\/ConfigMap': \{ apiVersion: 'v1', kind: 'ConfigMap' \} as TypedKind<core_v1\.ConfigMap>,$/m);
    assert.deepEqual(generateFiles([...kinds].reverse()), files, 'the same files whatever the input order');
    await assert.rejects(kindsFromServer({ mapper: conn.mapper, snapshot: () => conn.discovery.snapshot(), openapi: openapi() }, ['nope.example.com'], true), /^KdynError: the server has no API group "nope\.example\.com"$/);
  });
});
