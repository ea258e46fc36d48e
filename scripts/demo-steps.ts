/**
 * What `npm run demo` (./demo.ts) runs: each kdyn command, in the order a new user would try them,
 * against the local API server's demo seed. Every command of the CLI (src/cli/spec.ts) has a step
 * (test/unit/docs/demo.test.ts checks it, and test/e2e/demo.test.ts runs the demo); a new command
 * adds its own.
 */

export interface Step {
  args: string[];
  /** One line shown above the command. */
  note?: string;
  /** Show only this many first lines of stdout (a long script). */
  headLines?: number;
}

const GROUP = 'demo.kdyn.dev';

/** Files written into the demo's working directory before the steps run. */
export const DEMO_FILES: Record<string, string> = {
  'launch-settings.yaml': [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: launch-settings',
    '  namespace: demo',
    'data:',
    '  window: "06:00-09:00"',
    '---',
    'apiVersion: demo.kdyn.dev/v1',
    'kind: Rocket',
    'metadata:',
    '  name: pioneer',
    '  namespace: demo',
    'spec:',
    '  stage: fueling',
    '  engines: 2',
    '  launchPad: slc-40',
    '',
  ].join('\n'),
};

export const STEPS: Step[] = [
  { args: ['version'], note: 'client and server versions' },
  { args: ['api-resources', '--api-group', GROUP, '-o', 'wide'], note: 'the demo CRDs as discovery reports them' },
  { args: ['api-resources', '--namespaced=false', '--sort-by=name'] },
  { args: ['get', 'namespaces'] },
  { args: ['get', 'rockets', '-A'], note: "a custom resource: columns come from the CRD's printer columns" },
  { args: ['get', 'rkt', '-n', 'demo', '-o', 'wide'], note: 'by short name; -o wide adds the priority-1 column' },
  { args: ['get', 'fleet', '-A'], note: 'a category of its own' },
  { args: ['get', 'launchpads', '-o', 'name'] },
  { args: ['get', 'rocket/falcon', '-n', 'demo', '-o', 'yaml'] },
  { args: ['get', 'configmaps', '-n', 'demo', '-o', 'yaml'] },
  { args: ['get', 'pods,services', '-n', 'demo'], note: 'several types at once' },
  { args: ['get', 'rockets', '-A', '-l', 'tier=heavy', '-o', 'custom-columns=NAME:.metadata.name,NAMESPACE:.metadata.namespace,PAD:.spec.launchPad'] },
  { args: ['get', 'rockets', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.spec.stage}{"\\n"}{end}'] },
  { args: ['get', 'rockets', '-A', '-o', 'jsonl'], note: 'one JSON object per line, for jq' },
  { args: ['apply', '-f', 'launch-settings.yaml', '--dry-run=server'], note: 'server-side apply, checked by the server first (launch-settings.yaml: a ConfigMap and a Rocket)' },
  { args: ['apply', '-f', 'launch-settings.yaml'] },
  { args: ['diff', '-f', 'launch-settings.yaml'], note: 'what applying again would change, as kubectl diff shows it: nothing (exit 0; 1 when something would change)' },
  { args: ['apply', '-f', 'launch-settings.yaml', '--prune', '--applyset=configmap/launch-set', '-n', 'demo'], note: "the same file as an ApplySet (KEP-3659, as kubectl's): what a later version of the file no longer holds is pruned" },
  { args: ['applyset', 'configmap/launch-set', '-n', 'demo'], note: "the set's members, as its parent records them" },
  { args: ['watch', 'rocket', 'pioneer', '-n', 'demo', '--for', 'jsonpath={.spec.stage}=fueling', '--timeout', '30s'], note: 'a watch until a condition holds (as kubectl wait)' },
  { args: ['watch', 'configmaps', '-n', 'demo', '--no-live', '--timeout', '2s'], note: 'events as they come (on a terminal, a table redrawn in place without --no-live)' },
  { args: ['explain', 'rockets.spec'], note: "a type's fields and their documentation, from the served OpenAPI (as kubectl explain)" },
  { args: ['types', 'rockets', '--output-dir', 'k8s-types'], note: 'TypeScript declarations from the served OpenAPI, for the library' },
  { args: ['delete', '-f', 'launch-settings.yaml'], note: 'delete what the file holds, and wait until it is gone' },
  { args: ['completion', 'bash'], note: 'shell completion: source <(kdyn completion bash)', headLines: 3 },
];
