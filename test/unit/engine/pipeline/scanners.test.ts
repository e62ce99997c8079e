import { describe, expect, it } from "vitest";
import { LogfmtDecoder } from "../../../../src/engine/pipeline/logfmt";
import { compilePattern, matchPattern, testPattern } from "../../../../src/engine/pipeline/pattern";
import { sanitizeLabelKey } from "../../../../src/engine/pipeline/sanitize";
import { MALFORMED_OBJECT, objectEach, unescapeJson } from "../../../../src/engine/pipeline/jsonscan";

function pairs(line: string): Array<[string | undefined, string]> {
  const d = new LogfmtDecoder();
  d.reset(line);
  const out: Array<[string | undefined, string]> = [];
  while (!d.eol()) if (d.scan()) out.push([d.key, d.value]);
  return out;
}

describe("logfmt decoder", () => {
  it("reads bare keys, quoted values and escapes", () => {
    expect(pairs('level=info msg="a b" flag x= q="say \\"hi\\""')).toEqual([
      ["level", "info"],
      ["msg", "a b"],
      ["flag", ""],
      ["x", ""],
      ["q", 'say "hi"'],
    ]);
  });
  it("treats control characters as separators (ANSI colour prefix)", () => {
    expect(pairs("\u001b[31mERROR\u001b[0m level=error")).toEqual([
      ["[31mERROR", ""],
      ["[0m", ""],
      ["level", "error"],
    ]);
  });
  it("reports the first syntax error with a 1-based byte position", () => {
    const d = new LogfmtDecoder();
    d.reset("a=1 =b c=2");
    while (!d.eol()) d.scan();
    expect(d.err).toBe("logfmt syntax error at pos 5 : unexpected '='");
    d.reset('a="open');
    while (!d.eol()) d.scan();
    expect(d.err).toBe("logfmt syntax error at pos 8 : unterminated quoted value");
  });
});

describe("label name sanitising", () => {
  it("maps invalid characters per code point and prefixes digits", () => {
    expect(sanitizeLabelKey("http.host")).toBe("http_host");
    expect(sanitizeLabelKey("1st")).toBe("_1st");
    expect(sanitizeLabelKey(" caf\u00e9 ")).toBe("caf_");
    expect(sanitizeLabelKey("a\u{1F600}b")).toBe("a_b");
    expect(sanitizeLabelKey("[31mERROR")).toBe("_31mERROR");
  });
});

describe("json scanning", () => {
  it("stops with the scanner's error on a non-object", () => {
    expect(objectEach("10.0.0.1 - -", 0, 12, () => undefined)).toBe(MALFORMED_OBJECT);
  });
  it("visits fields before a later syntax error", () => {
    const seen: string[] = [];
    const line = '{"a": 1, "b": "x" garbage';
    const err = objectEach(line, 0, line.length, (k) => {
      seen.push(k);
      return undefined;
    });
    expect(seen).toEqual(["a", "b"]);
    expect(err).toBe(MALFORMED_OBJECT);
  });
  it("unescapes strings, rejecting bad escapes and lone surrogates", () => {
    expect(unescapeJson('quoted \\"value\\" \\u00e9 \\ud83d\\ude00')).toBe('quoted "value" \u00e9 \u{1F600}');
    expect(unescapeJson("bad \\x")).toBeUndefined();
    expect(unescapeJson("\\ud83d alone")).toBeUndefined();
  });
});

describe("patterns", () => {
  const nginx = compilePattern('<ip> - - [<ts>] "<method> <uri> <_>" <code> <bytes> <_>', true);
  const line = '10.3.61.209 - - [01/Feb/2026:02:59:42 +0000] "GET /api/v1/orders HTTP/1.1" 200 175859 "-" "curl/8.5.0"';
  it("captures up to the next literal", () => {
    expect(nginx.names).toEqual(["ip", "ts", "method", "uri", "code", "bytes"]);
    expect(matchPattern(nginx, line)).toEqual([
      "10.3.61.209",
      "01/Feb/2026:02:59:42 +0000",
      "GET",
      "/api/v1/orders",
      "200",
      "175859",
    ]);
  });
  it("returns the rest of the line for a capture whose literal is missing", () => {
    expect(matchPattern(compilePattern("<a> | <b>", true), "no bar here")).toEqual(["no bar here"]);
    expect(matchPattern(compilePattern("x<a>", true), "y1")).toBeNull();
  });
  it("|> needs the whole line covered and non-empty captures", () => {
    const p = compilePattern("<_> bar <_>", false);
    expect(testPattern(p, "foo bar baz")).toBe(true);
    expect(testPattern(p, " bar ")).toBe(false);
    expect(testPattern(compilePattern("<_> bar", false), "foo bar baz")).toBe(false);
    expect(testPattern(compilePattern("foo <_>", false), "foo bar")).toBe(true);
  });
  it("rejects consecutive and duplicate captures", () => {
    expect(() => compilePattern("<a><b>", true)).toThrow(/consecutive/);
    expect(() => compilePattern("<a> <a>", true)).toThrow(/duplicate/);
    expect(() => compilePattern("no captures", true)).toThrow(/at least one capture/);
  });
});
