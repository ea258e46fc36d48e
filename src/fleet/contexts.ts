/**
 * The kubeconfig's contexts, and which of them a selection means (issue 24): the merged kubeconfig
 * read as kubectl reads it (../kubeconfig/merge.ts), the selection as ./select.ts parses it.
 */
import { ConfigError } from '../core/errors.js';
import { loadMerged, selectFiles } from '../kubeconfig/merge.js';
import type { MergedKubeconfig } from '../kubeconfig/types.js';
import { parseContextSelector, selectContexts } from './select.js';

export interface KubeconfigContexts {
  /** Every context name of the merged kubeconfig, in file order. */
  names: string[];
  /** The kubeconfig files, for messages (`kubeconfig "a:b"`). */
  where: string;
  currentContext?: string;
  /** The merged kubeconfig itself: handed to each context's connection, so the files are read once. */
  merged: MergedKubeconfig;
}

/** The contexts of the merged kubeconfig (`--kubeconfig`, else $KUBECONFIG, else ~/.kube/config). */
export async function listContexts(o: { kubeconfig?: string; env: Record<string, string | undefined>; cwd: string }): Promise<KubeconfigContexts> {
  const sel = selectFiles(o.kubeconfig || undefined, o.env, o.cwd, o.env.HOME || o.env.USERPROFILE || undefined);
  const merged = await loadMerged(sel);
  const where = merged.files.length ? `kubeconfig "${merged.files.map((f) => sel.shown.get(f) ?? f).join(':')}"` : 'the kubeconfig (no file loaded)';
  return { names: [...merged.contexts.keys()], where, currentContext: merged.currentContext, merged };
}

/**
 * The context names a selection means: `contexts` as `--context` reads it (a name, `a,b`, `prod-*`)
 * or a list of those, or `allContexts`. Errors name what matched nothing.
 */
export async function resolveContexts(o: { contexts?: string | readonly string[]; allContexts?: boolean; kubeconfig?: string; env: Record<string, string | undefined>; cwd: string }): Promise<string[]> {
  return chooseContexts(await listContexts(o), o);
}

/** The names a selection means among `available`'s contexts (resolveContexts, when the kubeconfig is already read). */
export function chooseContexts(available: KubeconfigContexts, o: { contexts?: string | readonly string[]; allContexts?: boolean }): string[] {
  const text = Array.isArray(o.contexts) ? o.contexts.join(',') : (o.contexts as string | undefined);
  const selector = parseContextSelector(text, o.allContexts === true);
  if (selector.kind === 'single') {
    const name = selector.name ?? available.currentContext;
    if (name === undefined) throw new ConfigError(`no context given and no current-context in ${available.where}`);
    return selectContexts({ kind: 'fleet', patterns: [name], all: false }, available.names, available.where);
  }
  return selectContexts(selector, available.names, available.where);
}

