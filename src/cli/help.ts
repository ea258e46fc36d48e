import { COMMANDS, type CommandSpec } from './spec.js';
// Placeholder: replaced by the yargs-rendered help.
export async function renderHelp(spec?: CommandSpec): Promise<string> {
  if (spec) return `${spec.summary}\n\nUsage:\n  kdyn ${spec.usage}\n`;
  return `kdyn controls Kubernetes resources.\n\nCommands:\n${COMMANDS.map((c) => `  ${c.name.padEnd(15)}${c.summary}`).join('\n')}\n`;
}
