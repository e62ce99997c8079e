// Loki's template functions. Expected values are the examples of Loki's template function docs
// (docs/sources/query/template_functions.md), Loki's fmt_test.go, or worked out by hand from the
// Go/sprig definitions named in each comment.
import { describe, expect, it } from "vitest";
import { TemplateExecError, compileTemplate } from "../../../../src/engine/template/index";

const TS = 1656353124120000000n; // 2022-06-27T18:05:24.12Z

function run(t: string, labels: Record<string, string> = {}, line = "test line", ts = TS): string {
  return compileTemplate(t).execute({ labels, line, ts });
}

function fails(t: string, labels: Record<string, string> = {}): string {
  try {
    run(t, labels);
  } catch (e) {
    expect(e).toBeInstanceOf(TemplateExecError);
    return (e as Error).message.replace(/^.*?: error calling /, "");
  }
  throw new Error("expected an execution error");
}

describe("strings", () => {
  it("case", () => {
    expect(run("{{.foo | lower }} {{ .bar  | upper }}", { foo: "BLIp", bar: "blop" })).toBe("blip BLOP");
    expect(run(`{{ ToUpper "This is a string" | ToLower }}`)).toBe("this is a string");
    expect(run(`{{ title "hello world" }}`)).toBe("Hello World");
    // Go maps rune by rune: ß has no single-rune upper case, Σ lowers to σ even at a word end
    expect(run(`{{ upper "straße" }} {{ lower "ΟΔΟΣ" }}`)).toBe("STRAßE οδοσ");
  });

  it("replace (sprig order: old new src) and Replace (Go order with a count)", () => {
    expect(run(`{{ replace "hello" "world" "hello world" }}`)).toBe("world world");
    expect(run(`foo{{.foo}}buzz{{ .bar | replace "blop" "bar" }}`, { foo: "blip", bar: "blop" })).toBe(
      "fooblipbuzzbar",
    );
    expect(run(`{{ Replace .bar "blop" "bar" -1 }}`, { bar: "blop" })).toBe("bar");
    expect(run(`{{ Replace "aaaa" "a" "b" 2 }}`)).toBe("bbaa");
  });

  it("trunc and substr (byte offsets, as sprig slices Go strings)", () => {
    expect(run(`{{ trunc 5 "hello world" }} {{ trunc -5 "hello world" }} {{ trunc 20 "hi" }}`)).toBe("hello world hi");
    expect(run(`{{.foo | substr 1 3 }} {{ .bar | trunc 1 }} {{ .bar | trunc 3 }}`, { foo: "blip", bar: "blop" })).toBe(
      "li b blo",
    );
    expect(run(`{{ substr 0 5 "hello world" }} {{ substr 6 11 "hello world" }}`)).toBe("hello world");
    // start < 0 means [:end]; end < 0 or past the end means [start:]
    expect(run(`{{ substr -1 3 "hello" }} {{ substr 2 -1 "hello" }} {{ substr 2 99 "hello" }}`)).toBe("hel llo llo");
    expect(fails(`{{ substr 5 3 "hello" }}`)).toBe("substr: runtime error: slice bounds out of range [5:3]");
  });

  it("trim family", () => {
    expect(
      run(`{{.foo | trim }} {{ .bar | trimAll "op" }} {{ .bar | trimPrefix "b" }} {{ .bar | trimSuffix "p" }}`, {
        foo: "  blip ",
        bar: "blop",
      }),
    ).toBe("blip bl lop blo");
    expect(run(`{{ trimAll "$" "$5.00" }} {{ trimPrefix "-" "-hello" }} {{ trimSuffix "-" "hello-" }}`)).toBe(
      "5.00 hello hello",
    );
    expect(
      run(
        `{{ Trim "xxhixx" "x" }} {{ TrimLeft "xxhixx" "x" }} {{ TrimRight "xxhixx" "x" }} [{{ TrimSpace "\\t a \\n" }}]`,
      ),
    ).toBe("hi hixx xxhi [a]");
  });

  it("predicates", () => {
    expect(run(`{{ if .foo | contains "p"}}yes{{end}}-{{ if .foo | contains "z"}}no{{end}}`, { foo: "BLIp" })).toBe(
      "yes-",
    );
    expect(
      run(`{{ if .foo | hasPrefix "BL" }}yes{{end}}-{{ if .foo | hasSuffix "pw"}}no{{end}}`, { foo: "BLIp" }),
    ).toBe("yes-");
    expect(run(`{{ if and (contains "he" "hello") (contains "llo" "hello") }}yes{{end}}`)).toBe("yes");
  });

  it("repeat, indent, nindent, alignLeft, alignRight", () => {
    expect(run(`{{ "foo" | repeat 3 }}`)).toBe("foofoofoo");
    expect(run(`{{ "foo\\n bar" | indent 4 }}`)).toBe("    foo\n     bar");
    expect(run(`{{ "foo" | nindent 2 }}`)).toBe("\n  foo");
    expect(
      run(
        `{{ alignLeft 5 "hello world"}}|{{ alignLeft 5 "hi"}}|{{ alignRight 5 "hello world"}}|{{ alignRight 5 "hi"}}`,
      ),
    ).toBe("hello|hi   |world|   hi");
    expect(run(`{{ alignLeft 8 "Hello, 世界" }}|{{ alignRight 2 "Hello, 世界" }}`)).toBe("Hello, 世|世界");
  });

  it("default", () => {
    expect(
      run(`{{.foo | default "-" }}{{.bar | default "-"}}{{.unknown | default "-"}}`, { foo: "blip", bar: "" }),
    ).toBe("blip--");
    expect(run(`{{ default "-" "" }} {{ default "-" "foo" }}`)).toBe("- foo");
  });

  it("encodings", () => {
    expect(run("{{ .foo | b64enc }}", { foo: "i'm a string, encode me!" })).toBe("aSdtIGEgc3RyaW5nLCBlbmNvZGUgbWUh");
    expect(run("{{ .foo | b64dec }}", { foo: "aSdtIGEgc3RyaW5nLCBlbmNvZGUgbWUh" })).toBe("i'm a string, encode me!");
    // sprig returns the decoder error as the value
    expect(run(`{{ b64dec "!!" }}`)).toBe("illegal base64 data at input byte 0");
    const url = `/loki/api/v1/query?query=sum(count_over_time({stream_filter="some_stream",environment="prod", host=~"someec2.*"}`;
    const enc =
      "%2Floki%2Fapi%2Fv1%2Fquery%3Fquery%3Dsum%28count_over_time%28%7Bstream_filter%3D%22some_stream%22%2Cenvironment%3D%22prod%22%2C+host%3D~%22someec2.%2A%22%7D";
    expect(run("{{.foo | urlencode }} {{ urlencode .foo }}", { foo: url })).toBe(`${enc} ${enc}`);
    expect(run("{{.foo | urldecode }}", { foo: enc })).toBe(url);
    expect(fails(`{{ urldecode "%zz" }}`)).toBe('urldecode: invalid URL escape "%zz"');
  });

  it("Go builtins: printf, print, len, index, html, js, urlquery", () => {
    expect(run(`{{ printf "The IP address was %s" .remote_addr }}`, { remote_addr: "129.168.1.1" })).toBe(
      "The IP address was 129.168.1.1",
    );
    expect(run(`{{ printf "%-10.3s|%5.2f|%05d|%q|%x" "abcdef" 3.14159 42 "q" 255 }}`)).toBe(
      'abc       | 3.14|00042|"q"|ff',
    );
    expect(run(`{{ printf "%d" "a" }} {{ printf "%s %s" "a" }}`)).toBe("%!d(string=a) a %!s(MISSING)");
    expect(run(`{{ print 1 2 "a" 3 }}`)).toBe("1 2a3");
    expect(run(`{{ len "héllo" }} {{ index "abc" 1 }} {{ index . "k" }}`, { k: "v" })).toBe("6 98 v");
    expect(run(`{{ html "<a&\\"'>" }} {{ js "<'=" }} {{ urlquery "a b&c" }}`)).toBe(
      "&lt;a&amp;&#34;&#39;&gt; \\u003C\\'\\u003D a+b%26c",
    );
  });
});

describe("regular expressions (Go RE2 syntax)", () => {
  it("regexReplaceAll expands $1 and ${name}; the Literal variant does not", () => {
    expect(run(`{{ regexReplaceAll "(p)" .foo "t" }}`, { foo: "BLIp" })).toBe("BLIt");
    expect(run(`{{ regexReplaceAllLiteral "(p)" .foo "\${1}" }}`, { foo: "BLIp" })).toBe("BLI${1}");
    expect(run(`{{ regexReplaceAll "(a*)bc" "aabcxbc" "\${1}X" }}`)).toBe("aaXxX");
    // $1x names the group "1x", which does not exist
    expect(run(`{{ regexReplaceAll "(a)" "a" "$1x" }}|{{ regexReplaceAll "(?P<w>\\\\w+)" "hi there" "<$w>" }}`)).toBe(
      "|<hi> <there>",
    );
    // an empty match right after a match is not replaced again
    expect(run(`{{ regexReplaceAll "x*" "abc" "-" }}`)).toBe("-a-b-c-");
  });

  it("count", () => {
    expect(run(`{{.foo | count "abc" }}`, { foo: "abc abc abc" })).toBe("3");
    expect(run(`{{.foo | count "a|b|c" }}`, { foo: "abc abc abc" })).toBe("9");
    expect(run(`{{ __line__ | count "notmatching.*" }}`)).toBe("0");
  });

  it("reports invalid patterns", () => {
    expect(fails(`{{ regexReplaceAll "(" "a" "b" }}`)).toBe(
      "regexReplaceAll: error parsing regexp: missing closing ): `(`",
    );
  });
});

describe("math", () => {
  it("integer functions convert label strings (spf13/cast)", () => {
    expect(
      run("{{ add .foo 1 | sub .bar | mul .baz | div .bazz}}", { foo: "1", bar: "3", baz: "10", bazz: "20" }),
    ).toBe("2");
    expect(
      run("min is {{ min .foo .bar .baz }} and max is {{ max .foo .bar .baz }}", { foo: "5", bar: "10", baz: "15" }),
    ).toBe("min is 5 and max is 15");
    expect(run("mod is {{ mod .foo 3 }}", { foo: "20" })).toBe("mod is 2");
    expect(run(`{{ add 3 2 5 }} {{ sub 5 2 }} {{ mul 5 2 3 }} {{ div 10 2 }} {{ div .s 100 }}`, { s: "200" })).toBe(
      "10 3 30 5 2",
    );
    // "3.0" loses its zero fraction before parsing; "x" converts to 0
    expect(run(`{{ add "3.0" 1 }} {{ add "x" 1 }} {{ int "0x1F" }}`)).toBe("4 1 31");
    expect(fails("{{ div 1 0 }}")).toBe("div: runtime error: integer divide by zero");
  });

  it("float functions compute in decimal", () => {
    expect(
      run("{{ addf .foo 1.5 | subf .bar 1.5 | mulf .baz | divf .bazz }}", {
        foo: "1.5",
        bar: "5",
        baz: "10.5",
        bazz: "20.2",
      }),
    ).toBe("3.8476190476190477");
    expect(
      run("{{ round (addf .foo 1.5 | subf .bar | mulf .baz | divf .bazz) 5 .2}}", {
        foo: "1.5",
        bar: "3.5",
        baz: "10.5",
        bazz: "20.4",
      }),
    ).toBe("3.88572");
    expect(
      run("{{ addf 3.5 2 5 }} {{ subf 5.5 2 1.5 }} {{ mulf 5.5 2 2.5 }} {{ divf 10 2 4 }} {{ addf 0.1 0.2 }}"),
    ).toBe("10.5 2 27.5 1.25 0.3");
    expect(
      run("minf is {{ minf .foo .bar .baz }} and maxf is {{maxf .foo .bar .baz}}", {
        foo: "5.3",
        bar: "10.5",
        baz: "15.2",
      }),
    ).toBe("minf is 5.3 and maxf is 15.2");
    expect(run("ceil is {{ ceil .foo }} and floor is {{floor .foo }}", { foo: "5.3" })).toBe(
      "ceil is 6 and floor is 5",
    );
    expect(run("{{ round 123.555555 3 }} {{ round 123.88571428571 5 .2 }}")).toBe("123.556 123.88572");
  });

  it("conversions", () => {
    expect(run(`{{ "2.5" | float64 | int | add 10}}`)).toBe("12");
    expect(run(`{{ "3" | int }} {{ "3.5" | float64 }}`)).toBe("3 3.5");
  });

  it("bytes and durations", () => {
    expect(run("{{ .foo | bytes }}", { foo: "3 kB" })).toBe("3000");
    expect(run("{{ .foo | bytes }}", { foo: "3MB" })).toBe("3e+06");
    expect(run("{{ .foo | bytes }}", { foo: "1.5KiB" })).toBe("1536");
    expect(run("{{ .foo | duration }}", { foo: "3ms" })).toBe("0.003");
    expect(run("{{ .foo | duration_seconds }}", { foo: "3m10s" })).toBe("190");
    expect(fails(`{{ duration "3d" }}`)).toBe('duration: time: unknown unit "d" in duration "3d"');
  });
});

describe("time", () => {
  it("__timestamp__ with date and the epoch functions", () => {
    expect(run(`{{ __timestamp__ | date "2006-01-02" }} bar {{ .bar }}`, { bar: "2" })).toBe("2022-06-27 bar 2");
    expect(run(`{{ __timestamp__ | unixEpoch }}`)).toBe("1656353124");
    expect(run(`{{ __timestamp__ | unixEpochMillis }} {{ __timestamp__ | unixEpochNanos }}`)).toBe(
      "1656353124120 1656353124120000000",
    );
    expect(run("{{ __timestamp__ }}")).toBe("2022-06-27 18:05:24.12 +0000 UTC");
    expect(run(`{{ __timestamp__ | date "Mon Jan _2 3:04:05.000 PM MST 2006 Z07:00" }}`)).toBe(
      "Mon Jun 27 6:05:24.120 PM UTC 2022 Z",
    );
  });

  it("layout words: Jan/Mon before a lower-case letter are literal", () => {
    expect(run(`{{ __timestamp__ | date "Janet Monthly Jan Mon" }}`)).toBe("Janet Monthly Jun Mon");
  });

  it("toDate, toDateInZone, unixToTime", () => {
    expect(
      run(`{{ sub (unixEpoch (toDate "2006-01-02" "2021-11-02")) (unixEpoch (toDate "2006-01-02" "2021-11-01")) }}`),
    ).toBe("86400");
    expect(run(`{{ date "2006-01-02" (toDate "2006-01-02" "2021-11-02") }}`)).toBe("2021-11-02");
    expect(
      run(`{{ .foo | toDateInZone "2006-01-02T15:04:05.999999999Z" "UTC" | unixEpochNanos }}`, {
        foo: "2023-03-10T01:32:40.340485723Z",
      }),
    ).toBe("1678411960340485723");
    // a value that does not parse gives Go's zero time
    expect(run(`{{ toDate "2006-01-02" "garbage" }}`)).toBe("0001-01-01 00:00:00 +0000 UTC");
    // 19503 days, 1679577215 s, 1257894000000 ms after the epoch
    expect(run(`{{ unixToTime "19503" }}|{{ unixToTime "1679577215" }}|{{ unixToTime "1257894000000" }}`)).toBe(
      "2023-05-26 00:00:00 +0000 UTC|2023-03-23 13:13:35 +0000 UTC|2009-11-10 23:00:00 +0000 UTC",
    );
    expect(fails(`{{ unixToTime "464" }}`)).toBe("unixToTime: unable to parse time '464': %!w(<nil>)");
  });

  it("time.Time methods", () => {
    expect(run('{{ __timestamp__.Unix }} {{ __timestamp__.Year }} {{ __timestamp__.Format "15h04" }}')).toBe(
      "1656353124 2022 18h05",
    );
  });
});

describe("fromJson", () => {
  it("decodes into maps and slices and fails soft", () => {
    const j = '{"a":1,"b":[1,2.5,"x"],"c":{"d":null}}';
    expect(run("{{ fromJson .j }}", { j })).toBe("map[a:1 b:[1 2.5 x] c:map[d:<nil>]]");
    expect(run('{{ (fromJson .j).a }} {{ index (fromJson .j) "b" 1 }}', { j })).toBe("1 2.5");
    expect(run(`{{ range $q := fromJson .q }}{{ $q.query }};{{ end }}`, { q: '[{"query":"a"},{"query":"b"}]' })).toBe(
      "a;b;",
    );
    expect(run(`{{ fromJson "not json" }}`)).toBe("<no value>");
  });
});
