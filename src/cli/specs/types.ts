/** `kdyn types`: its flags, usage and help text (its run: ../commands/types.ts, loaded when it runs). */
import type { CommandSpec } from '../command-types.js';

export const typesSpec: CommandSpec = {
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
};
