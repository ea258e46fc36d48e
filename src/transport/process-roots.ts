/**
 * Node's process-wide default TLS roots, and who owns them.
 *
 * Loading any CA into a Node SecureContext makes Node build its process-wide root store first (its
 * SetCACert compares the context's store with it): ~140 bundled roots parsed, 7-9 ms of CPU on Node
 * 22 and ~3-5 on 24, on every run, although kdyn never verifies against that store when the
 * kubeconfig has a CA. A process that owns its TLS defaults (the CLI; never a library user's program)
 * can say so with `ownProcessRoots()`: the first TLS context kdyn makes then sets Node's default CA
 * list to nothing (`tls.setDefaultCACertificates([])`), so that store is empty and costs nothing.
 * Every connection that relied on the default roots is then given them explicitly
 * (`defaultRootsOption()`): a kubeconfig without a CA, an https proxy. They are Node's bundled roots
 * plus those of the NODE_EXTRA_CA_CERTS file as Node read them at start, the set Go's verdict holds for a kubeconfig without a CA
 * (./server-verdict.ts), so what kdyn accepts is unchanged. Where Node was told to use another store
 * (--use-system-ca, --use-openssl-ca, NODE_USE_SYSTEM_CA=1), the default is left alone.
 *
 * This module loads no TLS code itself (the CLI calls `ownProcessRoots()` before it knows whether it
 * will connect at all); ./dial.ts hands it node:tls.
 */
type Tls = Pick<typeof import('node:tls'), 'setDefaultCACertificates' | 'getCACertificates' | 'rootCertificates'>;

let owned = false;
let state: 'untouched' | 'emptied' | 'kept' = 'untouched';

/** The CLI: this process's TLS defaults are kdyn's to set. */
export function ownProcessRoots(): void {
  owned = true;
}

const OTHER_STORES = new Set(['--use-system-ca', '--use-openssl-ca']);

/** Node options (or NODE_USE_SYSTEM_CA=1) that make its default roots something other than the bundled ones plus the extra file. */
function otherStoreAsked(execArgv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  return env.NODE_USE_SYSTEM_CA === '1' || [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => OTHER_STORES.has(a));
}

/**
 * Called by ./dial.ts before it makes a TLS context: empties Node's default CA list once, if the
 * process is owned and Node can. Returns whether the default roots must now be given explicitly.
 */
export function releaseProcessRoots(tls: Tls): boolean {
  if (state === 'untouched') {
    const can = owned && typeof tls.setDefaultCACertificates === 'function' && typeof tls.getCACertificates === 'function' && !otherStoreAsked(process.execArgv, process.env);
    if (can) tls.setDefaultCACertificates([]);
    state = can ? 'emptied' : 'kept';
  }
  return state === 'emptied';
}

/** `{ ca }` with Node's default roots when the process default was emptied; `{}` (Node's default) otherwise. */
export function defaultRootsOption(tls: Tls): { ca?: string[] } {
  if (!releaseProcessRoots(tls)) return {};
  return { ca: [...tls.rootCertificates, ...tls.getCACertificates('extra')] };
}
