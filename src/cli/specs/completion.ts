/** `kdyn completion`: its flags, usage and help text (its run: ../commands/completion.ts, loaded when it runs). */
import type { CommandSpec } from '../command-types.js';

export const completionSpec: CommandSpec = {
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
};
