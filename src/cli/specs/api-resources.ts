/** `kdyn api-resources`: its flags, usage and help text (its run: ../commands/api-resources.ts, loaded when it runs). */
import type { CommandSpec } from '../command-types.js';
import { FLEET_FLAGS } from './shared.js';

export const apiResourcesSpec: CommandSpec = {
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
};
