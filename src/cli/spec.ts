/**
 * The declarative command table: every command and flag kdyn accepts. The lean argv parser
 * (./parse.ts) and the yargs-rendered help (./help.ts) both read it, so they cannot disagree.
 * Command implementations are loaded on demand (`load`), so start-up only parses this table.
 */
import type { IO } from '../core/io.js';
import type { Context } from './context.js';

export type FlagType = 'string' | 'boolean' | 'number' | 'array';

export interface FlagSpec {
  name: string; // long name, kebab-case
  short?: string; // one letter
  type: FlagType;
  describe: string;
  default?: string | boolean | number | string[];
  /** Allowed values (checked by the parser; exit 2 otherwise). */
  choices?: readonly string[];
  /** For `array`: split each value at commas as well (pflag stringSlice). */
  commaSplit?: boolean;
  hidden?: boolean;
}

export interface ParsedArgs {
  command: string;
  args: string[];
  /** Flag values by long name, defaults filled in. */
  flags: Record<string, string | boolean | number | string[] | undefined>;
  /** Long names of the flags given on the command line. */
  explicit: Set<string>;
  /** How the user runs kdyn, for usage lines and messages: `kdyn`, or `kubectl kdyn` as a kubectl plugin (default `kdyn`). */
  prog?: string;
}

export interface CommandModule {
  run(args: ParsedArgs, ctx: Context, io: IO): Promise<number | void>;
}

/** kubectl's command groups in `kubectl --help`, in its order. */
export const HELP_GROUPS = [
  'Basic Commands (Beginner):',
  'Basic Commands (Intermediate):',
  'Deploy Commands:',
  'Cluster Management Commands:',
  'Troubleshooting and Debugging Commands:',
  'Advanced Commands:',
  'Settings Commands:',
  'Other Commands:',
] as const;
export type HelpGroup = (typeof HELP_GROUPS)[number];

export interface CommandSpec {
  name: string;
  /** Where `kdyn --help` lists the command (kubectl's group for it; default 'Other Commands:'). */
  group?: HelpGroup;
  /** Not listed in help or completed (`__complete`, the shells' helper). */
  hidden?: boolean;
  aliases?: string[];
  /** `get [(-o|--output=)json|yaml|name|...] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...)` */
  usage: string;
  summary: string;
  description?: string;
  examples: Array<[string, string]>; // [comment, command]
  flags: FlagSpec[];
  minArgs?: number;
  maxArgs?: number;
  load: () => Promise<CommandModule>;
}

export const GLOBAL_FLAGS: FlagSpec[] = [
  { name: 'kubeconfig', type: 'string', describe: 'Path to the kubeconfig file to use for CLI requests.' },
  { name: 'context', type: 'string', describe: 'The name of the kubeconfig context to use' },
  { name: 'cluster', type: 'string', describe: 'The name of the kubeconfig cluster to use' },
  { name: 'user', type: 'string', describe: 'The name of the kubeconfig user to use' },
  { name: 'namespace', short: 'n', type: 'string', describe: 'If present, the namespace scope for this CLI request' },
  { name: 'server', short: 's', type: 'string', describe: 'The address and port of the Kubernetes API server' },
  { name: 'token', type: 'string', describe: 'Bearer token for authentication to the API server' },
  { name: 'client-certificate', type: 'string', describe: 'Path to a client certificate file for TLS' },
  { name: 'client-key', type: 'string', describe: 'Path to a client key file for TLS' },
  { name: 'certificate-authority', type: 'string', describe: 'Path to a cert file for the certificate authority' },
  { name: 'as', type: 'string', describe: 'Username to impersonate for the operation. User could be a regular user or a service account in a namespace.' },
  { name: 'as-group', type: 'array', describe: 'Group to impersonate for the operation, this flag can be repeated to specify multiple groups.' },
  { name: 'as-uid', type: 'string', describe: 'UID to impersonate for the operation.' },
  { name: 'insecure-skip-tls-verify', type: 'boolean', describe: "If true, the server's certificate will not be checked for validity. This will make your HTTPS connections insecure" },
  { name: 'tls-server-name', type: 'string', describe: 'Server name to use for server certificate validation. If it is not provided, the hostname used to contact the server is used' },
  { name: 'request-timeout', type: 'string', default: '0', describe: 'The length of time to wait before giving up on a single server request. Non-zero values should contain a corresponding time unit (e.g. 1s, 2m, 3h). A value of zero means don\'t timeout requests.' },
  { name: 'cache-dir', type: 'string', describe: 'Default cache directory (default: $KUBECACHEDIR, else ~/.kube/cache)' },
  { name: 'cache-ttl', type: 'string', default: '10m', describe: 'How long cached discovery stays fresh (e.g. 10m, 30s; 0 bypasses the cache)' },
  { name: 'v', short: 'v', type: 'number', default: 0, describe: 'number for the log level verbosity (6: one line per HTTP request, 9: stack traces)' },
  { name: 'help', short: 'h', type: 'boolean', describe: 'help for kdyn' },
  { name: 'version', type: 'boolean', describe: 'Print the client version and exit' },
];

/** Flags `get` and `watch` share (the same text in both helps). */
const TEMPLATE_FLAGS: FlagSpec[] = [
  { name: 'template', type: 'string', describe: 'Template string or path to template file to use when -o=go-template, -o=go-template-file. The template format is golang templates [http://golang.org/pkg/text/template/#pkg-overview].' },
  { name: 'allow-missing-template-keys', type: 'boolean', default: true, describe: 'If true, ignore any errors in templates when a field or map key is missing in the template. Only applies to golang and jsonpath output formats.' },
];
const SELECTOR_FLAGS: FlagSpec[] = [
  { name: 'selector', short: 'l', type: 'string', describe: 'Selector (label query) to filter on, supports \'=\', \'==\', \'!=\', \'in\', \'notin\'.' },
  { name: 'field-selector', type: 'string', describe: 'Selector (field query) to filter on, supports \'=\', \'==\', and \'!=\'.' },
];
const CHUNK_SIZE_FLAG: FlagSpec = { name: 'chunk-size', type: 'number', default: 500, describe: 'Return large lists in chunks rather than all at once. Pass 0 to disable.' };
const RETRY_FOR_FLAG: FlagSpec = {
  name: 'retry-for',
  type: 'string',
  default: '2m',
  describe: 'How long a watch coming back after a lost connection or a server error retries 401, 403 and 404 (a restarting API server answers so for a moment) before it ends with the error, as kubectl would at once. 0: at once. Errors on the first request always end it at once.',
};

/** Fleets (issue 24, docs/fleet.md): `--context a,b` or `--context 'prod-*'` select several contexts too. */
const FLEET_FLAGS: FlagSpec[] = [
  { name: 'all-contexts', type: 'boolean', describe: 'Run against every context of the kubeconfig (as --context, which also takes a comma list and globs: --context \'prod-*,staging\'). The output names each object\'s context.' },
  { name: 'context-concurrency', type: 'number', default: 16, describe: 'With several contexts: how many clusters are worked on at once.' },
];

const load = (p: () => Promise<CommandModule>) => p;

export const COMMANDS: CommandSpec[] = [
  {
    name: 'api-resources',
    usage: 'api-resources [flags]',
    summary: 'Print the supported API resources on the server',
    flags: [
      { name: 'api-group', type: 'string', describe: 'Limit to resources in the specified API group.' },
      { name: 'namespaced', type: 'boolean', default: true, describe: 'If false, non-namespaced resources will be returned, otherwise returning namespaced resources by default.' },
      { name: 'verbs', type: 'array', commaSplit: true, describe: 'Limit to resources that support the specified verbs.' },
      { name: 'categories', type: 'array', commaSplit: true, describe: 'Limit to resources that belong to the specified categories.' },
      { name: 'sort-by', type: 'string', choices: ['name', 'kind'], describe: "If non-empty, sort list of resources using specified field. One of 'name' or 'kind'." },
      { name: 'no-headers', type: 'boolean', describe: 'When using the default or custom-column output format, don\'t print headers (default print headers).' },
      { name: 'output', short: 'o', type: 'string', describe: 'Output format. One of: (wide, name, json, yaml).' },
      { name: 'cached', type: 'boolean', describe: 'Use the cached list of resources if available (no requests, even past the TTL).' },
      { name: 'strict', type: 'boolean', describe: 'Exit 1 when any group-version could not be discovered or is stale (rows are printed either way).' },
      ...FLEET_FLAGS,
    ],
    maxArgs: 0,
    examples: [
      ['Print the supported API resources', 'kdyn api-resources'],
      ['Print the supported API resources with more information', 'kdyn api-resources -o wide'],
      ['Print the supported API resources sorted by a column', 'kdyn api-resources --sort-by=name'],
      ['Print the supported namespaced resources', 'kdyn api-resources --namespaced=true'],
      ['Print the supported non-namespaced resources', 'kdyn api-resources --namespaced=false'],
      ['Print the supported API resources with a specific APIGroup', 'kdyn api-resources --api-group=rbac.authorization.k8s.io'],
    ],
    load: load(() => import('./commands/api-resources.js')),
  },
  {
    name: 'apply',
    group: 'Advanced Commands:',
    usage: 'apply (-f FILENAME | -f DIR [-R] | -f -) [flags]',
    summary: 'Apply a configuration to resources by file name or stdin (server-side apply)',
    description:
      'Apply a configuration to resources by file name or stdin, with server-side apply (PATCH application/apply-patch+yaml). ' +
      'JSON and YAML formats are accepted; multi-document YAML and List objects are split. Every file is read and checked before the first request: ' +
      'a syntax error or a document without apiVersion, kind or metadata.name sends nothing. Namespaces are applied first, then ' +
      'CustomResourceDefinitions (awaited until Established), then everything else, so one file can hold CRDs and their instances. ' +
      'Out of scope: -k/--kustomize (pipe `kustomize build DIR` into `kdyn apply -f -`), URLs as -f (download first), client-side apply and --prune.',
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
    ],
    load: load(() => import('./commands/apply.js')),
  },
  {
    name: '__complete',
    hidden: true,
    usage: '__complete types | names TYPE | contexts | words -- WORD...',
    summary: 'Print completion candidates for the shell completion scripts (words: cobra\'s __complete, for kubectl\'s plugin completion)',
    flags: [],
    minArgs: 1,
    examples: [['Resource types from the discovery cache (no request)', 'kdyn __complete types']],
    load: load(() => import('./commands/complete.js')),
  },
  {
    name: 'completion',
    group: 'Settings Commands:',
    usage: 'completion SHELL',
    summary: 'Output shell completion code for the specified shell (bash, zsh or fish)',
    description: 'Output shell completion code for the specified shell (bash, zsh or fish). Commands, flags and output formats complete without running kdyn; resource types come from the discovery cache within its TTL (no request; past it, revalidated within a second), those that can be read; object names (also TYPE/NAME), namespaces (-n) and contexts (--context) are asked for with a one-second limit and nothing is shown on failure.',
    flags: [],
    minArgs: 1,
    maxArgs: 1,
    examples: [
      ['Load the kdyn completion code for bash into the current shell', 'source <(kdyn completion bash)'],
      ['Load the kdyn completion code for zsh into the current shell (compinit first)', 'autoload -Uz compinit && compinit; source <(kdyn completion zsh)'],
      ['Load the kdyn completion code for fish into the current shell', 'kdyn completion fish | source'],
    ],
    load: load(() => import('./commands/completion.js')),
  },
  {
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
    load: load(() => import('./commands/get.js')),
  },
  {
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
    load: load(() => import('./commands/watch.js')),
  },
  {
    name: 'types',
    group: 'Advanced Commands:',
    usage: 'types (TYPE[.VERSION][.GROUP] ... | --all [GROUP[/VERSION]...] | -f CRD-FILE) [--output-dir DIR] [flags]',
    summary: 'Generate TypeScript declarations for resource types from the server\'s OpenAPI v3 (or from CRD files)',
    description:
      'Generate TypeScript declarations for resource types, from the OpenAPI v3 document the server publishes for the version each name resolves to ' +
      '(built-in and custom resources alike; several types as separate arguments or a comma list, as get takes them), or from CustomResourceDefinition manifests with -f (no server). Each kind is an interface named after it, ' +
      'with apiVersion and kind as literal types, metadata as kdyn\'s ObjectMeta, JSDoc from the descriptions, required fields, enums as unions, ' +
      'int-or-string as number | string, preserved unknown fields as open records, and nested named types. The output is deterministic. ' +
      'With --output-dir: one file per group-version and an index.ts exporting KindMap and kinds (typed handles for the library). ' +
      'OpenAPI documents are cached under the cache directory by the hash the server publishes: a warm run makes one request.',
    flags: [
      { name: 'all', type: 'boolean', describe: 'Every kind served in the named groups (GROUP or GROUP/VERSION, core for the core group; default: every group), in their preferred versions.' },
      { name: 'filename', short: 'f', type: 'array', describe: 'CRD manifest files (a file, a directory of .yaml/.yml/.json files, or - for stdin); every served version of each CRD; no server is contacted.' },
      { name: 'output-dir', type: 'string', describe: 'Write one .ts file per group-version and an index.ts here (created if missing) instead of printing one module.' },
      { name: 'import-from', type: 'string', default: 'kdyn', describe: 'The module ObjectMeta and TypedKind are imported from.' },
    ],
    minArgs: 0,
    examples: [
      ['Print the types of a custom resource, in the version the server serves', 'kdyn types crontabs'],
      ['Write every kind of two groups, one file per group-version, with an index', 'kdyn types --all apps stable.example.com --output-dir src/k8s'],
      ['Generate from a CRD file in CI, without a cluster', 'kdyn types -f config/crd/crontab.yaml > src/crontab.ts'],
    ],
    load: load(() => import('./commands/types.js')),
  },
  {
    name: 'version',
    usage: 'version [flags]',
    summary: 'Print the client and server version information',
    flags: [
      { name: 'client', type: 'boolean', describe: 'If true, shows client version only (no server required).' },
      { name: 'output', short: 'o', type: 'string', choices: ['json', 'yaml'], describe: "One of 'yaml' or 'json'." },
    ],
    maxArgs: 0,
    examples: [
      ['Print the client and server versions for the current context', 'kdyn version'],
      ['Print the client version only, as JSON', 'kdyn version --client -o json'],
    ],
    load: load(() => import('./commands/version.js')),
  },
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
}
