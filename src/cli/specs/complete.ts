/** `kdyn __complete`: its flags, usage and help text (its run: ../commands/complete.ts, loaded when it runs). */
import type { CommandSpec } from '../command-types.js';

export const completeSpec: CommandSpec = {
  name: '__complete',
  hidden: true,
  usage: '__complete types | names TYPE | contexts | words -- WORD...',
  summary: 'Print completion candidates for the shell completion scripts (words: cobra\'s __complete, for kubectl\'s plugin completion)',
  flags: [],
  minArgs: 1,
  examples: [['Resource types from the discovery cache (no request)', 'kdyn __complete types']],
};
