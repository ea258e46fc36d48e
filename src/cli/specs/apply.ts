/** `kdyn apply`: its flags, usage and help text (its run: ../commands/apply.ts, loaded when it runs). */
import type { CommandSpec } from '../command-types.js';
import { FLEET_FLAGS } from './shared.js';

export const applySpec: CommandSpec = {
  name: 'apply',
  group: 'Advanced Commands:',
  usage: 'apply (-f FILENAME | -f DIR [-R] | -f -) [flags]',
  summary: 'Apply a configuration to resources by file name or stdin (server-side apply)',
  description:
    'Apply a configuration to resources by file name or stdin, with server-side apply (PATCH application/apply-patch+yaml). ' +
    'JSON and YAML formats are accepted; multi-document YAML and List objects are split. Every file is read and checked before the first request: ' +
    'a syntax error or a document without apiVersion, kind or metadata.name sends nothing. Namespaces are applied first, then ' +
    'CustomResourceDefinitions (awaited until Established), then everything else, so one file can hold CRDs and their instances. ' +
    'Out of scope: -k/--kustomize (pipe `kustomize build DIR` into `kdyn apply -f -`), URLs as -f (download first), client-side apply, and --prune without --applyset. ' +
    'With --prune --applyset=[RESOURCE][.GROUP]/NAME the objects form an ApplySet (KEP-3659, as KUBECTL_APPLYSET=true kubectl apply does; no environment variable needed): ' +
    'each gets the applyset.kubernetes.io/part-of label, the parent (a Secret by default, a ConfigMap, or a custom resource whose CRD is labelled applyset.kubernetes.io/is-parent-type) records their group-kinds and namespaces, ' +
    'and objects of the set that the input no longer holds are deleted (`kind/name pruned`). A set made by another tool is refused; --applyset-takeover takes over one kubectl made (and only that); see docs/applysets.md.',
  flags: [
    { name: 'filename', short: 'f', type: 'array', describe: 'The files that contain the configurations to apply (a file, a directory of .yaml/.yml/.json files, or - for stdin); may repeat.' },
    { name: 'recursive', short: 'R', type: 'boolean', describe: 'Process the directory used in -f, --filename recursively.' },
    { name: 'output', short: 'o', type: 'string', choices: ['name', 'json', 'yaml', 'jsonl'], describe: 'Output format. One of: (json, yaml, name, jsonl).' },
    { name: 'server-side', type: 'boolean', default: true, describe: 'Always server-side apply (false is refused: client-side apply is not supported).' },
    { name: 'field-manager', type: 'string', default: 'kdyn', describe: 'Name of the manager used to track field ownership.' },
    { name: 'force-conflicts', type: 'boolean', describe: 'If true, server-side apply will force the changes against conflicts.' },
    { name: 'dry-run', type: 'string', default: 'none', choices: ['none', 'server', 'client'], describe: 'Must be "none", "server", or "client". If client strategy, only print the requests that would be sent, without sending them. If server strategy, submit server-side requests without persisting the resource.' },
    { name: 'validate', type: 'string', default: 'strict', choices: ['strict', 'warn', 'ignore', 'true', 'false'], describe: "Must be one of: strict (or true), warn, ignore (or false). Sent as the fieldValidation parameter." },
    { name: 'concurrency', type: 'number', default: 8, describe: 'How many objects of one stage are applied at once.' },
    { name: 'wait', type: 'boolean', describe: 'If true, wait until every applied object is ready (CRDs established, Ready/Available conditions, rollouts complete).' },
    { name: 'timeout', type: 'string', default: '5m', describe: 'How long --wait (and the wait for new CRDs to be established) may take.' },
    { name: 'show-managed-fields', type: 'boolean', describe: 'If true, keep the managedFields when printing objects in JSON, YAML or JSON lines format.' },
    { name: 'prune', type: 'boolean', describe: 'Delete the objects of the ApplySet (--applyset) that the input no longer holds. Requires --applyset.' },
    { name: 'applyset', type: 'string', describe: "The ApplySet parent: [RESOURCE][.GROUP]/NAME (a Secret when only NAME is given; configmap/NAME; a custom resource whose CRD carries applyset.kubernetes.io/is-parent-type). A namespaced parent takes its namespace from -n. Requires --prune." },
    { name: 'applyset-takeover', type: 'boolean', describe: "Manage an ApplySet kubectl made (its applyset.kubernetes.io/tooling, kubectl/<version>, is rewritten to kdyn's); any other tool's set stays refused. With --dry-run=server, shows what would change. The ID must still match." },
    { name: 'kustomize', short: 'k', type: 'string', describe: 'Not supported (out of scope): run `kustomize build DIR | kdyn apply -f -` instead.' },
    ...FLEET_FLAGS,
  ],
  maxArgs: 0,
  examples: [
    ['Apply the configuration in manifest.yaml: a CRD and its custom resources work in one call', 'kdyn apply -f manifest.yaml'],
    ['Apply every .yaml, .yml and .json file in a directory tree', 'kdyn apply -f ./manifests -R'],
    ['Apply the YAML passed into stdin', 'cat manifest.yaml | kdyn apply -f -'],
    ['Apply a kustomization (kustomize itself is out of scope)', 'kustomize build overlays/prod | kdyn apply -f -'],
    ['Take over fields another field manager owns', 'kdyn apply -f manifest.yaml --force-conflicts'],
    ['Check with the server without persisting anything', 'kdyn apply -f manifest.yaml --dry-run=server'],
    ['Apply and wait until the deployments have rolled out', 'kdyn apply -f app.yaml --wait --timeout=2m'],
    ['Apply the ApplySet of ConfigMap app and delete what the files dropped', 'kdyn apply -n prod -f app/ --prune --applyset=configmap/app'],
    ["Show what taking over kubectl's ApplySet would change", 'kdyn apply -n prod -f app/ --prune --applyset=app --applyset-takeover --dry-run=server'],
  ],
};
