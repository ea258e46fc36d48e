// A node:test reporter that prints nothing while the tests run and, at the end, every failed test
// with its file, its error and the first lines of its stack: CI shows the tail of the output, where
// TAP's own report of a failure may be hundreds of lines up. run-tests.mjs adds it beside TAP.
export default async function* failures(source) {
  const failed = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    const error = details?.error;
    // A suite fails when a test in it fails: list the tests, not their suites.
    if (error?.failureType === 'subtestsFailed') continue;
    const cause = error?.cause ?? error;
    const text = String(cause?.stack ?? cause?.message ?? cause ?? 'failed').split('\n').slice(0, 8).join('\n    ');
    failed.push(`not ok: ${name}\n  file: ${file ?? '?'}\n  duration: ${Math.round(details?.duration_ms ?? 0)} ms\n    ${text}\n`);
  }
  yield failed.length === 0 ? '\nrun-tests: no test failed\n' : `\nrun-tests: ${failed.length} failed:\n${failed.join('\n')}`;
}
