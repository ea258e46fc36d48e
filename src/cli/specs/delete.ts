/** `kdyn delete`: its flags, usage and help text (its run: ../commands/delete.ts, loaded when it runs). */
import type { CommandSpec } from '../command-types.js';
import { FLEET_FLAGS } from './shared.js';

export const deleteSpec: CommandSpec = {
  name: 'delete',
  group: 'Basic Commands (Intermediate):',
  usage: 'delete ([-f FILENAME] | TYPE [(NAME | -l label | --all)]) [flags]',
  summary: 'Delete resources by file names, stdin, resources and names, or by resources and label selector',
  description:
    'Delete resources by file names, stdin, resources and names, or by resources and label selector, as kubectl delete does (its messages and exit codes). ' +
    'JSON and YAML formats are accepted. Only one type of argument may be specified: file names, resources and names, or resources and label selector. ' +
    'Every -f file is read and checked before the first request. By default the command waits until the objects are gone (--wait, bounded by --timeout). ' +
    'Deleting a CustomResourceDefinition deletes all its objects: a warning says how many. A deleted CRD or APIService makes the discovery cache of kdyn and kubectl stale. ' +
    'With --context a,b or --all-contexts the same deletion runs in every context, each line naming its context. Out of scope: -k/--kustomize, -i/--interactive, --raw.',
  flags: [
    { name: 'filename', short: 'f', type: 'array', describe: 'containing the resource to delete (a file, a directory of .yaml/.yml/.json files, or - for stdin); may repeat.' },
    { name: 'recursive', short: 'R', type: 'boolean', describe: 'Process the directory used in -f, --filename recursively.' },
    { name: 'all', type: 'boolean', describe: 'Delete all resources, in the namespace of the specified resource types.' },
    { name: 'all-namespaces', short: 'A', type: 'boolean', describe: 'If present, list the requested object(s) across all namespaces. Namespace in current context is ignored even if specified with --namespace.' },
    { name: 'selector', short: 'l', type: 'string', describe: "Selector (label query) to filter on, supports '=', '==', and '!='.(e.g. -l key1=value1,key2=value2). Matching objects must satisfy all of the specified label constraints." },
    { name: 'field-selector', type: 'string', describe: "Selector (field query) to filter on, supports '=', '==', and '!='.(e.g. --field-selector key1=value1,key2=value2). The server only supports a limited number of field queries per type." },
    { name: 'cascade', type: 'string', default: 'background', noValue: 'background', describe: 'Must be "background", "orphan", or "foreground". Selects the deletion cascading strategy for the dependents (e.g. Pods created by a ReplicationController). Defaults to background.' },
    { name: 'grace-period', type: 'number', default: -1, describe: 'Period of time in seconds given to the resource to terminate gracefully. Ignored if negative. Set to 1 for immediate shutdown. Can only be set to 0 when --force is true (force deletion).' },
    { name: 'now', type: 'boolean', describe: 'If true, resources are signaled for immediate shutdown (same as --grace-period=1).' },
    { name: 'force', type: 'boolean', describe: 'If true, immediately remove resources from API and bypass graceful deletion. Note that immediate deletion of some resources may result in inconsistency or data loss and requires confirmation.' },
    { name: 'wait', type: 'boolean', default: true, describe: 'If true, wait for resources to be gone before returning. This waits for finalizers.' },
    { name: 'timeout', type: 'string', default: '0s', describe: 'The length of time to wait before giving up on a delete, zero means wait (up to a week) until the objects are gone.' },
    { name: 'dry-run', type: 'string', default: 'none', noValue: 'unchanged', describe: 'Must be "none", "server", or "client". If client strategy, only print the object that would be sent, without sending it. If server strategy, submit server-side request without persisting the resource.' },
    { name: 'ignore-not-found', type: 'boolean', describe: 'Treat "resource not found" as a successful delete. Defaults to "true" when --all is specified.' },
    { name: 'output', short: 'o', type: 'string', describe: 'Output mode. Use "-o name" for shorter output (resource/name).' },
    { name: 'concurrency', type: 'number', default: 16, describe: 'How many DELETE requests are in flight at once (per context); the output keeps the input order.' },
    { name: 'kustomize', short: 'k', type: 'string', describe: 'Not supported (out of scope): run `kustomize build DIR | kdyn delete -f -` instead.' },
    ...FLEET_FLAGS,
  ],
  examples: [
    ['Delete the objects of a manifest, and wait until they are gone', 'kdyn delete -f ./app.yaml'],
    ['Delete the objects of a manifest passed into stdin', 'cat pod.json | kdyn delete -f -'],
    ['Delete pods and services with the same names "baz" and "foo"', 'kdyn delete pod,service baz foo'],
    ['Delete pods and services with label name=myLabel', 'kdyn delete pods,services -l name=myLabel'],
    ['Delete a pod with minimal delay', 'kdyn delete pod foo --now'],
    ['Force delete a pod on a dead node', 'kdyn delete pod foo --force'],
    ['Delete all pods', 'kdyn delete pods --all'],
    ['Check first with the server, without deleting anything', 'kdyn delete -f ./app.yaml --dry-run=server'],
    ['Delete the same objects in every production cluster', "kdyn delete -f ./app.yaml --context 'prod-*'"],
  ],
};
