import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { escapeRegex, quote, stringMatch } from "../../../src/plan/logsql";
import { planLogQuery } from "../../../src/plan/logquery";
import { lineFilterToLogsQL } from "../../../src/plan/linefilter";
import { streamFilter } from "../../../src/plan/selector";
import { parseExpr } from "../../../src/logql/parser";
import type { LogSelectorExpr } from "../../../src/logql/ast";

const HOSTILE = [
  '"',
  "\\",
  '\\"',
  "`",
  "a | delete _msg",
  '" | delete _msg | "',
  'x" or _msg:*',
  "line\nbreak",
  "nul\u0000byte",
  "ünïcødé ☕ 日本語".repeat(50),
  "\ud800 lone surrogate",
  ")(]}{[",
];

/** Reads one LogsQL double-quoted token starting at `s[i]`; returns its end index. */
function endOfQuoted(s: string, i: number): number {
  expect(s[i]).toBe('"');
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === "\\") j++;
    else if (s[j] === '"') return j + 1;
  }
  throw new Error(`unterminated string in ${s}`);
}

describe("LogsQL quoting", () => {
  it.each(HOSTILE)("keeps %j one token that reads back as the input", (input) => {
    const q = quote(input);
    expect(endOfQuoted(q, 0)).toBe(q.length);
    expect(JSON.parse(q)).toBe(input.toWellFormed());
    expect(q).not.toMatch(/[\n\u0000]/);
  });

  it("holds for arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (input) => {
        const q = quote(input);
        return endOfQuoted(q, 0) === q.length && JSON.parse(q) === input;
      }),
    );
  });

  it("escapes every RE2 metacharacter of a substring filter", () => {
    expect(escapeRegex("a.b(c)[d]{e}|f*g+h?i^j$k\\l")).toBe("a\\.b\\(c\\)\\[d\\]\\{e\\}\\|f\\*g\\+h\\?i\\^j\\$k\\\\l");
    const re = new RegExp(escapeRegex("[01/Feb/2026:02:1"));
    expect(re.test('10.0.0.1 - - [01/Feb/2026:02:15:00 +0000] "GET /"')).toBe(true);
    expect(re.test("01/Feb/2026:02:1")).toBe(false);
  });
});

describe("planning", () => {
  it("turns substring filters into escaped regex filters and keeps regex filters as written", () => {
    expect(lineFilterToLogsQL({ kind: "LineFilter", op: "|=", values: [{ type: "string", value: "app.js" }] })).toBe(
      '_msg:~"app\\\\.js"',
    );
    expect(lineFilterToLogsQL({ kind: "LineFilter", op: "!~", values: [{ type: "string", value: "ok=true" }] })).toBe(
      '!(_msg:~"ok=true")',
    );
    expect(
      lineFilterToLogsQL({
        kind: "LineFilter",
        op: "|=",
        values: [
          { type: "string", value: "refused" },
          { type: "string", value: "invalid token" },
        ],
      }),
    ).toBe('(_msg:~"refused" or _msg:~"invalid token")');
  });

  it("leaves patterns and ip() to the Worker", () => {
    expect(
      lineFilterToLogsQL({ kind: "LineFilter", op: "|>", values: [{ type: "string", value: "<_> x" }] }),
    ).toBeUndefined();
    expect(
      lineFilterToLogsQL({ kind: "LineFilter", op: "|=", values: [{ type: "ip", cidr: "10.0.0.0/8" }] }),
    ).toBeUndefined();
  });

  it("keeps every line for an empty literal, and none for its negation, whatever else is or'ed", () => {
    const empty = { type: "string" as const, value: "" };
    const x = { type: "string" as const, value: "x" };
    expect(lineFilterToLogsQL({ kind: "LineFilter", op: "|=", values: [empty] })).toBe("*");
    expect(lineFilterToLogsQL({ kind: "LineFilter", op: "|=", values: [x, empty] })).toBe("*");
    expect(lineFilterToLogsQL({ kind: "LineFilter", op: "!=", values: [empty] })).toBe("!*");
    expect(lineFilterToLogsQL({ kind: "LineFilter", op: "!=", values: [x, empty] })).toBe("!*");
  });

  it("pushes line filters before the first line_format and keeps the rest local", () => {
    const plan = planLogQuery(
      parseExpr(
        '{app="a", ns=~"p.*"} |= "x" | json | status >= 500 |~ "y" | line_format "{{.a}}" |= "z"',
      ) as LogSelectorExpr,
    );
    expect(plan.logsql).toBe('{app="a",ns=~"p.*"} _msg:~"x" _msg:~"y"');
    expect(plan.local.map((s) => s.kind)).toEqual(["JsonParser", "LabelFilter", "LineFormat", "LineFilter"]);
    expect(plan.localKeepsEveryRow).toBe(false);
  });

  it("sends line filters after decolorize as supersets: their rows, and the lines it may change", () => {
    const plan = planLogQuery(
      parseExpr('{app="a"} |= "x" | decolorize != "y" | logfmt | line_format "{{.a}}" |= "z"') as LogSelectorExpr,
    );
    expect(plan.logsql).toBe(String.raw`{app="a"} _msg:~"x" (!(_msg:~"y") or _msg:~"[\\x1b\\x{9b}]")`);
    expect(plan.local.map((s) => s.kind)).toEqual([
      "Decolorize",
      "LineFilter",
      "LogfmtParser",
      "LineFormat",
      "LineFilter",
    ]);
  });

  it("keeps line filters after | unpack local: a packed line's _entry becomes the line they read", () => {
    const plan = planLogQuery(parseExpr('{app="a"} |= "x" | unpack != "a" | decolorize |= "b"') as LogSelectorExpr);
    expect(plan.logsql).toBe('{app="a"} _msg:~"x"');
    expect(plan.local.map((s) => s.kind)).toEqual(["UnpackParser", "LineFilter", "Decolorize", "LineFilter"]);
  });

  it("lets the origin cut to the limit when no local stage can drop rows", () => {
    const plan = planLogQuery(parseExpr('{app="a"} |= "x" | logfmt | drop level') as LogSelectorExpr);
    expect(plan.localKeepsEveryRow).toBe(true);
  });

  it("rejects an invalid line-filter regex with Loki's message before anything is sent", () => {
    expect(() => planLogQuery(parseExpr('{app="nginx"} |~ "(unclosed"') as LogSelectorExpr)).toThrow(
      "parse error : stage '|~ \"(unclosed\"' : error parsing regexp: missing closing ): `(unclosed`",
    );
  });

  it("quotes hostile selector values", () => {
    for (const v of HOSTILE) {
      const f = streamFilter([{ name: "app", op: "=", value: v }]);
      expect(f.startsWith('{app="')).toBe(true);
      expect(endOfQuoted(f, 5)).toBe(f.length - 1);
    }
  });
});

describe("stringMatch", () => {
  it("anchors regexes as Loki's label matchers are, but tests literals wrapped in (?s:.*) anywhere", () => {
    expect(stringMatch("f", "=~", "a.*")).toBe('f:~"^(?:a.*)$"');
    expect(stringMatch("f", "=~", "(?s:.*)(?:GET|P\\.T)(?s:.*)")).toBe('f:~"GET|P\\\\.T"');
    expect(stringMatch("f", "!~", "(?s:.*)(?:y)(?s:.*)")).toBe('-f:~"y"');
    // Not literals only, or an alternation at the top: anchored as written.
    for (const value of [
      "(?s:.*)(?:a)|(?:b)(?s:.*)",
      "(?s:.*)(?:a.b)(?s:.*)",
      "(?s:.*)(?:\\d)(?s:.*)",
      "(?s:.*)(?:)(?s:.*)",
      ".*(?:a).*",
      "(?s:.*)(?:(?:a))(?s:.*)",
    ]) {
      expect(stringMatch("f", "=~", value)).toBe(`f:~${quote(`^(?:${value})$`)}`);
    }
  });

  it("tests literals anywhere exactly where the anchored regex holds of the whole value", () => {
    const literal = fc.string({
      unit: fc.constantFrom("a", "b", ".", "*", "(", ")", "|", "\\", "\n", "é"),
      minLength: 1,
      maxLength: 3,
    });
    fc.assert(
      fc.property(
        fc.array(literal, { minLength: 1, maxLength: 3 }),
        fc.string({ unit: fc.constantFrom("a", "b", ".", "(", "|", "\\", "\n", "é", "x"), maxLength: 8 }),
        (needles, value) => {
          const regex = needles.map(escapeRegex).join("|");
          const logsql = stringMatch("f", "=~", `(?s:.*)(?:${regex})(?s:.*)`);
          const unanchored = JSON.parse(logsql.slice("f:~".length)) as string;
          expect(unanchored).toBe(regex);
          const anchored = new RegExp(`^(?:[\\s\\S]*(?:${regex})[\\s\\S]*)$`, "u");
          expect(new RegExp(unanchored, "u").test(value)).toBe(anchored.test(value));
        },
      ),
    );
  });
});
