/**
 * API version priority as kube-apiserver orders a group's versions (k8s.io/apimachinery
 * pkg/version/helpers.go, CompareKubeAwareVersionStrings): versions shaped `v<major>`,
 * `v<major>beta<minor>` or `v<major>alpha<minor>` come first, GA before beta before alpha, higher
 * major first, then higher minor; any other version string comes after them, in ascending
 * lexicographic order. Written for the server on its own (not shared with the client's copy), so a
 * mistake in either shows up as a test failure.
 */

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STABILITY: Record<string, number> = { '': 3, beta: 2, alpha: 1 };

interface Parsed {
  major: number;
  stability: number;
  minor: number;
}

function parse(v: string): Parsed | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  return { major: Number(m[1]), stability: STABILITY[m[2] ?? '']!, minor: m[3] === undefined ? 0 : Number(m[3]) };
}

/** Sort comparator: negative when `a` has the higher priority. */
export function byVersionPriority(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  if (pa && pb) {
    if (pa.stability !== pb.stability) return pb.stability - pa.stability;
    if (pa.major !== pb.major) return pb.major - pa.major;
    return pb.minor - pa.minor;
  }
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
