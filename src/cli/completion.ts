/**
 * Shell completion scripts for kdyn, generated from the declarative command table (./spec.ts).
 * The script is static: commands, flags and `-o` formats complete without running kdyn at all;
 * only resource types (`kdyn get <TAB>`) run `kdyn api-resources --cached -o name`, which answers
 * from the discovery cache without a request. (yargs' own completion would start kdyn and yargs
 * on every TAB.) Pure: returns text.
 */
import { COMMANDS, GLOBAL_FLAGS, type FlagSpec } from './spec.js';

export const SHELLS = ['bash', 'zsh'] as const;
export type Shell = (typeof SHELLS)[number];

const OUTPUT_FORMATS = ['json', 'yaml', 'name', 'wide', 'jsonl', 'jsonpath=', 'jsonpath-file=', 'custom-columns=', 'custom-columns-file='];

function flagWords(flags: readonly FlagSpec[]): string[] {
  const out: string[] = [];
  for (const f of flags) {
    if (f.hidden) continue;
    out.push(f.name.length === 1 ? `-${f.name}` : `--${f.name}`);
    if (f.short && f.short !== f.name) out.push(`-${f.short}`);
  }
  return out;
}

/** Flags that take their value from the next word (`-n ns`), so that word is not the command. */
function valueFlags(flags: readonly FlagSpec[]): string[] {
  return flagWords(flags.filter((f) => f.type !== 'boolean'));
}

/** The completion script for `shell` (`source <(kdyn completion bash)`). */
export function completionScript(shell: Shell): string {
  const commands = COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
  const perCommand = COMMANDS.map((c) => {
    const names = [c.name, ...(c.aliases ?? [])].join('|');
    return `      ${names}) flags="${flagWords(c.flags).join(' ')}" ;;`;
  }).join('\n');
  const bash = `# kdyn ${shell} completion. Load it with: source <(kdyn completion ${shell})
_kdyn() {
  local cur prev cmd="" flags="" i w skip=0
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local global="${flagWords(GLOBAL_FLAGS).join(' ')}"
  local gvalue=" ${valueFlags(GLOBAL_FLAGS).join(' ')} "
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$w" in
      -*=*) ;;
      -*) [[ "$gvalue" == *" $w "* ]] && skip=1 ;;
      *) cmd="$w"; break ;;
    esac
  done
  case "$prev" in
    -o|--output) COMPREPLY=($(compgen -W "${OUTPUT_FORMATS.join(' ')}" -- "$cur")); compopt -o nospace 2>/dev/null; return ;;
    --kubeconfig|--certificate-authority|--client-certificate|--client-key|--cache-dir|-f|--filename)
      COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [[ -z "$cmd" ]]; then
    COMPREPLY=($(compgen -W "${commands.join(' ')} $global" -- "$cur"))
    return
  fi
  case "$cmd" in
${perCommand}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$flags $global" -- "$cur"))
    return
  fi
  case "$cmd" in
    get) COMPREPLY=($(compgen -W "$(kdyn api-resources --cached -o name 2>/dev/null)" -- "$cur")) ;;
    completion) COMPREPLY=($(compgen -W "${SHELLS.join(' ')}" -- "$cur")) ;;
  esac
}
complete -F _kdyn kdyn
`;
  if (shell === 'bash') return bash;
  return `#compdef kdyn\nautoload -U +X bashcompinit && bashcompinit\n${bash}`;
}
