/** `kdyn diff`: its flags, usage and help text (its run: ../commands/diff.ts, loaded when it runs). */
import type { CommandSpec } from '../command-types.js';
import { FLEET_FLAGS } from './shared.js';

export const diffSpec: CommandSpec = {
  name: 'diff',
  group: 'Advanced Commands:',
  usage: 'diff -f FILENAME [flags]',
  summary: 'Diff the live version against a would-be applied version',
  description:
    'Diff configurations specified by file name or stdin between the current online configuration, and the configuration as it would be if applied ' +
    '(a server-side apply with dryRun=All: nothing is persisted; an object whose managedFields prove the apply would leave it as it is is not sent). ' +
    'The output is always YAML, without managedFields; Secret data is masked. New objects are shown as created. ' +
    'Instances of a CustomResourceDefinition the same input creates are shown as created too, checked against that CRD\'s schema, and so are objects in a Namespace the input creates. ' +
    'KUBECTL_EXTERNAL_DIFF environment variable can be used to select your own diff command. Users can use external commands with params too, example: ' +
    'KUBECTL_EXTERNAL_DIFF="colordiff -N -u". By default, the "diff" command available in your path will be run with the "-u" (unified diff) and "-N" ' +
    '(treat absent files as empty) options. Exit status: 0 No differences were found. 1 Differences were found. >1 kdyn or diff failed with an error. ' +
    'With several contexts (--context a,b, --all-contexts): one section per context, headed `# context "NAME"`; a context that fails is one error line and makes the exit status >1.',
  flags: [
    { name: 'filename', short: 'f', type: 'array', describe: 'The files that contain the configuration to diff (a file, a directory of .yaml/.yml/.json files, or - for stdin); may repeat.' },
    { name: 'recursive', short: 'R', type: 'boolean', describe: 'Process the directory used in -f, --filename recursively.' },
    { name: 'selector', short: 'l', type: 'string', describe: 'Selector (label query) to filter on, supports \'=\', \'==\', \'!=\', \'in\', \'notin\'.' },
    { name: 'server-side', type: 'boolean', default: true, describe: 'Always server-side apply (false is refused: client-side apply is not supported).' },
    { name: 'field-manager', type: 'string', default: 'kdyn', describe: 'Name of the manager used to track field ownership (kdyn apply\'s by default, so the diff shows what kdyn apply would do).' },
    { name: 'force-conflicts', type: 'boolean', describe: 'If true, server-side apply will force the changes against conflicts.' },
    { name: 'skip-unchanged', type: 'boolean', default: false, describe: 'Opt in: objects whose live version already holds exactly the input\'s fields and values, owned by this field manager\'s apply, are shown unchanged without a dry-run request (admission and changed defaults are then not consulted for them). Default: every object is sent, as kubectl does.' },
    { name: 'show-managed-fields', type: 'boolean', describe: 'If true, include managed fields in the diff.' },
    { name: 'concurrency', type: 'number', default: 8, describe: 'Number of objects to process in parallel when diffing against the live version.' },
    { name: 'prune', type: 'boolean', describe: 'Include resources that would be deleted by pruning: with --applyset, the members of the ApplySet that the input no longer holds (as kdyn apply --prune --applyset would delete them).' },
    { name: 'applyset', type: 'string', describe: 'With --prune: the ApplySet parent, [RESOURCE][.GROUP]/NAME (configmap/NAME, secret/NAME, a custom resource; in the namespace of -n), as kdyn apply takes it.' },
    { name: 'kustomize', short: 'k', type: 'string', describe: 'Not supported (out of scope): run `kustomize build DIR | kdyn diff -f -` instead.' },
    ...FLEET_FLAGS,
  ],
  maxArgs: 0,
  examples: [
    ['Diff resources included in pod.json', 'kdyn diff -f pod.json'],
    ['Diff file read from stdin', 'cat service.yaml | kdyn diff -f -'],
    ['A CRD and its custom resources: the resources are shown as created', 'kdyn diff -f crd-and-instances.yaml'],
    ['What the same manifests would change in two clusters', 'kdyn diff -f ./manifests -R --context east,west'],
    ['Use your own diff program', 'KUBECTL_EXTERNAL_DIFF="colordiff -N -u" kdyn diff -f app.yaml'],
  ],
};
