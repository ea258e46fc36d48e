/** `kdyn version`: its flags, usage and help text (its run: ../commands/version.ts, loaded when it runs). */
import type { CommandSpec } from '../command-types.js';

export const versionSpec: CommandSpec = {
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
};
