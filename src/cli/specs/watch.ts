/** `kdyn watch`: its flags, usage and help text (its run: ../commands/watch.ts, loaded when it runs). */
import type { CommandSpec } from '../command-types.js';
import { TEMPLATE_FLAGS, SELECTOR_FLAGS, CHUNK_SIZE_FLAG, RETRY_FOR_FLAG, FLEET_FLAGS } from './shared.js';

export const watchSpec: CommandSpec = {
  name: 'watch',
  usage: 'watch [(-o|--output=)wide|name|json|yaml|jsonl|jsonpath=...|go-template=...] (TYPE[,TYPE...] [NAME] | TYPE/NAME ...) [--for CONDITION] [flags]',
  summary: 'Watch resources for changes, or wait for a condition',
  description:
    'List the objects, then print every change as it happens: the server\'s table with an EVENT column (as kubectl get -w --output-watch-events), or the objects. Unlike kubectl get -w, the watch resumes from the last resourceVersion when the server ends the stream, relists after 410 Expired printing only what changed meanwhile, and can watch several types at once. With --for it exits 0 as soon as every selected object satisfies the condition (waiting for objects that do not exist yet) and 1 at --timeout (default 30s, as kubectl wait), with the last state. SIGINT/SIGTERM end it cleanly (exit 130/143).',
  flags: [
    { name: 'output', short: 'o', type: 'string', describe: 'Output format. One of: (wide, name, json, yaml, jsonl, jsonpath, jsonpath-as-json, jsonpath-file, go-template, go-template-file, template, templatefile). jsonl: one {"type":...,"object":...} per line; a template is applied to each {"type":...,"object":...} event.' },
    ...TEMPLATE_FLAGS,
    { name: 'all-namespaces', short: 'A', type: 'boolean', describe: 'If present, watch the requested object(s) across all namespaces.' },
    ...SELECTOR_FLAGS,
    { name: 'resource-version', type: 'string', describe: 'Start watching after this resourceVersion, without listing first (changes since then only).' },
    { name: 'timeout', type: 'string', describe: 'Stop after this long (e.g. 30s, 5m): exit 0. With --for, as kubectl wait: 30s when unset, 0 checks once, negative waits a week; exit 1 when the condition was not met. Without --for the watch runs until stopped.' },
    { name: 'max-events', type: 'number', describe: 'Stop after printing this many events (initial ADDED events included).' },
    { name: 'for', type: 'array', describe: "Wait until every selected object satisfies: 'delete', 'create', 'condition=NAME[=VALUE]' or 'jsonpath={EXPR}[=VALUE]'. May repeat: all must hold." },
    { name: 'watch-only', type: 'boolean', describe: 'Print only changes, not the objects that exist when the watch starts.' },
    { name: 'no-headers', type: 'boolean', describe: 'When using the default output format, don\'t print headers.' },
    { name: 'show-managed-fields', type: 'boolean', describe: 'If true, keep the managedFields in -o jsonl (dropped by default). -o json and -o yaml print kubectl\'s watch events, which always keep them, and templates always see them; tables and -o name never show them.' },
    { name: 'live', type: 'boolean', describe: 'Show the table of current objects redrawn in place (the default for a table on a terminal; see docs/live-view.md): q quits, / filters by name.' },
    { name: 'no-live', type: 'boolean', describe: 'Append a row per event (kubectl get -w --output-watch-events), also on a terminal.' },
    { name: 'sort-by', type: 'string', describe: 'Live view: sort the rows by this JSONPath over each object\'s metadata (e.g. \'{.metadata.creationTimestamp}\'); default namespace/name.' },
    CHUNK_SIZE_FLAG,
    RETRY_FOR_FLAG,
    ...FLEET_FLAGS,
  ],
  minArgs: 1,
  examples: [
    ['Watch the pods: a table kept up to date in place on a terminal, a row per event into a pipe', 'kdyn watch pods'],
    ['Watch deployments and pods together, as JSON lines for a script', 'kdyn watch deployments,pods -n app -o jsonl'],
    ['Watch one custom resource across a server restart or a 410, for at most 10 minutes', 'kdyn watch crontab ct1 --timeout 10m'],
    ['Wait until a pod runs (it may not exist yet); exit 1 after 2 minutes', "kdyn watch pod web-0 --for 'jsonpath={.status.phase}=Running' --timeout 2m"],
    ['Wait until every deployment labelled app=web is Available', 'kdyn watch deployments -l app=web --for condition=Available --timeout 5m'],
    ['Wait until a namespace is gone', 'kdyn watch namespace scratch --for delete --timeout 1m'],
    ['Wait until a deployment is Available and has 3 ready replicas (every --for must hold)', "kdyn watch deploy web --for condition=Available --for 'jsonpath={.status.readyReplicas}=3'"],
    ['Print the next 10 changes to config maps, then exit', 'kdyn watch configmaps -A --watch-only --max-events 10'],
  ],
};
