/** `kdyn get`: its flags, usage and help text (its run: ../commands/get.ts, loaded when it runs). */
import type { CommandSpec } from '../command-types.js';
import { TEMPLATE_FLAGS, SELECTOR_FLAGS, CHUNK_SIZE_FLAG, RETRY_FOR_FLAG, FLEET_FLAGS } from './shared.js';

export const getSpec: CommandSpec = {
  name: 'get',
  group: 'Basic Commands (Intermediate):',
  usage: 'get [(-o|--output=)json|yaml|name|wide|jsonl|jsonpath=...|custom-columns=...] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags]',
  summary: 'Display one or many resources',
  flags: [
    { name: 'output', short: 'o', type: 'string', describe: 'Output format. One of: (json, yaml, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file, custom-columns, custom-columns-file, wide, jsonl).' },
    ...TEMPLATE_FLAGS,
    { name: 'all-namespaces', short: 'A', type: 'boolean', describe: 'If present, list the requested object(s) across all namespaces.' },
    ...SELECTOR_FLAGS,
    CHUNK_SIZE_FLAG,
    { name: 'ignore-not-found', type: 'boolean', describe: 'If set to true, suppresses NotFound error for specific objects that do not exist.' },
    { name: 'no-headers', type: 'boolean', describe: 'When using the default or custom-column output format, don\'t print headers (default print headers).' },
    { name: 'show-labels', type: 'boolean', describe: 'When printing, show all labels as the last column (default hide labels column).' },
    { name: 'label-columns', short: 'L', type: 'array', commaSplit: true, describe: 'Accepts a comma separated list of labels that are going to be presented as columns.' },
    { name: 'sort-by', type: 'string', describe: 'If non-empty, sort list types using this field specification (a JSONPath expression).' },
    { name: 'show-kind', type: 'boolean', describe: 'If present, list the resource type for the requested object(s).' },
    { name: 'show-managed-fields', type: 'boolean', describe: 'If true, keep the managedFields when printing objects in JSON, YAML or JSON lines format.' },
    { name: 'watch', short: 'w', type: 'boolean', describe: 'After listing/getting the requested object, watch for changes (resumes when the server ends the stream; see kdyn watch).' },
    { name: 'watch-only', type: 'boolean', describe: 'Watch for changes to the requested object(s), without listing/getting first.' },
    { name: 'output-watch-events', type: 'boolean', describe: 'Output watch event objects when --watch or --watch-only is used. Existing objects are output as initial ADDED events.' },
    RETRY_FOR_FLAG,
    ...FLEET_FLAGS,
  ],
  minArgs: 0,
  examples: [
    ['List all pods in ps output format', 'kdyn get pods'],
    ['List a custom resource across all namespaces, with its printer columns', 'kdyn get crontabs.stable.example.com -A'],
    ['List one object in JSON', 'kdyn get configmap my-config -o json'],
    ['Stream every object of a large list as JSON lines', 'kdyn get configmaps -A -o jsonl'],
    ['List several types at once', 'kdyn get deployments,services'],
    ['Print names with a JSONPath template', "kdyn get pods -o jsonpath='{.items[*].metadata.name}'"],
    ['Print one name per line with a Go template', 'kdyn get pods -o go-template=\'{{range .items}}{{.metadata.name}}{{"\\n"}}{{end}}\''],
    ['List the pods, then watch them for changes (as kubectl get -w, but it never stops on its own)', 'kdyn get pods -w'],
  ],
};
