/**
 * `kdyn diff` and `kubectl diff` output made comparable (the e2e and real-server tests): the temp dir
 * names, file times, the server-set fields of a dry-run create and klog's time and source, which
 * differ from run to run and tool to tool.
 */
export function normalizeDiff(s: string): string {
  return s
    .replace(/\/(LIVE|MERGED)-\d+\b/g, '/$1-N')
    .replace(/\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ [+-]\d{4}$/gm, '\tTIME')
    .replace(/^([+ -] *(?:- )?)(creationTimestamp|uid|resourceVersion|time): .*$/gm, '$1$2: X')
    .replace(/^W\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ [^\]]+\] /gm, 'W ');
}
