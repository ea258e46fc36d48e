/** `kdyn applyset`: its flags, usage and help text (its run: ../commands/applyset.ts, loaded when it runs). */
import type { CommandSpec } from '../command-types.js';

export const applysetSpec: CommandSpec = {
  name: 'applyset',
  group: 'Advanced Commands:',
  usage: 'applyset [RESOURCE[.GROUP]/]NAME [flags]',
  summary: 'List the members of an ApplySet (what apply --prune --applyset manages)',
  description:
    'List the objects of the ApplySet whose parent is [RESOURCE[.GROUP]/]NAME (a Secret when only NAME is given, configmap/NAME, or a custom resource), ' +
    'as `apply --prune --applyset` would list them before pruning: each group-kind the parent records, in each namespace it records, with the ' +
    'applyset.kubernetes.io/part-of label. Sets made by any tool (kubectl, kdyn) are listed; nothing is changed. The parent\'s ID label is verified first. ' +
    'The default output is a table (NAMESPACE, NAME) after a header naming the set, its ID and its tooling (on stderr); -o name prints kind/name lines; -o json|yaml a List of the members.',
  flags: [{ name: 'output', short: 'o', type: 'string', choices: ['name', 'json', 'yaml'], describe: 'Output format. One of: (name, json, yaml).' }],
  minArgs: 1,
  maxArgs: 1,
  examples: [
    ['List the members of the ApplySet of ConfigMap app in namespace prod', 'kdyn applyset configmap/app -n prod'],
    ["The same, as the names kubectl's -o name prints", 'kdyn applyset configmap/app -n prod -o name'],
  ],
};
