/**
 * The adversarial chains of the differential TLS test (issue 20), seeded: SAN entries of every type
 * whose text imitates another type (spaces, commas, quotes, colons, NUL bytes), certificates that
 * are no CA by Go's rules as anchors and as intermediates (CA:FALSE, no basicConstraints, version 1,
 * keyUsage without keyCertSign, keyCertSign without basicConstraints), pinned serving certificates
 * that sign others, CN-only leaves and SHA-1 signatures.
 */
import { issue, type CertSpec, type Issued } from './certs.js';

export interface DiffCase {
  id: string;
  text: string;
  chainPem: string;
  keyPem: string;
  caPem: string;
  host: '127.0.0.1' | 'localhost';
  serverName?: string;
  /** Why OpenSSL is known to be stricter than Go here (docs/kubectl-differences.md): kdyn may refuse what kubectl accepts; undefined: it must not. */
  opensslDiffers?: string;
}

type Random = () => number;
type AltName = NonNullable<CertSpec['altNames']>[number];

/** Texts that imitate a DNS or IP entry: `{h}` is the wanted host name, `{ip}` 127.0.0.1. */
const IMITATIONS = [
  'DNS:{h}',
  'IP Address:{ip}',
  'x, DNS:{h}',
  'a", IP Address:{ip}, "',
  ' DNS:{h} ',
  '{h}\0.attacker.example',
  'DNS:{h}, IP Address:{ip}',
  '"{h}"',
  '{h}:443',
  'IP Address:{ip}\0',
];
const OTHER_NAMES = ['attacker.example', 'kube.example', '*.kube.example', '10.1.2.3', '::1'];
const SERVER_NAMES = ['kube.example', 'api.kube.example', 'localhost'];
const SIGNER_KINDS = ['ca', 'ca-false', 'no-bc', 'v1-self-signed', 'v1-signed', 'ku-no-certsign', 'certsign-no-bc', 'pinned-leaf'] as const;
type SignerKind = (typeof SIGNER_KINDS)[number];

function pickFrom(r: Random) {
  return <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
}

/** A signing certificate of the given kind (issued by `parent`, or self-signed). */
function signer(kind: SignerKind, cn: string, parent: Issued | undefined): Issued {
  const base: CertSpec = { cn, ...(parent ? { issuer: parent } : {}), eku: 'none' };
  switch (kind) {
    case 'ca':
      return issue({ ...base, ca: true });
    case 'ca-false':
      return issue({ ...base, ca: false, ku: 'none' });
    case 'no-bc':
      return issue({ ...base, noBasicConstraints: true, ku: 'none' });
    case 'v1-self-signed':
      return issue({ cn, v1: true });
    case 'v1-signed':
      return issue({ ...base, v1: true });
    case 'ku-no-certsign':
      return issue({ ...base, ca: true, ku: 'digitalSignature' });
    case 'certsign-no-bc':
      return issue({ ...base, noBasicConstraints: true, ku: 'ca' });
    case 'pinned-leaf':
      return issue({ cn, san: ['127.0.0.1', 'localhost'] });
  }
}

export function adversarialCases(n: number, r: Random): DiffCase[] {
  const pick = pickFrom(r);
  const chance = (p: number) => r() < p;
  const cases: DiffCase[] = [];
  for (let i = 0; i < n; i++) {
    const id = `adv-${i}`;
    const host = chance(0.5) ? '127.0.0.1' : 'localhost';
    const serverName = chance(0.2) ? pick(SERVER_NAMES) : undefined;
    const wanted = serverName ?? host;
    const ip = '127.0.0.1';
    const desc: string[] = [];
    const root = issue({ cn: `adv-root-${i}`, ca: true });
    const kind = r();
    let chain: Issued[] = [];
    let caPem = root.pem;
    let leafIssuer = root;
    let opensslDiffers: string | undefined;
    const leafSpec: CertSpec = { cn: pick(['srv', wanted, 'localhost']), issuer: root };

    if (kind < 0.45) {
      // Names: real entries, maybe the wanted one, and imitations of it in other types.
      const altNames: AltName[] = [];
      if (chance(0.5)) altNames.push(/^[\d.]+$/.test(wanted) ? { type: 'IP', value: wanted } : { type: 'DNS', value: wanted });
      for (let k = 0; k < 1 + Math.floor(r() * 2); k++) {
        const other = pick(OTHER_NAMES);
        altNames.push(/^[\d.:]+$/.test(other) ? { type: 'IP', value: other } : { type: 'DNS', value: other });
      }
      for (let k = 0; k < 1 + Math.floor(r() * 3); k++) {
        const text = pick(IMITATIONS).replace('{h}', wanted).replace('{ip}', ip);
        const type = pick(['email', 'URI', 'dirName', 'DNS'] as const);
        altNames.splice(Math.floor(r() * (altNames.length + 1)), 0, { type, value: type === 'URI' ? `https://attacker.example/${text}` : text });
      }
      if (chance(0.5)) altNames.sort(() => r() - 0.5);
      leafSpec.altNames = altNames;
      if (chance(0.3)) {
        const constrained = chance(0.5);
        const permitted = ['DNS:attacker.example', 'DNS:kube.example', 'DNS:localhost', 'IP:127.0.0.0/8', 'IP:10.0.0.0/8'];
        const inter = issue({ cn: `adv-int-${i}`, issuer: root, ca: true, ...(constrained ? { permitted } : {}) });
        chain = [inter];
        leafIssuer = inter;
        desc.push(constrained ? 'name-constrained intermediate' : 'intermediate');
      }
      desc.push(`SAN ${JSON.stringify(altNames)}`);
    } else if (kind < 0.85) {
      // Signers that are no CA by Go's rules, as the anchor, as an intermediate, or above one.
      const sk = pick(SIGNER_KINDS);
      // Not a version 1 anchor above an intermediate: OpenSSL refuses it where Go takes it (docs/security.md).
      const where = pick(sk === 'v1-signed' ? (['anchor', 'intermediate'] as const) : (['anchor', 'anchor', 'intermediate', 'anchor-above-intermediate'] as const));
      const parent = sk === 'v1-signed' || where === 'intermediate' ? root : undefined;
      const s = signer(sk, `adv-${sk}-${i}`, parent);
      if (where === 'anchor') {
        leafIssuer = s;
        caPem = chance(0.3) ? root.pem + s.pem : s.pem;
      } else if (where === 'intermediate') {
        leafIssuer = s;
        chain = [s];
      } else {
        const inter = issue({ cn: `adv-int-${i}`, issuer: s, ca: true });
        leafIssuer = inter;
        chain = [inter];
        caPem = s.pem;
      }
      // Go takes a version 1 certificate of the bundle as an anchor; OpenSSL only a self-signed one.
      if (sk === 'v1-signed' && where !== 'intermediate') opensslDiffers = 'a version 1 anchor that is not self-signed';
      leafSpec.san = [wanted, ...(chance(0.3) ? ['kube.example'] : [])];
      desc.push(`${sk} as ${where}; bundle ${caPem === s.pem ? 'that certificate' : 'root + that certificate'}`);
    } else {
      // CN-only leaves and SHA-1 signatures.
      if (chance(0.5)) {
        leafSpec.cn = pick([wanted, 'other.example', '127.0.0.1']);
        desc.push(`no SAN, CN ${leafSpec.cn}`);
      } else {
        leafSpec.san = [wanted];
        const where = pick(['leaf', 'intermediate', 'root'] as const);
        if (where === 'leaf') leafSpec.sha1 = true;
        if (where === 'intermediate') {
          const inter = issue({ cn: `adv-int-${i}`, issuer: root, ca: true, sha1: true });
          chain = [inter];
          leafIssuer = inter;
        }
        if (where === 'root') {
          const sha1Root = issue({ cn: `adv-sha1-root-${i}`, ca: true, sha1: true });
          leafIssuer = sha1Root;
          caPem = sha1Root.pem;
        }
        desc.push(`SHA-1 signature on the ${where}`);
      }
    }
    const leaf = issue({ ...leafSpec, issuer: leafIssuer });
    desc.push(`server ${host}${serverName ? ` tls-server-name ${serverName}` : ''}`);
    cases.push({ id, text: desc.join('\n    '), chainPem: [leaf.pem, ...chain.map((c) => c.pem)].join(''), keyPem: leaf.keyPem, caPem, host, serverName, opensslDiffers });
  }
  return cases;
}
