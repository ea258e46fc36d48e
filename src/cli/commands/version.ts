/**
 * `kdyn version`: kubectl's `version` (kubectl/pkg/cmd/version/version.go) without the Kustomize
 * line. The client part is printed even when the server cannot be reached; the error follows and
 * the exit code is 1, as kubectl does.
 */
import type { ParsedArgs } from '../command-types.js';
import type { Context } from '../context.js';
import type { IO } from '../../core/io.js';
import { KdynError } from '../../core/errors.js';
import { VERSION } from '../../core/version.js';

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit?: string;
  gitTreeState?: string;
  buildDate?: string;
  goVersion?: string;
  compiler?: string;
  platform?: string;
  [k: string]: unknown;
}

const GOARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };

/** kdyn's version in the shape of Kubernetes' version.Info (the same keys kubectl prints). */
export function clientVersionInfo(version: string = VERSION): VersionInfo {
  const [major = '0', minor = '0'] = version.replace(/^v/, '').split('.');
  return {
    major,
    minor,
    gitVersion: `v${version.replace(/^v/, '')}`,
    gitCommit: '',
    gitTreeState: '',
    buildDate: '',
    goVersion: '',
    compiler: `node ${process.version}`,
    platform: `${process.platform}/${GOARCH[process.arch] ?? process.arch}`,
  };
}

export async function run(args: ParsedArgs, ctx: Context, io: IO): Promise<number> {
  const output = args.flags.output as string | undefined;
  const clientOnly = args.flags.client === true;
  const clientVersion = clientVersionInfo();
  let serverVersion: VersionInfo | undefined;
  let serverError: unknown;
  if (!clientOnly) {
    try {
      serverVersion = await fetchServerVersion(ctx);
    } catch (e) {
      serverError = e;
    }
  }
  io.stdout.write(await render(output, clientVersion, serverVersion));
  if (serverError !== undefined) throw serverError;
  return 0;
}

async function fetchServerVersion(ctx: Context): Promise<VersionInfo> {
  const [transport, { ensureOk, jsonBody }] = await Promise.all([ctx.transport(), import('../../transport/status.js')]);
  // kubectl asks through its discovery client: the same 32 s limit, sent as `?timeout=32s`.
  const res = ensureOk(await transport.request({ path: '/version', headers: { Accept: 'application/json, */*' }, fallbackTimeoutMs: ctx.discoveryTimeoutMs }));
  const info = jsonBody<VersionInfo>(res);
  if (!info || typeof info !== 'object' || typeof info.gitVersion !== 'string') {
    throw new KdynError(`the server's answer to ${res.url} is not version information (no gitVersion)`);
  }
  return info;
}

async function render(output: string | undefined, clientVersion: VersionInfo, serverVersion: VersionInfo | undefined): Promise<string> {
  const doc: Record<string, unknown> = { clientVersion };
  if (serverVersion) doc.serverVersion = serverVersion;
  if (output === 'json') return `${JSON.stringify(doc, null, 2)}\n`;
  if (output === 'yaml') {
    const { dump } = await import('js-yaml');
    return `${dump(doc, { sortKeys: true, lineWidth: -1, quoteStyle: 'double' })}\n`;
  }
  let text = `Client Version: ${clientVersion.gitVersion}\n`;
  if (serverVersion) text += `Server Version: ${serverVersion.gitVersion}\n`;
  return text;
}
