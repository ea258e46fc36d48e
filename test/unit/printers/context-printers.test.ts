// The printers decorated with the context (src/printers/context-watch.ts, src/printers/context-apply.ts;
// issue 36): without a fleet every call reaches the printer as it is (one context's output is
// kubectl's); a fleet's output names the context in every format. Pure: printers over memory IO.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Table } from '../../../src/core/table.js';
import type { Unstructured } from '../../../src/core/unstructured.js';
import { StatusError } from '../../../src/core/errors.js';
import { createPrinter, prepareOutput, type EventPrinter, type PrintedEvent } from '../../../src/printers/index.js';
import { withContext } from '../../../src/printers/context-watch.js';
import { createContextApplyPrinter } from '../../../src/printers/context-apply.js';
import { applyPrintOptions, watchPrintOptions } from '../../../src/cli/print-flags.js';
import { memoryIO } from '../../support/io.js';

const CM: Unstructured = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'demo', managedFields: [{ manager: 'kdyn' }] } };
const EVENT: PrintedEvent = { type: 'ADDED', object: CM, gk: { group: '', kind: 'ConfigMap' } };
const ROW: Table = {
  kind: 'Table',
  apiVersion: 'meta.k8s.io/v1',
  metadata: {},
  columnDefinitions: [{ name: 'Name', type: 'string', format: 'name', priority: 0 }],
  rows: [{ cells: ['app'], object: { metadata: { name: 'app', namespace: 'demo' } } }],
};

/** The watch printer for `-o OUTPUT`, decorated; its stdout and stderr once ended. */
async function watchOutput(output: string | undefined, decoration: Parameters<typeof withContext>[2], run: (p: Awaited<ReturnType<typeof withContext>>) => void) {
  const io = memoryIO();
  const o = await prepareOutput(watchPrintOptions(output === undefined ? {} : { output }), io);
  const printer: EventPrinter = await createPrinter(o, { events: true, withNamespace: false, withKind: false, keepManagedFields: false, quiet: false, verbose: false }, io);
  const p = await withContext(printer, o, decoration, false);
  run(p);
  p.end();
  return { out: io.out(), err: io.err() };
}

describe('watch: withContext', () => {
  test('no fleet: the printer\'s own output (kubectl get -w)', async () => {
    const plain = await watchOutput('name', undefined, (p) => p.event('east', [EVENT]));
    assert.equal(plain.out, 'configmap/app\n');
    const jsonl = await watchOutput('jsonl', undefined, (p) => p.event('east', [EVENT]));
    assert.deepEqual(JSON.parse(jsonl.out), { type: 'ADDED', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'demo' } } });
  });
  test('a fleet: CONTEXT/ names, {context,type,object} records, a CONTEXT column after EVENT', async () => {
    const fleet = { showContext: true, withNamespace: false };
    assert.equal((await watchOutput('name', fleet, (p) => p.event('east', [EVENT]))).out, 'east/configmap/app\n');
    const jsonl = JSON.parse((await watchOutput('jsonl', fleet, (p) => p.event('east', [EVENT]))).out);
    assert.deepEqual(Object.keys(jsonl), ['context', 'type', 'object']);
    assert.equal(jsonl.context, 'east');
    assert.equal(jsonl.object.metadata.managedFields, undefined);
    const table = await watchOutput(undefined, { showContext: true, withNamespace: true }, (p) => p.event('east', [{ ...EVENT, object: ROW }]));
    assert.equal(table.out, 'EVENT      CONTEXT   NAMESPACE   NAME\nADDED      east      demo        app\n');
  });
  test('several namespaces of one context: a NAMESPACE column, no context', async () => {
    const table = await watchOutput(undefined, { showContext: false, withNamespace: true }, (p) => p.event('east', [{ ...EVENT, object: ROW }]));
    assert.equal(table.out, 'EVENT      NAMESPACE   NAME\nADDED      demo        app\n');
  });
  test('--for\'s lines and the notices name the context', async () => {
    const gone = new StatusError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'not found', reason: 'NotFound', code: 404 } as never, 404);
    const r = await watchOutput('name', { showContext: true, withNamespace: false }, (p) => {
      p.waitEnd('east', { stdout: 'configmap/app condition met\n', stderr: 'error: timed out waiting for the condition on configmaps/b\n' });
      p.gone('east', { type: 'configmaps' }, gone);
    });
    assert.equal(r.out, 'east/configmap/app condition met\n');
    assert.equal(r.err, 'error: context "east": timed out waiting for the condition on configmaps/b\nWarning: watch of east/configmaps ended: the resource type is no longer served (not found)\n');
  });
  test('one context: a gone type is said once, whatever the names watched; --for\'s lines as they are', async () => {
    const gone = new StatusError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'not found', reason: 'NotFound', code: 404 } as never, 404);
    const r = await watchOutput('name', undefined, (p) => {
      p.waitEnd('east', { stdout: 'configmap/app condition met\n', stderr: '' });
      p.gone('east', { type: 'configmaps' }, gone);
      p.gone('east', { type: 'configmaps' }, gone);
    });
    assert.equal(r.out, 'configmap/app condition met\n');
    assert.equal(r.err, 'Warning: watch of configmaps ended: the resource type is no longer served (not found)\n');
  });
});

describe('apply: createContextApplyPrinter', () => {
  const applied = () => [{ ref: 'configmap/app', unchanged: false, object: structuredClone(CM) }];
  async function applyOutput(output: string | undefined, showContext: boolean, run: (p: Awaited<ReturnType<typeof createContextApplyPrinter>>) => void) {
    const io = memoryIO();
    const p = await createContextApplyPrinter(applyPrintOptions(output === undefined ? {} : { output }), { serverDryRun: true, clientDryRun: false }, showContext, io);
    run(p);
    return { out: io.out(), err: io.err() };
  }
  test('one context: the printer\'s lines, its stderr lines as they are', async () => {
    const r = await applyOutput(undefined, false, (p) => {
      p.page('east', applied());
      p.endContext('east');
      p.error('east', 'error: configmap/b from cm.yaml: boom\n');
      p.summary('east', '1 object: 1 succeeded, 0 failed (server dry run)');
    });
    assert.equal(r.out, 'configmap/app serverside-applied (server dry run)\n');
    assert.equal(r.err, 'error: configmap/b from cm.yaml: boom\n1 object: 1 succeeded, 0 failed (server dry run)\n');
    const json = await applyOutput('json', false, (p) => (p.page('east', applied()), p.endContext('east')));
    assert.equal(JSON.parse(json.out).kind, 'ConfigMap', 'one object printed as itself');
  });
  test('a fleet: each line and document names its context', async () => {
    const r = await applyOutput(undefined, true, (p) => {
      p.page('east', applied());
      p.error('east', 'error: configmap/b from cm.yaml: boom\n');
      p.summary('east', '1 object: 1 succeeded, 0 failed (server dry run)');
    });
    assert.equal(r.out, 'east/configmap/app serverside-applied (server dry run)\n');
    assert.equal(r.err, 'error: context "east": configmap/b from cm.yaml: boom\ncontext "east": 1 object: 1 succeeded, 0 failed (server dry run)\n');
    const json = JSON.parse((await applyOutput('json', true, (p) => p.page('east', applied()))).out);
    assert.equal(json.kind, 'List');
    assert.equal(json.context, 'east');
    assert.equal(json.items[0].metadata.managedFields, undefined);
    assert.equal((await applyOutput('jsonl', true, (p) => p.page('west', applied()))).out.startsWith('{"context":"west","object":{'), true);
  });
});
