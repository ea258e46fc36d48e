// Go templates (`-o go-template=...`) compared byte for byte with kubectl v1.32 on the same object:
// output, and for failures kubectl's stdout (output so far plus its debugging dump) and its error
// line. `kubectl label --local -f FILE -o go-template=...` needs no server. Skipped when kubectl is
// not on PATH.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { compileGoTemplate, GoTemplateError } from '../../../src/gotemplate/index.js';
import { hasKubectl, KubectlOracle } from '../../support/kubectl-oracle.js';

const OBJECT = {
  apiVersion: 'example.com/v1',
  kind: 'Foo',
  metadata: { name: 'a', creationTimestamp: null, annotations: { 'kubernetes.io/hostname': 'h1' } },
  spec: {
    bools: [true, false, true],
    integers: [1, 2, 3, 4],
    floats: [1.5, 2.25, -0.5],
    strings: ['one', 'two', 'three', 'four'],
    mixed: [true, 'one', 1, 1.1, null, { a: 1 }, [1, 2]],
    big: [1000000, 123456, 1e21, 0.00001, 1234567.5, 123456.5, 1e-7],
    html: '<a href="x">&\'</a>',
    uni: 'héllo 日本',
    b64: 'aGVsbG8gd29ybGQ=',
    labels: { zeta: 'z', alpha: 'a', 'app.kubernetes.io/name': 'web' },
    maps: [{ name: 'one', value: 1 }, { name: 'two', value: 2.5 }],
    empty: [],
    emptyMap: {},
    nul: null,
    zero: 0,
    points: [{ id: 'i1', x: 4 }, { id: 'i2', x: -2, z: 1 }, { id: 'i3', x: 8 }],
  },
};

const TEMPLATES = [
  // fields, printing of Go values
  '{{.metadata.name}}', '{{.kind}}/{{.metadata.name}}{{"\\n"}}', '{{.spec}}', '{{.spec.integers}} {{.spec.floats}}', '{{.spec.big}}',
  '{{.spec.mixed}}', '{{.nope}}', '{{.nope.deeper}}', '{{.spec.nul}}', '{{.spec.nul.x}}', '{{.kind.x}}', '{{.spec.zero}}',
  '{{.metadata.creationTimestamp}}', '{{$}}', '{{.metadata.labels}}', '{{.spec.uni}}',
  // range, if, with, else if, else with, break, continue
  '{{range .spec.strings}}{{.}},{{end}}', '{{range $i, $s := .spec.strings}}{{$i}}={{$s}} {{end}}',
  '{{range $k, $v := .spec.labels}}{{$k}}:{{$v}};{{end}}', '{{range .spec.empty}}x{{else}}empty{{end}}', '{{range .nope}}x{{else}}none{{end}}',
  '{{range .kind}}x{{end}}', '{{range 3}}{{.}}{{end}}', '{{range $i, $v := 3}}{{end}}', '{{range .spec.nul}}x{{else}}nil{{end}}',
  '{{range .spec.integers}}{{if eq . 3}}{{break}}{{end}}{{.}}{{end}}', '{{range .spec.integers}}{{if eq . 2}}{{continue}}{{end}}{{.}}{{end}}',
  '{{range $i, $e := .spec.points}}{{$i}}:{{$e.id}}{{if $e.z}}(z){{end}} {{end}}', '{{range .spec.points}}{{.x}}{{end}}{{.kind}}',
  '{{if .spec.bools}}yes{{end}}', '{{if .spec.empty}}yes{{else}}no{{end}}', '{{if .spec.zero}}yes{{else}}no{{end}}',
  '{{if eq .kind "Bar"}}bar{{else if eq .kind "Foo"}}foo{{else}}other{{end}}', '{{with .metadata}}{{.name}}{{end}}',
  '{{with .nope}}x{{else}}y{{end}}', '{{with $x := .metadata.name}}{{$x}}{{end}}', '{{with .nope}}a{{else with .metadata}}{{.name}}{{end}}',
  '{{with .spec.nul}}x{{else}}nil{{end}}', '{{$x := 1}}{{$x = 2}}{{$x}}', '{{$x := .spec.labels}}{{range $k, $v := $x}}{{$k}} {{end}}',
  // define, template, block
  '{{define "T"}}[{{.}}]{{end}}{{template "T" .metadata.name}}', '{{block "B" .kind}}<{{.}}>{{end}}', '{{template "nope"}}',
  '{{template "T"}}{{define "T"}}x{{.}}y{{end}}',
  // index, len, slice, exists, base64decode
  '{{index .spec.strings 1}}', '{{index .spec.integers 10}}', '{{index .metadata.annotations "kubernetes.io/hostname"}}',
  '{{index .metadata "nope"}}', '{{index .spec.maps 1 "value"}}', '{{index .kind 0}}', '{{index .spec.nul 0}}', '{{index .spec.strings "x"}}',
  '{{len .spec.strings}} {{len .metadata.name}} {{len .spec.uni}} {{len .spec.labels}}', '{{len .spec.nope}}', '{{len .spec.nul}}', '{{len .spec.zero}}',
  '{{slice .spec.strings 1 3}} {{slice "hello" 1 3}} {{slice .spec.strings 2}}', '{{slice .spec.strings 3 1}}',
  '{{exists . "spec" "maps" 0 "name"}} {{exists . "spec" "nope"}} {{exists .spec.strings 7}} {{exists . "spec" "nul"}}',
  '{{base64decode "aGVsbG8="}}', '{{base64decode .spec.b64}}', '{{base64decode "aGVsbG8"}}', '{{base64decode "a$=="}}', '{{base64decode 1}}',
  '{{base64decode .spec.zero}}',
  // printf and fmt verbs
  '{{printf "%T %T %T %T %T %T" .spec.integers .spec.labels .metadata.name (index .spec.integers 0) (index .spec.floats 0) 1}}',
  '{{printf "%d|%5d|%-5d|%05d|%x|%X|%o|%b|%c|%q|%U|%+d" 42 42 42 42 255 255 8 5 65 65 65 7}}',
  '{{printf "%s|%q|%v|%10s|%-10s|%.2s|%x" "héllo" "a\\"b" "x" "r" "l" "abc" "hi"}}',
  '{{printf "%f|%.2f|%e|%g|%v|%8.3f|%+.1f|%.3e" 3.14159 3.14159 1234.5678 0.000012 2.5 3.14159 2.0 123456.789}}',
  '{{printf "%v|%+v|%#v" .spec.maps .spec.emptyMap .spec.strings}}', '{{printf "%d" "x"}}', '{{printf "%d %d" 1}}', '{{printf "%d" 1 2}}',
  '{{printf "%t %v %s" true .spec.nul .nope}}', '{{printf "%s" .spec.integers}}', '{{printf "%d" .spec.labels}}', '{{printf "%5.1f|%-8v|%08.3f" 3.14159 "ab" -3.14159}}',
  '{{printf "%q %x" .spec.uni .spec.uni}}', '{{printf "%v %v" .spec.big .spec.floats}}', '{{printf "%z" 1}}', '{{printf "100%%"}}', '{{printf "%"}}',
  '{{printf 1}}', '{{printf .spec.zero}}', '{{printf "%6.2v|%-4d|%x" 3.14159 -3 -255}}',
  // print, println, html, js, urlquery
  '{{print 1 2 "a" "b" 3 .spec.nul}}', '{{println "a" 1 .kind}}', '{{html .spec.html}}', '{{js .spec.html}}{{js "a=b\\u0001"}}',
  '{{urlquery .spec.html "x y"}}', '{{html 1 "a" 2}}',
  // comparison and logic
  '{{eq 1 1}} {{eq .kind "Foo" "Bar"}} {{ne 1 2}} {{lt 1 2}} {{le 2 2}} {{gt "b" "a"}} {{ge 1.5 1.5}}', '{{eq (index .spec.integers 0) 1}}',
  '{{eq (index .spec.floats 0) 1}}', '{{lt .spec.maps 1}}', '{{eq .spec.labels .spec.labels}}', '{{eq .nope .nope2}} {{eq .nope "x"}}', '{{lt true false}}',
  '{{and 1 0 "x"}} {{or 0 "" "y"}} {{and 1 "z"}} {{or 0 ""}}', '{{not .spec.empty}} {{not .kind}}', '{{and}}', '{{eq 1}}', '{{lt 1}}',
  // pipelines, chains, literals
  '{{"a" | printf "%s-%s" "b"}}', '{{.spec.strings | len}}', '{{len .spec.integers | printf "%T"}}', '{{ .kind | printf "%s" | printf "%q" }}',
  '{{(index .spec.maps 0).name}}', '{{(index .spec.maps 0).name.x}}', "{{0x1F}} {{1e3}} {{1.5}} {{-7}} {{'a'}} {{1_000}} {{0o17}} {{017}}",
  '{{nil}}', '{{index nil 1}}', '{{.kind 1}}', '{{1 | printf "%d"}}', '{{.spec.strings 1}}', '{{$x := 3}}{{$x.y}}',
  // trim markers and comments
  '{{- /* comment */ -}}  {{ .kind -}}  \n  x', 'a  {{- .kind -}}  b', '{{/* c */}}z', 'a\n{{- "b" }}\n', '{{ 3 -}} {{- 4 }}',
  // parse errors
  '{{.foo}', '{{.kind', '{{if .kind}}x', '{{end}}', '{{foo}}', '{{$x}}', '{{break}}', '{{"unterminated}}', '{{printf "%d" | 1}}',
  '{{else}}', '{{range .a}}{{else}}{{else}}{{end}}', '{{.a | }}', '{{(1}}', '{{1)}}', '{{/* x }}', '{{/* x */ }}', '{{.a.}}', '{{3x}}',
  '{{define "x"}}{{end}}{{define "x"}}y{{end}}', '{{template .x}}', "{{'ab'}}", '{{"\\q"}}', '{{.x | 3}}', '{{$x := 1 2}}', '{{with}}{{end}}',
  '{{range $a, $b, $c := .x}}{{end}}', '{{$x, $y := 1}}', '{{1.2.3}}', '{{9223372036854775808}}', '{{.a :}}', '{{.a =}}', '{{@}}',
  // scoping, nesting, more printing
  '{{range $i, $e := .spec.strings}}{{end}}{{$i}}', '{{with $x := 1}}{{end}}{{$x}}', '{{$x := 1}}{{if true}}{{$x = 2}}{{end}}{{$x}}',
  '{{range .spec.maps}}{{$.kind}}:{{.name}} {{end}}', '{{range $m := .spec.maps}}{{range $k, $v := $m}}{{$k}}={{$v}},{{end}};{{end}}',
  '{{index (index .spec.mixed 5) "a"}} {{index .spec.mixed 6 1}}', '{{printf "%v|%d|%s" (index .spec.mixed 6) (index .spec.mixed 6) (index .spec.mixed 5)}}',
  '{{printf "%T|%T|%T" (index .spec.mixed 4) (slice .spec.strings 1) (index "ab" 1)}}', '{{printf "%08.2f|% d|%+.2e|%x" 3.14159 5 12345.678 3.5}}',
  '{{printf "%5t|%-7q|%#x|%#o|%3c|" true "q" 255 8 66}}', '{{len (slice .spec.strings 1 2)}} {{index (slice .spec.integers 1) 0}}',
  '{{if and .spec.bools (not .spec.empty)}}both{{end}}{{if or .nope .spec.zero}}x{{else}}neither{{end}}',
  '{{range $i, $_ := .spec.integers}}{{if gt $i 1}}{{break}}{{end}}{{$i}}{{end}}', '{{- range .spec.strings}}\n  {{.}}\n{{- end}}',
  // errors on later lines and inside defined templates
  'line1\n  {{.kind.x}}', '{{define "T"}}\n{{index . 9}}{{end}}ok {{template "T" .spec.strings}}', 'x{{.spec.strings}}y{{index .spec.integers 9}}z',
];

describe('go-template against kubectl', { skip: hasKubectl() ? false : 'kubectl not on PATH' }, () => {
  let oracle: KubectlOracle;
  let seen: unknown;
  before(() => {
    oracle = new KubectlOracle();
    seen = oracle.seen(OBJECT);
  });
  after(() => oracle.close());

  test('the corpus has at least 60 templates', () => assert.ok(TEMPLATES.length >= 60, String(TEMPLATES.length)));

  for (const template of TEMPLATES) {
    test(JSON.stringify(template), () => {
      const r = oracle.local(OBJECT, ['-o', `go-template=${template}`]);
      let got: string;
      try {
        got = compileGoTemplate(template).execute(seen);
      } catch (e) {
        assert.ok(e instanceof GoTemplateError, String(e));
        assert.notEqual(r.status, 0, `kubectl succeeded with ${JSON.stringify(r.stdout)}`);
        assert.equal(`error: ${e.message}\n`, r.stderr);
        assert.equal(e.output, r.stdout);
        return;
      }
      assert.equal(r.status, 0, r.stderr);
      assert.equal(got, r.stdout);
    });
  }
});
