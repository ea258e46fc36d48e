/**
 * Reliability suite 1, bad input (issue 13): every case through the built CLI against the local API
 * server; checked by ./harness.ts (exit code, one-line error naming the file, document and position
 * where there is one, no stack trace, zero write requests, kubectl's message where it has one).
 */
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { badInputSuite, startRelEnv, type BadCase, type RelEnv } from './harness.js';
import { repoRoot } from '../support/cli.js';

let env: RelEnv;
before(async () => {
  assert.ok(existsSync(join(repoRoot(), 'dist/cli/bin.js')), 'the CLI is built (node scripts/build.mjs)');
  env = await startRelEnv();
  // Warm the shared discovery cache once, so the cases do not all fetch it at the same time.
  const warm = await env.kdyn(['api-resources', '-o', 'name']);
  assert.equal(warm.code, 0, warm.err);
});
after(() => env.stop());
const getEnv = () => env;

const HINT = (cmd: string) => ` \\(see 'kdyn ${cmd}--help'\\)$`;
/** A usage error's message with kdyn's hint. */
const usage = (cmd: string, message: string) => new RegExp(`^error: ${escape(message)}${HINT(cmd)}`);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// ---- get: types, arguments and flag values ----
const getCases: BadCase[] = [
  { name: 'unknown resource type', args: ['get', 'podz'], code: 1, err: 'error: the server doesn\'t have a resource type "podz". Did you mean "pods"?', kubectl: /error: the server doesn't have a resource type "podz"/ },
  { name: 'unknown type with a group', args: ['get', 'widgets.nowhere.example.com'], code: 1, err: 'error: the server doesn\'t have a resource type "widgets"', kubectl: 'same' },
  { name: 'unknown type in a comma list', args: ['get', 'pods,nopes', '-n', 'demo'], code: 1, err: 'error: the server doesn\'t have a resource type "nopes". Did you mean "nodes"?', kubectl: /error: the server doesn't have a resource type "nopes"/ },
  { name: 'empty type after a comma', args: ['get', 'pods,'], code: 1, err: 'error: the server doesn\'t have a resource type ""', kubectl: 'same' },
  { name: 'unknown TYPE/NAME type', args: ['get', 'nope/x'], code: 1, err: 'error: the server doesn\'t have a resource type "nope". Did you mean "nodes"?', kubectl: /error: the server doesn't have a resource type "nope"/ },
  { name: 'no type at all', args: ['get'], code: 2, err: usage('get ', 'Required resource not specified. Use "kdyn api-resources" for a complete list of supported resources.'), kubectl: /error: Required resource not specified\./ },
  { name: 'TYPE/ without a name', args: ['get', 'pods/'], code: 2, err: usage('get ', 'arguments in resource/name form must have a single resource and name'), kubectl: 'same' },
  { name: 'TYPE/NAME then a bare type', args: ['get', 'pods/x', 'nodes'], code: 2, err: /^error: there is no need to specify a resource type as a separate argument when passing arguments in resource\/name form/, kubectl: 'same' },
  { name: 'a name with a slash after a type', args: ['get', 'configmaps', 'a/b', '-n', 'demo'], code: 2, err: /^error: there is no need to specify a resource type as a separate argument/, kubectl: 'same' },
  { name: 'a name across all namespaces', args: ['get', 'pods', 'x', '-A'], code: 1, err: 'error: a resource cannot be retrieved by name across all namespaces', kubectl: 'same' },
  { name: 'a name with a selector', args: ['get', 'pods', 'x', '-l', 'a=b'], code: 1, err: 'error: name cannot be provided when a selector is specified', kubectl: 'same' },
  { name: 'a missing object', args: ['get', 'configmap', 'no-such', '-n', 'demo'], code: 1, err: 'Error from server (NotFound): configmaps "no-such" not found', kubectl: 'same' },
  { name: 'unknown command', args: ['frobnicate'], code: 2, err: usage('', 'unknown command "frobnicate" for "kdyn"'), kubectl: 'same' },
  { name: 'unknown flag', args: ['get', 'pods', '--bogus'], code: 2, err: usage('get ', 'unknown flag: --bogus'), kubectl: 'same' },
  { name: 'unknown short flag', args: ['get', 'pods', '-Z'], code: 2, err: usage('get ', 'unknown shorthand flag: \'Z\' in -Z'), kubectl: 'same' },
  { name: '-o nonsense', args: ['get', 'pods', '-o', 'nonsense'], code: 2, err: /^error: unable to match a printer suitable for the output format "nonsense", allowed formats are: custom-columns,.*\(see 'kdyn get --help'\)$/, kubectl: /unable to match a printer suitable for the output format "nonsense"/ },
  { name: '-o with no value', args: ['get', 'pods', '-o'], code: 2, err: usage('get ', 'flag needs an argument: -o'), kubectl: /flag needs an argument: 'o' in -o/ },
  { name: '--chunk-size -1', args: ['get', 'pods', '--chunk-size', '-1'], code: 2, err: usage('get ', 'invalid argument "-1" for "--chunk-size" flag: must be a non-negative integer'), kubectl: /limit: Invalid value: "-1": must be a non-negative integer/ },
  { name: '--chunk-size abc', args: ['get', 'pods', '--chunk-size', 'abc'], code: 2, err: usage('get ', 'invalid argument "abc" for "--chunk-size" flag: strconv.ParseInt: parsing "abc": invalid syntax'), kubectl: 'same' },
  { name: '--chunk-size 1.5', args: ['get', 'pods', '--chunk-size=1.5'], code: 2, err: usage('get ', 'invalid argument "1.5" for "--chunk-size" flag: strconv.ParseInt: parsing "1.5": invalid syntax'), kubectl: 'same' },
  { name: '--request-timeout abc', args: ['get', 'pods', '--request-timeout', 'abc'], code: 2, err: usage('get ', 'invalid argument "abc" for "--request-timeout" flag: time: invalid duration "abc"'), kubectl: /Invalid timeout value/ },
  { name: '--request-timeout -1s', args: ['get', 'pods', '--request-timeout=-1s'], code: 2, err: usage('get ', 'invalid argument "-1s" for "--request-timeout" flag: time: invalid duration "-1s"') },
  { name: '--cache-ttl abc', args: ['get', 'pods', '--cache-ttl', 'abc'], code: 2, err: usage('get ', 'invalid argument "abc" for "--cache-ttl" flag: time: invalid duration "abc"') },
  { name: '-n with no value', args: ['get', 'pods', '-n'], code: 2, err: usage('get ', 'flag needs an argument: -n'), kubectl: /flag needs an argument: 'n' in -n/ },
  { name: '-l with no value', args: ['get', 'pods', '-l'], code: 2, err: usage('get ', 'flag needs an argument: -l'), kubectl: /flag needs an argument: 'l' in -l/ },
  { name: '-L with no value', args: ['get', 'pods', '-L'], code: 2, err: usage('get ', 'flag needs an argument: -L'), kubectl: /flag needs an argument: 'L' in -L/ },
  { name: '-v=abc', args: ['get', 'pods', '-v=abc'], code: 2, err: usage('get ', 'invalid argument "abc" for "--v" flag: strconv.ParseInt: parsing "abc": invalid syntax'), kubectl: /invalid argument "abc" for "-v, --v" flag: strconv.ParseInt: parsing "abc": invalid syntax/ },
  { name: '--show-kind=maybe', args: ['get', 'pods', '--show-kind=maybe'], code: 2, err: usage('get ', 'invalid argument "maybe" for "--show-kind" flag: strconv.ParseBool: parsing "maybe": invalid syntax'), kubectl: 'same' },
  { name: 'a label selector that does not parse', args: ['get', 'configmaps', '-n', 'demo', '-l', 'a=b=c'], code: 1, err: /^Error from server \(BadRequest\): Unable to find "\/v1, Resource=configmaps" that match label selector "a=b=c", field selector "": unable to parse requirement: /, kubectl: 'same' },
  { name: 'a field selector that does not parse', args: ['get', 'configmaps', '-n', 'demo', '--field-selector', 'foo'], code: 1, err: 'Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match label selector "", field selector "foo": invalid selector: \'foo\'; can\'t understand \'foo\'', kubectl: 'same' },
  { name: '--sort-by that does not parse', args: ['get', 'configmaps', '-n', 'demo', '--sort-by={.a', '-o', 'name'], code: 2, err: usage('get ', 'unexpected path string, expected a \'name1.name2\' or \'.name1.name2\' or \'{name1.name2}\' or \'{.name1.name2}\''), kubectl: 'same' },
  { name: '--sort-by on a field no object has', args: ['get', 'configmaps', '-n', 'demo', '--sort-by=.nope', '-o', 'name'], code: 1, err: 'error: couldn\'t find any field with path "{.nope}" in the list of objects', kubectl: 'same' },
];

// ---- get: -o jsonpath / custom-columns templates and template files ----
const templateCases: BadCase[] = [
  { name: 'jsonpath: unterminated array', args: ['get', 'pods', '-o', 'jsonpath={.items['], code: 2, err: usage('get ', 'error parsing jsonpath {.items[, unterminated array'), kubectl: 'same' },
  { name: 'jsonpath: unclosed action', args: ['get', 'pods', '-o', 'jsonpath={.a}{'], code: 2, err: usage('get ', 'error parsing jsonpath {.a}{, unclosed action'), kubectl: 'same' },
  { name: 'jsonpath: unclosed action at the end', args: ['get', 'pods', '-o=jsonpath={.items[0].metadata.name'], code: 2, err: usage('get ', 'error parsing jsonpath {.items[0].metadata.name, unclosed action'), kubectl: 'same' },
  { name: 'jsonpath: bad filter', args: ['get', 'pods', '-o', 'jsonpath={.items[?(@.x==)]}'], code: 2, err: usage('get ', 'error parsing jsonpath {.items[?(@.x==)]}, unrecognized character in action: U+003D \'=\''), kubectl: 'same' },
  { name: 'jsonpath: no template', args: ['get', 'pods', '-o', 'jsonpath='], code: 2, err: usage('get ', 'template format specified but no template given'), kubectl: 'same' },
  { name: 'jsonpath: {end} outside a range', args: ['get', 'pods', '-o', 'jsonpath={end}'], code: 1, err: 'error: error executing jsonpath "{end}": Error executing template: not in range, nothing to end', kubectl: 'same' },
  { name: 'jsonpath-file missing', args: ['get', 'pods', '-o', 'jsonpath-file=nope.txt'], code: 1, err: 'error: error reading jsonpath-file "nope.txt": open nope.txt: no such file or directory', kubectl: /open nope\.txt: no such file or directory/ },
  { name: 'jsonpath-file is a directory', args: ['get', 'pods', '-o', 'jsonpath-file=d'], files: { 'd/x': '' }, code: 1, err: 'error: error reading jsonpath-file "d": read d: is a directory', kubectl: /read d: is a directory/ },
  { name: 'jsonpath-file with a bad template', args: ['get', 'pods', '-o', 'jsonpath-file=t.txt'], files: { 't.txt': '{.items[' }, code: 2, err: usage('get ', 'error parsing jsonpath {.items[, unterminated array'), kubectl: 'same' },
  { name: 'jsonpath-file with no file', args: ['get', 'pods', '-o', 'jsonpath-file='], code: 2, err: usage('get ', 'template format specified but no template file given') },
  { name: 'custom-columns: no columns', args: ['get', 'pods', '-o', 'custom-columns='], code: 2, err: usage('get ', 'custom-columns format specified but no custom columns given'), kubectl: 'same' },
  { name: 'custom-columns: a column without a path', args: ['get', 'pods', '-o', 'custom-columns=NAME'], code: 2, err: usage('get ', 'unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>'), kubectl: 'same' },
  { name: 'custom-columns: the second column without a path', args: ['get', 'pods', '-o', 'custom-columns=NAME:.metadata.name,AGE'], code: 2, err: usage('get ', 'unexpected custom-columns spec: AGE, expected <header>:<json-path-expr>'), kubectl: 'same' },
  { name: 'custom-columns: a path that does not parse', args: ['get', 'pods', '-o', 'custom-columns=A:{.x'], code: 2, err: usage('get ', 'unexpected path string, expected a \'name1.name2\' or \'.name1.name2\' or \'{name1.name2}\' or \'{.name1.name2}\''), kubectl: 'same' },
  { name: 'custom-columns: an unterminated array', args: ['get', 'pods', '-o', 'custom-columns=A:.x['], code: 2, err: usage('get ', 'unterminated array'), kubectl: 'same' },
  { name: 'custom-columns-file missing', args: ['get', 'pods', '-o', 'custom-columns-file=nope.txt'], code: 1, err: 'error: error reading custom-columns-file "nope.txt": open nope.txt: no such file or directory', kubectl: /open nope\.txt: no such file or directory/ },
  { name: 'custom-columns-file: one line only', args: ['get', 'pods', '-o', 'custom-columns-file=c.txt'], files: { 'c.txt': 'NAME AGE\n' }, code: 2, err: usage('get ', 'invalid template, missing spec line. Expected format is one line of space separated headers, one line of space separated column specs.'), kubectl: 'same' },
  { name: 'custom-columns-file: header and path counts differ', args: ['get', 'pods', '-o', 'custom-columns-file=c.txt'], files: { 'c.txt': 'NAME AGE\n.metadata.name\n' }, code: 2, err: usage('get ', 'number of headers (2) and field specifications (1) don\'t match'), kubectl: 'same' },
];

// ---- api-resources and version ----
const otherCommandCases: BadCase[] = [
  { name: 'api-resources -o foo', args: ['api-resources', '-o', 'foo'], code: 2, err: usage('api-resources ', '--output foo is not available'), kubectl: 'same' },
  { name: 'api-resources --sort-by=foo', args: ['api-resources', '--sort-by=foo'], code: 2, err: usage('api-resources ', 'invalid argument "foo" for "--sort-by" flag: must be one of: name, kind'), kubectl: /--sort-by accepts only name or kind/ },
  { name: 'api-resources with an argument', args: ['api-resources', 'pods'], code: 2, err: /^error: unknown command "pods" for "kdyn api-resources"/, kubectl: /unexpected arguments: \[pods\]/ },
  { name: 'api-resources --namespaced=maybe', args: ['api-resources', '--namespaced=maybe'], code: 2, err: usage('api-resources ', 'invalid argument "maybe" for "--namespaced" flag: strconv.ParseBool: parsing "maybe": invalid syntax'), kubectl: 'same' },
  { name: 'api-resources unknown flag', args: ['api-resources', '--bogus'], code: 2, err: usage('api-resources ', 'unknown flag: --bogus'), kubectl: 'same' },
  { name: 'version -o xml', args: ['version', '-o', 'xml'], code: 2, err: usage('version ', 'invalid argument "xml" for "--output" flag: must be one of: json, yaml'), kubectl: /--output must be 'yaml' or 'json'/ },
  { name: 'version --output with no value', args: ['version', '--client', '--output'], code: 2, err: usage('version ', 'flag needs an argument: --output'), kubectl: 'same' },
  { name: 'version with an argument', args: ['version', 'foo'], code: 2, err: /^error: unknown command "foo" for "kdyn version"/, kubectl: /extra arguments: \[foo\]/ },
];

// ---- kubeconfig faults ----
const kc = (body: string) => ['apiVersion: v1', 'kind: Config', 'current-context: c', body].join('\n');
const ctx = (cluster: string, user: string) => `contexts:\n- name: c\n  context: {cluster: ${cluster}, user: ${user}}\n`;
const clusterAt = (server: string) => `clusters:\n- name: local\n  cluster:\n    server: ${server}\n    insecure-skip-tls-verify: true\n`;
const userWith = (user: string) => `users:\n- name: u\n  user: ${user}\n`;
const withKc = (...more: string[]) => (d: string) => ['get', 'pods', '--kubeconfig', join(d, 'k'), ...more];
const kubeconfigCases: BadCase[] = [
  { name: 'kubeconfig missing', args: ['get', 'pods', '--kubeconfig', 'nope.yaml'], code: 1, err: 'error: stat nope.yaml: no such file or directory', kubectl: 'same' },
  { name: 'kubeconfig empty (kubectl\'s localhost:8080 default)', args: ['version', '--kubeconfig', 'k'], files: { k: '' }, code: 1, out: 'Client Version: v0.1.0\n', err: 'The connection to the server localhost:8080 was refused - did you specify the right host or port?', kubectl: 'same' },
  { name: 'kubeconfig not YAML', args: ['get', 'pods', '--kubeconfig', 'k'], files: { k: 'clusters: [\n  - name: x\n    cluster: {server: https://x\n' }, code: 1, err: /^error: error loading config file "k": yaml: line \d+: /, kubectl: /error loading config file "k": yaml: line \d+: / },
  { name: 'kubeconfig a YAML list', args: ['get', 'pods', '--kubeconfig', 'k'], files: { k: '- a\n- b\n' }, code: 1, err: /^error: error loading config file "k": /, kubectl: /error loading config file "k": / },
  { name: 'kubeconfig binary', args: ['get', 'pods', '--kubeconfig', 'k'], files: { k: Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80]) }, code: 1, err: /^error: error loading config file "k": yaml: /, kubectl: /error loading config file "k": yaml: / },
  { name: 'kubeconfig a directory', args: ['get', 'pods', '--kubeconfig', 'k'], files: { 'k/x': '' }, code: 1, err: 'error: error loading config file "k": read k: is a directory', kubectl: 'same' },
  { name: 'KUBECONFIG with a bad file among missing ones', args: ['get', 'pods'], env: (d) => ({ KUBECONFIG: `${join(d, 'missing')}:${join(d, 'k')}` }), files: { k: 'clusters: {{{\n' }, code: 1, err: /^error: error loading config file ".*\/k": yaml: line \d+: /, kubectl: /error loading config file ".*\/k": yaml: line \d+: / },
  { name: 'current-context names no context', args: ['get', 'pods', '--kubeconfig', 'k'], files: { k: kc('') }, code: 1, err: /^error: context "c" does not exist in kubeconfig ".*\/k"$/, kubectl: /context was not found for specified context: c/ },
  { name: '--context unknown', args: ['get', 'pods', '--context', 'nope'], code: 1, err: /^error: context "nope" does not exist in kubeconfig ".*kubeconfig"$/, kubectl: /context was not found for specified context: nope/ },
  { name: '--cluster unknown', args: ['get', 'pods', '--cluster', 'nope'], code: 1, err: /^error: cluster "nope" does not exist in kubeconfig ".*kubeconfig"$/, kubectl: /no server found for cluster "nope"/ },
  { name: '--user unknown', args: ['get', 'pods', '--user', 'nope'], code: 1, err: /^error: auth info "nope" does not exist in kubeconfig ".*kubeconfig"$/, kubectl: /auth info "nope" does not exist/ },
  { name: 'context names a missing cluster', args: withKc(), files: (e) => ({ k: kc(clusterAt(e.server.url) + userWith('{}') + ctx('ghost', 'u')) }), code: 1, err: /^error: context "c" in ".*\/k" refers to cluster "ghost", which does not exist in kubeconfig ".*\/k"$/ },
  { name: 'context names a missing user', args: withKc(), files: (e) => ({ k: kc(clusterAt(e.server.url) + userWith('{}') + ctx('local', 'ghost')) }), code: 1, err: /^error: context "c" in ".*\/k" refers to user "ghost", which does not exist in kubeconfig ".*\/k"$/ },
  { name: 'server on a closed port', args: withKc(), files: () => ({ k: kc(clusterAt('https://127.0.0.1:1') + userWith('{token: t}') + ctx('local', 'u')) }), code: 1, err: /^The connection to the server 127\.0\.0\.1:1 was refused - did you specify the right host or port\?$/, kubectl: 'same' },
  { name: 'server URL that does not parse', args: withKc(), files: { k: kc(clusterAt('"http://[::1"') + userWith('{}') + ctx('local', 'u')) }, code: 1, err: 'error: host must be a URL or a host:port pair: "http://[::1"', kubectl: 'same' },
  { name: 'token file missing', args: withKc(), files: (e) => ({ k: kc(clusterAt(e.server.url) + userWith('{tokenFile: /nonexistent/token}') + ctx('local', 'u')) }), code: 1, err: /^error: .*open \/nonexistent\/token: no such file or directory$/, kubectl: /open \/nonexistent\/token: no such file or directory/ },
  { name: 'client certificate file missing', args: withKc(), files: (e) => ({ k: kc(clusterAt(e.server.url) + userWith('{client-certificate: /nonexistent/c.pem, client-key: /nonexistent/k.pem}') + ctx('local', 'u')) }), code: 1, err: /^error: unable to read client-cert \/nonexistent\/c\.pem for u due to open \/nonexistent\/c\.pem: no such file or directory$/, kubectl: 'same' },
  { name: 'certificate-authority-data not base64', args: withKc(), files: (e) => ({ k: kc(`clusters:\n- name: local\n  cluster:\n    server: ${e.server.url}\n    certificate-authority-data: "!!!not base64"\n` + userWith('{}') + ctx('local', 'u')) }), code: 1, err: /^error: .*certificate-authority-data.*/ },
  { name: 'exec plugin that does not exist', args: withKc(), files: (e) => ({ k: kc(clusterAt(e.server.url) + userWith('{exec: {apiVersion: client.authentication.k8s.io/v1, command: /nonexistent/plugin, interactiveMode: Never}}') + ctx('local', 'u')) }), code: 1, err: /^error: getting credentials: exec: .*\/nonexistent\/plugin.*(no such file or directory|not found)/, kubectl: /getting credentials: exec: .*\/nonexistent\/plugin/ },
  { name: 'exec plugin that prints garbage', args: withKc(), files: (e) => ({ k: kc(clusterAt(e.server.url) + userWith(`{exec: {apiVersion: client.authentication.k8s.io/v1, command: ${process.execPath}, args: ["-e", "console.log('not json')"], interactiveMode: Never}}`) + ctx('local', 'u')) }), code: 1, err: /^error: getting credentials: /, kubectl: /getting credentials: / },
];

// ---- apply: manifests ----
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`;
const cmJson = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });
const BAD_YAML = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n data: x: y\n';
const BAD_JSON = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad"},}';
/** `apply -f FILE -n <the case's namespace>`: a write that slips through is this case's. */
const applyF = (file: string, ...more: string[]) => (_d: string, ns: string) => ['apply', '-f', file, '-n', ns, ...more];
const kubectlApply = (file: string, ...more: string[]) => (_d: string, ns: string) => ['apply', '-f', file, '-n', ns, '--dry-run=client', ...more];
/** apply of `m` (a file holding `content`) with kubectl compared in client dry-run mode. */
const applyCase = (name: string, content: string | Buffer, err: BadCase['err'], more: Partial<BadCase> = {}): BadCase => ({
  name,
  args: applyF('m'),
  files: { m: content },
  code: 1,
  err,
  kubectlArgs: kubectlApply('m'),
  ...more,
});
const at = (file: string, line: number | string, col: number | string, what: string) => new RegExp(`^error: error parsing "${file}" \\(line ${line}, column ${col}\\): ${what}`);
const docError = (file: string, doc: number, what: string) => new RegExp(`^error: error validating "${file}" document ${doc}: ${what}`);
const applyCases: BadCase[] = [
  applyCase('YAML syntax error in the first document', `${BAD_YAML}---\n${cm('b')}---\n${cm('c')}`, at('m', 5, 2, 'bad indentation of a mapping entry'), { kubectl: /error parsing m: error converting YAML to JSON: yaml: line \d+/ }),
  applyCase('YAML syntax error in the middle document', `${cm('a')}---\n${BAD_YAML}---\n${cm('c')}`, at('m', 12, 2, 'bad indentation of a mapping entry'), { kubectl: /error parsing m: error converting YAML to JSON: yaml: line \d+/ }),
  applyCase('YAML syntax error in the last document', `${cm('a')}---\n${cm('b')}---\n${BAD_YAML}`, at('m', 19, 2, 'bad indentation of a mapping entry'), { kubectl: /error parsing m: error converting YAML to JSON: yaml: line \d+/ }),
  applyCase('JSON syntax error in the first value', `${BAD_JSON}\n${cmJson('b')}\n${cmJson('c')}\n`, at('m', 1, '\\d+', 'Expected double-quoted property name'), { kubectl: /error parsing m: .*invalid character '}' looking for beginning of object key string/ }),
  applyCase('JSON syntax error in the middle value', `${cmJson('a')}\n${BAD_JSON}\n${cmJson('c')}\n`, at('m', 2, '\\d+', 'Expected double-quoted property name'), { kubectl: /error parsing m: .*invalid character '}' looking for beginning of object key string/ }),
  applyCase('JSON syntax error in the last value', `${cmJson('a')}\n${cmJson('b')}\n${BAD_JSON}\n`, at('m', 3, '\\d+', 'Expected double-quoted property name'), { kubectl: /error parsing m: .*invalid character '}' looking for beginning of object key string/ }),
  applyCase('JSON cut short in the last value', `${cmJson('a')}\n{"apiVersion":"v1","kind":`, at('m', 2, '\\d+', '.+')),
  applyCase('YAML: an unterminated flow sequence', `${cm('a')}---\napiVersion: v1\nkind: [ConfigMap\n`, at('m', 10, '\\d+', '.+'), { kubectl: /error parsing m: error converting YAML to JSON: yaml: line \d+/ }),
  applyCase('YAML: a tab for indentation', `${cm('a')}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: t\n`, at('m', 11, '\\d+', '.+'), { kubectl: /error parsing m: error converting YAML to JSON: yaml: line \d+/ }),
  applyCase('YAML: duplicate key in metadata (second document)', `${cm('a')}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n`, at('m', 12, 3, 'duplicated mapping key')),
  applyCase('JSON: duplicate key in metadata', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"}}\n`, /^error: error parsing "m" \(line 1, column 62\): duplicated mapping key "name"/),
  applyCase('apiVersion a number', `${cm('a')}---\napiVersion: 1\nkind: ConfigMap\nmetadata:\n  name: x\n`, docError('m', 2, 'apiVersion (isn\'t string type|must be a string)'), {
    kubectl: /apiVersion isn't string type/
  }),
  applyCase('apiVersion a list', `apiVersion: [v1]\nkind: ConfigMap\nmetadata:\n  name: x\n`, docError('m', 1, 'apiVersion (isn\'t string type|must be a string)'), {
    kubectl: /apiVersion isn't string type/
  }),
  applyCase('kind a mapping', `apiVersion: v1\nkind: {a: 1}\nmetadata:\n  name: x\n`, docError('m', 1, 'kind (isn\'t string type|must be a string)'), {
    kubectl: /kind isn't string type/
  }),
  applyCase('kind a number (last of three)', `${cm('a')}---\n${cm('b')}---\napiVersion: v1\nkind: 7\nmetadata:\n  name: x\n`, docError('m', 3, 'kind (isn\'t string type|must be a string)'), {
    kubectl: /kind isn't string type/
  }),
  applyCase('metadata a string', `apiVersion: v1\nkind: ConfigMap\nmetadata: hello\n`, docError('m', 1, 'metadata is not an object'), { kubectl: /cannot unmarshal string into Go struct field .*metadata/ }),
  applyCase('metadata a list', `apiVersion: v1\nkind: ConfigMap\nmetadata: [a]\n`, docError('m', 1, 'metadata is not an object'), { kubectl: /cannot unmarshal array into Go struct field .*metadata/ }),
  applyCase('metadata.name a list', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [a]\n`, docError('m', 1, 'metadata\\.name (isn\'t string type|must be a string)'), {
    kubectl: /cannot unmarshal array into Go struct field ObjectMeta\.metadata\.name of type string/
  }),
  applyCase('metadata.name missing (middle document)', `${cm('a')}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {}\n---\n${cm('c')}`, docError('m', 2, 'metadata\\.name not set')),
  applyCase('kind missing', `apiVersion: v1\nmetadata:\n  name: x\n`, docError('m', 1, 'kind not set'), { kubectl: /kind not set/ }),
  applyCase('apiVersion missing', `kind: ConfigMap\nmetadata:\n  name: x\n`, docError('m', 1, 'apiVersion not set'), { kubectl: /apiVersion not set/ }),
  applyCase('three bad documents: every problem, one line each', `kind: ConfigMap\nmetadata:\n  name: x\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {}\n---\n${cm('ok')}---\napiVersion: v1\nmetadata:\n  name: y\n`, [
    docError('m', 1, 'apiVersion not set'),
    docError('m', 2, 'metadata\\.name not set'),
    docError('m', 4, 'kind not set'),
  ]),
  applyCase('a document that is a scalar', `${cm('a')}---\njust a string\n`, /^error: error validating "m" document 2: /),
  applyCase('a document that is a list', `${cm('a')}---\n- a\n- b\n`, /^error: error validating "m" document 2: /),
  applyCase('a List with a bad item', `apiVersion: v1\nkind: List\nitems:\n- ${cmJson('a')}\n- {apiVersion: v1, kind: ConfigMap, metadata: {}}\n`, /^error: error validating "m" document 1.*metadata\.name not set/),
  applyCase('unknown kind', `${cm('a')}---\napiVersion: v1\nkind: Frob\nmetadata:\n  name: x\n`, [/^error: resource mapping not found for name: "x" namespace: "" from "m" document 2: no matches for kind "Frob" in version "v1"; ensure CRDs are installed first$/]),
  applyCase('NUL bytes in a manifest', Buffer.concat([Buffer.from(cm('a')), Buffer.from([0, 0])]), at('m', '\\d+', '\\d+', 'null byte is not allowed in input')),
  applyCase('a 50 MB document with an unterminated string', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  k: "${'x'.repeat(50 * 2 ** 20)}\n`, at('m', 7, 1, '.+'), { kubectlArgs: undefined, timeoutMs: 60_000 }),
  { name: 'binary stdin', args: applyF('-'), stdin: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)), code: 1, err: /^error: error parsing "STDIN" \(line \d+, column \d+\): / },
  { name: 'empty stdin', args: applyF('-'), stdin: '', code: 1, err: 'error: no objects passed to apply', kubectl: 'same', kubectlArgs: kubectlApply('-') },
  applyCase('a file of comments only', '# nothing here\n---\n# nor here\n', 'error: no objects passed to apply', { kubectl: 'same' }),
  { name: 'a directory without manifests', args: applyF('d'), files: { 'd/README.txt': 'hi\n', 'd/sub/x.yaml': cm('x') }, code: 1, err: /^error: no objects passed to apply: .*"d"$/, kubectl: /error reading \[d\]: recognized file extensions are \[\.json \.yaml \.yml\]/, kubectlArgs: kubectlApply('d') },
  { name: 'an empty directory with -R', args: applyF('d', '-R'), files: { 'd/sub/.keep': '' }, code: 1, err: /^error: no objects passed to apply/ },
  { name: 'a missing file', args: applyF('nope.yaml'), code: 1, err: 'error: the path "nope.yaml" does not exist', kubectl: 'same', kubectlArgs: kubectlApply('nope.yaml') },
  { name: 'a missing file after a good one', args: applyF('ok.yaml', '-f', 'nope.yaml'), files: { 'ok.yaml': cm('a') }, code: 1, err: 'error: the path "nope.yaml" does not exist', kubectl: 'same', kubectlArgs: kubectlApply('ok.yaml', '-f', 'nope.yaml') },
  { name: 'a path through a file', args: applyF('ok.yaml/x.yaml'), files: { 'ok.yaml': cm('a') }, code: 1, err: /^error: .*ok\.yaml\/x\.yaml/ },
  { name: 'apply without -f', args: (_d, ns) => ['apply', '-n', ns], code: 2, err: /^error: .*\(see 'kdyn apply --help'\)$/ },
  { name: 'apply -f with no value', args: ['apply', '-f'], code: 2, err: usage('apply ', 'flag needs an argument: -f'), kubectl: /flag needs an argument: 'f' in -f/ },
  { name: 'apply --validate=bogus', args: applyF('m', '--validate=bogus'), files: { m: cm('a') }, code: 2, err: /^error: .*bogus.*\(see 'kdyn apply --help'\)$/ },
  { name: 'apply --dry-run=bogus', args: applyF('m', '--dry-run=bogus'), files: { m: cm('a') }, code: 2, err: /^error: .*bogus.*\(see 'kdyn apply --help'\)$/, kubectl: /Invalid dry-run value \(bogus\)/, kubectlArgs: applyF('m', '--dry-run=bogus') },
  { name: 'apply -o nonsense', args: applyF('m', '-o', 'nonsense'), files: { m: cm('a') }, code: 2, err: /^error: .*nonsense.*\(see 'kdyn apply --help'\)$/ },
  { name: 'apply a namespace that contradicts -n', args: applyF('m'), files: { m: `${cm('a')}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: other\n` }, code: 1, err: /^error: "m" document 2: the namespace from the provided object "other" does not match the namespace "rel-\d+"\. You must pass '--namespace=other' to perform this operation\.$/, kubectl: /the namespace from the provided object "other" does not match the namespace "rel-\d+"/, kubectlArgs: kubectlApply('m') },
];

// ---- files that cannot be read (mode 000; as root, the cases run as an unprivileged user) ----
const unreadable = (name: string) => (dir: string) => chmodSync(join(dir, name), 0);
const unreadableCases: BadCase[] = [
  { name: 'kubeconfig unreadable', args: ['get', 'pods', '--kubeconfig', 'k'], files: { k: 'apiVersion: v1\nkind: Config\n' }, prepare: unreadable('k'), unprivileged: true, code: 1, err: 'error: error loading config file "k": open k: permission denied', kubectl: 'same' },
  { name: 'manifest unreadable', args: applyF('m'), files: { m: cm('a') }, prepare: unreadable('m'), unprivileged: true, code: 1, err: /^error: .*open m: permission denied$/, kubectl: /open m: permission denied/, kubectlArgs: kubectlApply('m') },
  { name: 'jsonpath-file unreadable', args: ['get', 'pods', '-o', 'jsonpath-file=t'], files: { t: '{.items}' }, prepare: unreadable('t'), unprivileged: true, code: 1, err: 'error: error reading jsonpath-file "t": open t: permission denied', kubectl: /open t: permission denied/ },
];

// ---- watch and get -w ----
const watchCases: BadCase[] = [
  { name: 'watch: no type', args: ['watch'], code: 2, err: usage('watch ', '"kdyn watch" requires at least 1 argument') },
  { name: 'watch: unknown type', args: ['watch', 'podz', '--timeout', '5s'], code: 1, err: 'error: the server doesn\'t have a resource type "podz". Did you mean "pods"?' },
  { name: 'get -w: unknown type', args: ['get', 'podz', '-w'], code: 1, err: 'error: the server doesn\'t have a resource type "podz". Did you mean "pods"?', kubectl: /error: the server doesn't have a resource type "podz"/ },
  { name: 'watch --timeout abc', args: ['watch', 'pods', '--timeout', 'abc'], code: 2, err: usage('watch ', 'invalid argument "abc" for "--timeout" flag: time: invalid duration "abc"') },
  { name: 'watch --for=bogus', args: ['watch', 'pods', '--for=bogus'], code: 2, err: usage('watch ', '--for: unrecognized condition "bogus": use delete, create, condition=NAME[=VALUE] or jsonpath={EXPR}[=VALUE]') },
  { name: 'watch --for=condition (no name)', args: ['watch', 'pods', '--for=condition'], code: 2, err: /^error: --for: unrecognized condition "condition"/ },
  { name: 'watch --max-events -1', args: ['watch', 'pods', '--max-events', '-1'], code: 2, err: usage('watch ', '--max-events must be a positive integer (got -1)') },
  { name: 'watch -o nonsense', args: ['watch', 'pods', '-o', 'nonsense'], code: 2, err: /^error: unable to match a printer suitable for the output format "nonsense" with a watch, allowed formats are: go-template,go-template-file,json,jsonl,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml \(see 'kdyn watch --help'\)$/ },
  // get and watch read these flags in one place (src/cli/get-flags.ts): the same answers with and without -w, as kubectl.
  { name: 'watch a name across all namespaces', args: ['watch', 'pods', 'x', '-A'], code: 1, err: 'error: a resource cannot be retrieved by name across all namespaces' },
  { name: 'get -w: a name across all namespaces', args: ['get', 'pods', 'x', '-A', '-w'], code: 1, err: 'error: a resource cannot be retrieved by name across all namespaces', kubectl: 'same' },
  { name: 'watch a name with a selector', args: ['watch', 'pods', 'x', '-l', 'a=b'], code: 1, err: 'error: name cannot be provided when a selector is specified' },
  { name: 'get -w: a name with a selector', args: ['get', 'pods', 'x', '-l', 'a=b', '-w'], code: 1, err: 'error: name cannot be provided when a selector is specified', kubectl: 'same' },
  { name: 'get --watch-only: a name with a selector', args: ['get', 'pods', 'x', '-l', 'a=b', '--watch-only'], code: 1, err: 'error: name cannot be provided when a selector is specified', kubectl: 'same' },
  { name: 'watch --chunk-size -1', args: ['watch', 'pods', '--chunk-size', '-1'], code: 2, err: usage('watch ', 'invalid argument "-1" for "--chunk-size" flag: must be a non-negative integer') },
  { name: 'get -w --chunk-size -1', args: ['get', 'pods', '-n', 'demo', '-w', '--chunk-size', '-1'], code: 2, err: usage('get ', 'invalid argument "-1" for "--chunk-size" flag: must be a non-negative integer'), kubectl: /limit: Invalid value: "-1": must be a non-negative integer/ },
  { name: 'get --watch-only --chunk-size -1', args: ['get', 'pods', '-n', 'demo', '--watch-only', '--chunk-size=-1'], code: 2, err: usage('get ', 'invalid argument "-1" for "--chunk-size" flag: must be a non-negative integer'), kubectl: /limit: Invalid value: "-1": must be a non-negative integer/ },
  { name: 'watch unknown flag', args: ['watch', 'pods', '--bogus'], code: 2, err: usage('watch ', 'unknown flag: --bogus') },
  { name: 'watch a label selector that does not parse', args: ['watch', 'configmaps', '-n', 'demo', '-l', 'a=b=c', '--timeout', '10s'], code: 1, err: /^Error from server \(BadRequest\): unable to parse requirement: / },
  { name: 'get -w with a kubeconfig that does not exist', args: ['get', 'pods', '-w', '--kubeconfig', 'nope.yaml'], code: 1, err: 'error: stat nope.yaml: no such file or directory', kubectl: 'same' },
];

badInputSuite('get: types, arguments and flag values', getCases, getEnv);
badInputSuite('get: jsonpath and custom-columns templates', templateCases, getEnv);
badInputSuite('api-resources and version', otherCommandCases, getEnv);
badInputSuite('kubeconfig faults', kubeconfigCases, getEnv);
badInputSuite('apply: manifests', applyCases, getEnv);
badInputSuite('watch and get -w', watchCases, getEnv);
badInputSuite('unreadable files', unreadableCases, getEnv);
