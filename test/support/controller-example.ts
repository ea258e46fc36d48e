/**
 * The controller example of docs/controller-example.md, taken from the page and run as written (as
 * a user's script, through the package's entry point), against whichever API server the caller
 * set up: the CRD from the page is installed, Notes are made, and while the controller runs one is
 * changed and one added; then SIGTERM. Returns what the test checks: the controller's output and
 * the ConfigMaps and Notes on the server afterwards.
 */
import { load } from 'js-yaml';
import type { Connection } from '../../src/connect.js';
import type { Unstructured } from '../../src/core/unstructured.js';
import { docBlock, runExample, type ExampleRun } from './readme-example.js';

export const CONTROLLER_DOC = 'docs/controller-example.md';
const NOTES = { group: 'example.kdyn.dev', version: 'v1', resource: 'notes' };
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

export interface ControllerRun {
  run: ExampleRun;
  /** `name -> { text, owner uid }` of each `<note>-note` ConfigMap in the namespace. */
  configMaps: Map<string, { text: string | undefined; owner: unknown }>;
  /** The Notes afterwards. */
  notes: Unstructured[];
}

export interface ControllerScenario {
  /** A connection for the test's own requests. */
  k: Connection;
  /** Installs the page's CRD and returns once its resource is served. */
  installCrd(crd: Record<string, unknown>): Promise<void>;
  /** An existing namespace for the Notes. */
  namespace: string;
  /** The example's directory (its HOME too) and its environment (KUBECONFIG). */
  dir: string;
  env: Record<string, string>;
}

export async function runControllerScenario(s: ControllerScenario): Promise<ControllerRun> {
  const crd = load(docBlock(CONTROLLER_DOC, 'yaml', 'kind: CustomResourceDefinition')) as Record<string, unknown>;
  await s.installCrd(crd);
  const ns = s.namespace;
  const notes = s.k.client.resource(NOTES, { namespaced: true }).namespace(ns);
  const note = (name: string, text: string): Unstructured => ({ apiVersion: 'example.kdyn.dev/v1', kind: 'Note', metadata: { name }, spec: { text } });
  await notes.create(note('n1', 'hello'));
  await notes.create(note('n2', 'world'));

  const stop = new AbortController();
  const seen = new Set<string>();
  let changes: Promise<unknown> | undefined;
  const run = await runExample(docBlock(CONTROLLER_DOC, 'ts', 'await runWorkers(queue, reconcile, {'), {
    cwd: s.dir,
    env: s.env,
    timeoutMs: 120_000,
    stop: stop.signal,
    onLine: (line) => {
      seen.add(line);
      // Both Notes reconciled: change one, add one, while the controller runs.
      if (!changes && seen.has(`reconciled ${ns}/n1 generation 1`) && seen.has(`reconciled ${ns}/n2 generation 1`)) {
        changes = Promise.all([notes.patch('n1', { spec: { text: 'changed' } }, 'merge'), notes.create(note('n3', 'new'))]);
        changes.catch(() => stop.abort());
      }
      if (seen.has(`reconciled ${ns}/n1 generation 2`) && seen.has(`reconciled ${ns}/n3 generation 1`)) stop.abort();
    },
  });
  await changes;
  const cms = await s.k.client.resource(CONFIGMAPS, { namespaced: true }).namespace(ns).listAll();
  const configMaps = new Map(
    cms.items
      .filter((o) => o.metadata?.name?.endsWith('-note'))
      .map((o) => [o.metadata!.name!, { text: (o.data as Record<string, string> | undefined)?.text, owner: o.metadata?.ownerReferences?.[0]?.uid }]),
  );
  return { run, configMaps, notes: (await notes.listAll()).items };
}
