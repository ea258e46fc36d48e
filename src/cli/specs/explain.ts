/** `kdyn explain`: its flags, usage and help text (its run: ../commands/explain.ts, loaded when it runs). */
import type { CommandSpec } from '../command-types.js';

export const explainSpec: CommandSpec = {
  name: 'explain',
  group: 'Basic Commands (Intermediate):',
  usage: 'explain TYPE[.field.path] [--recursive] [--api-version=GROUP/VERSION] [flags]',
  summary: 'Get documentation for a resource',
  description:
    'Describe the fields and structure of a resource type, built-in or custom, from the OpenAPI v3 document the server publishes for its group-version, ' +
    'byte for byte as kubectl v1.32 explain prints it. Fields are named by a JSONPath-like identifier: TYPE.fieldName[.fieldName], ' +
    "e.g. pods.spec.containers (a field with dots in its name: pods.metadata.annotations['a.b']). The type is any name kubectl takes (pods, po, deployments.apps, crontabs.stable.example.com). " +
    'The index of documents is fetched on every run, as kubectl does; a document is read from the cache while the hash the server publishes for it is unchanged.',
  flags: [
    { name: 'recursive', type: 'boolean', describe: 'When true, print the name of all the fields recursively. Otherwise, print the available fields with their description.' },
    { name: 'api-version', type: 'string', describe: 'Use given api-version (group/version) of the resource.' },
    { name: 'output', short: 'o', type: 'string', default: 'plaintext', describe: 'Format in which to render the schema. Valid values are: (plaintext).' },
  ],
  minArgs: 0,
  examples: [
    ['Get the documentation of the resource and its fields', 'kdyn explain pods'],
    ['Get all the fields in the resource', 'kdyn explain pods --recursive'],
    ['Get the explanation for deployment in supported api versions', 'kdyn explain deployments --api-version=apps/v1'],
    ['Get the documentation of a specific field of a resource', 'kdyn explain pods.spec.containers'],
  ],
};
