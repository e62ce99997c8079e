// The text/template language itself: actions, trimming, control structures, variables, literals,
// printing rules and error messages. Expected values follow Go's text/template documentation and
// the messages Loki copies into __error_details__ (pkg/logql/log/fmt_test.go in Loki).
import { describe, expect, it } from "vitest";
import { TemplateExecError, TemplateParseError, compileTemplate } from "../../../../src/engine/template/index";

const TS = 1769914766190536839n; // 2026-02-01T02:59:26.190536839Z
const LABELS = { foo: "blip", bar: "blop", n: "42", empty: "", level: "error", status: "503" };

function run(t: string, labels: Record<string, string> = LABELS, line = "the line", ts = TS): string {
  return compileTemplate(t).execute({ labels, line, ts });
}

function execError(t: string, labels: Record<string, string> = LABELS, name?: string): string {
  const tpl = name ? compileTemplate(t, name) : compileTemplate(t);
  try {
    tpl.execute({ labels, line: "the line", ts: TS });
  } catch (e) {
    expect(e).toBeInstanceOf(TemplateExecError);
    return (e as Error).message;
  }
  throw new Error(`expected ${t} to fail`);
}

function parseError(t: string): string {
  try {
    compileTemplate(t);
  } catch (e) {
    expect(e).toBeInstanceOf(TemplateParseError);
    return (e as Error).message;
  }
  throw new Error(`expected ${t} to fail to parse`);
}

describe("text and fields", () => {
  it("copies text and substitutes labels", () => {
    expect(run("foo{{.foo}}buzz{{  .bar  }}")).toBe("fooblipbuzzblop");
    expect(run("no actions at all")).toBe("no actions at all");
    expect(run("{{.foo}}")).toBe("blip");
  });

  it("reads a missing label as the empty string (map[string]string, missingkey=zero)", () => {
    expect(run("foo {{.foo}}buzz{{  .bar  }}", { bar: "blop" })).toBe("foo buzzblop");
    expect(run("[{{.missing}}]")).toBe("[]");
  });

  it("prints the whole label map sorted by key for {{.}}", () => {
    expect(run("{{.}}", { b: "2", a: "1" })).toBe("map[a:1 b:2]");
  });

  it("trims whitespace around {{- and -}}", () => {
    expect(run("a  {{- .foo -}}  \n b")).toBe("ablipb");
    expect(run("a  {{- .foo }}  b")).toBe("ablip  b");
    // "{{-3}}" is the number -3, not a trim marker
    expect(run("{{-3}}")).toBe("-3");
  });

  it("drops comments, including trimmed ones", () => {
    expect(run("a{{/* note */}}b")).toBe("ab");
    expect(run("a  {{- /* note */ -}}  b")).toBe("ab");
  });
});

describe("pipelines and literals", () => {
  it("passes the piped value as the last argument", () => {
    expect(run(`{{ .foo | replace "b" "c" | upper }}`)).toBe("CLIP");
    expect(run(`{{ upper (printf "%s-%s" .foo .bar) }}`)).toBe("BLIP-BLOP");
  });

  it("prints literals as Go does", () => {
    expect(run("{{ 3 }} {{ -5 }} {{ 0x1F }} {{ 'a' }} {{ true }}")).toBe("3 -5 31 97 true");
    expect(run('{{ "s\\t" }}|{{ `raw\\n` }}')).toBe("s\t|raw\\n");
    // float64 uses the shortest form and switches to exponents at 1e+06 and below 1e-4
    expect(run("{{ 3.0 }} {{ 1.5 }} {{ 123456.0 }} {{ 1000000.0 }} {{ 0.0001 }} {{ 0.00001 }}")).toBe(
      "3 1.5 123456 1e+06 0.0001 1e-05",
    );
  });

  it("treats a function without arguments as a call", () => {
    expect(run("{{ __line__ }}")).toBe("the line");
  });
});

describe("control structures", () => {
  it("if / else if / else with Go truthiness", () => {
    const t = `{{ if eq .level "warn" }}W{{ else if eq .level "error" }}E{{ else }}?{{ end }}`;
    expect(run(t)).toBe("E");
    expect(run(t, { level: "warn" })).toBe("W");
    expect(run(t, { level: "info" })).toBe("?");
    expect(run("{{ if .empty }}y{{ else }}n{{ end }}{{ if 0 }}y{{ else }}n{{ end }}{{ if .foo }}y{{ end }}")).toBe(
      "nny",
    );
  });

  it("compat case log-line-format-if", () => {
    const t = `{{if eq .level "error"}}BAD{{else}}ok{{end}} {{.status}}`;
    expect(run(t, { level: "error", status: "503" })).toBe("BAD 503");
    expect(run(t, { level: "info", status: "200" })).toBe("ok 200");
  });

  it("with rebinds dot and has an else branch", () => {
    expect(run("{{ with .foo }}[{{ . }}]{{ end }}{{ with .empty }}x{{ else }}none{{ end }}")).toBe("[blip]none");
  });

  it("range over the label map, over ints, with break and continue", () => {
    expect(run("{{ range $k, $v := . }}{{ $k }}={{ $v }};{{ end }}", { b: "2", a: "1" })).toBe("a=1;b=2;");
    expect(run("{{ range 3 }}{{ . }}{{ end }}")).toBe("012");
    expect(
      run(
        "{{ range $i := 5 }}{{ if eq $i 1 }}{{ continue }}{{ end }}{{ if eq $i 3 }}{{ break }}{{ end }}{{ $i }}{{ end }}",
      ),
    ).toBe("02");
    expect(run("{{ range $i := 0 }}x{{ else }}empty{{ end }}")).toBe("empty");
  });

  it("variables: declaration, assignment, scoping and $", () => {
    expect(run("{{ $a := 1 }}{{ $a }}{{ $a = 2 }}{{ $a }}")).toBe("12");
    expect(run("{{ $x := 1 }}{{ if true }}{{ $x := 2 }}{{ $x }}{{ end }}{{ $x }}")).toBe("21");
    expect(run("{{ with .foo }}{{ $.bar }}/{{ . }}{{ end }}")).toBe("blop/blip");
    // the new variable is visible only after its own pipeline
    expect(run("{{ $x := .foo }}{{ $x := $x | upper }}{{ $x }}")).toBe("BLIP");
  });

  it("define, template and block", () => {
    expect(run(`{{ define "T" }}<{{ . }}>{{ end }}{{ template "T" .foo }}{{ template "T" }}`)).toBe(
      "<blip><<no value>>",
    );
    expect(run(`{{ block "B" .bar }}[{{ . }}]{{ end }}`)).toBe("[blop]");
  });
});

describe("parse errors carry Go's messages", () => {
  it.each([
    ["{{ foo }}", 'template: line:1: function "foo" not defined'],
    ["{{ .x", "template: line:1: unclosed action"],
    ["{{ .x ) }}", "template: line:1: unexpected right paren"],
    ["{{ end }}", "template: line:1: unexpected {{end}}"],
    ["{{ if .x }}", "template: line:1: unexpected EOF"],
    ["{{ $nope }}", 'template: line:1: undefined variable "$nope"'],
    ['{{ .x | "lit" }}', "template: line:1: non executable command in pipeline stage 2"],
    ["{{ break }}", "template: line:1: {{break}} outside {{range}}"],
    ["{{ 99999999999999999999 }}", 'template: line:1: integer overflow: "99999999999999999999"'],
    ["{{/* open", "template: line:1: unclosed comment"],
    ["{{ if }}{{ end }}", "template: line:1: missing value for if"],
    ['{{ "open }}', "template: line:1: unterminated quoted string"],
  ])("%s", (t, msg) => {
    expect(parseError(t)).toBe(msg);
  });
});

describe("execution errors carry Go's messages and positions", () => {
  it("matches Loki's own test expectations", () => {
    expect(execError(`{{.foo Replace "foo"}}`)).toBe(
      'template: line:1:2: executing "line" at <.foo>: foo is not a method but has arguments',
    );
    expect(execError("{{.foo | now}}")).toBe(
      'template: line:1:9: executing "line" at <now>: wrong number of args for now: want 0 got 1',
    );
    expect(execError(`{{replace "test" .foo}}`, LABELS, "label")).toBe(
      'template: label:1:2: executing "label" at <replace>: wrong number of args for replace: want 3 got 2',
    );
  });

  it("reports comparisons of a string label with a number", () => {
    expect(execError("{{ eq .status 503 }}")).toBe(
      'template: line:1:3: executing "line" at <eq .status 503>: error calling eq: incompatible types for comparison: string and int',
    );
  });

  it("checks argument types like reflect-based calls", () => {
    // add returns int64; trunc wants a string as its last argument
    expect(execError("{{ add 1 2 | trunc 3 }}")).toBe(
      'template: line:1:19: executing "line" at <3>: wrong type for value; expected string; got int64',
    );
    expect(execError("{{ trunc .n .foo }}")).toBe(
      'template: line:1:9: executing "line" at <.n>: wrong type for value; expected int; got string',
    );
    expect(execError(`{{ trunc "3" .foo }}`)).toBe(
      'template: line:1:9: executing "line" at <"3">: expected integer; found "3"',
    );
  });

  it("rejects fields of a string and arguments to non-functions", () => {
    expect(execError("{{ .foo.bar }}")).toBe(
      'template: line:1:7: executing "line" at <.foo.bar>: can\'t evaluate field bar in type string',
    );
    expect(execError(`{{ "a" "b" }}`)).toBe(
      'template: line:1:3: executing "line" at <"a">: can\'t give argument to non-function "a"',
    );
    expect(execError("{{ range .foo }}{{ end }}")).toBe(
      'template: line:1:9: executing "line" at <.foo>: range can\'t iterate over blip',
    );
  });

  it("counts byte columns on later lines", () => {
    expect(execError("é\n  {{ div 1 0 }}")).toBe(
      'template: line:2:5: executing "line" at <div 1 0>: error calling div: runtime error: integer divide by zero',
    );
  });

  it("can run again after a failure", () => {
    const t = compileTemplate("{{ .a }}{{ div 1 .b }}");
    expect(() => t.execute({ labels: { a: "x", b: "0" }, line: "", ts: 0n })).toThrow(TemplateExecError);
    expect(t.execute({ labels: { a: "x", b: "1" }, line: "", ts: 0n })).toBe("x1");
  });
});

describe("planning hints", () => {
  it("reports line, timestamp and label usage", () => {
    const t = compileTemplate("{{ __line__ | trunc 3 }} {{ if .a }}{{ .b.c }}{{ end }}");
    expect(t.referencesLine).toBe(true);
    expect(t.usesTimestamp).toBe(false);
    expect([...t.labelNames].sort()).toEqual(["a", "b"]);
    expect(compileTemplate("{{ __timestamp__ }}").usesTimestamp).toBe(true);
  });
});
