/**
 * The two engines behind compileGoRegexp agree: every regex of the compat cases and of the shared
 * LogQL corpus (when ../shared is present), plus a hand list, runs through the translated JS
 * RegExp and through re2js over generated strings; match/no-match and every capture group must be
 * the same. Cases where the translation and Go differ are pinned in go-regexp.test.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { compileGoRegexp } from "../../../src/logql/go-regexp";
import { parseExpr } from "../../../src/logql/parser";
import { goRegexError } from "../../../src/logql/regex";

interface Use {
  src: string;
  anchored: boolean;
}

/** Every regex of a parsed query, with how the Worker runs it (matchers and label filters anchored). */
function collect(node: unknown, out: Map<string, Use>): void {
  if (Array.isArray(node)) {
    for (const x of node) collect(x, out);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const o = node as Record<string, unknown>;
  const add = (src: unknown, anchored: boolean) => {
    if (typeof src === "string" && goRegexError(src) === undefined) out.set(`${anchored}:${src}`, { src, anchored });
  };
  if ((o.op === "=~" || o.op === "!~") && typeof o.value === "string") add(o.value, true);
  if (o.kind === "LineFilter" && (o.op === "|~" || o.op === "!~")) {
    for (const v of o.values as Array<{ value?: string }>) add(v.value, false);
  }
  if (o.kind === "RegexpParser") add(o.regex, false);
  if (o.kind === "LabelReplace") add(o.regex, true);
  for (const v of Object.values(o)) collect(v, out);
}

/** Whether ../shared's LogQL corpus was found beside the checkout (it is absent in a bare clone). */
let sharedCorpusRead = false;

function corpusRegexes(): Use[] {
  const out = new Map<string, Use>();
  const queries: string[] = [];
  const cases = JSON.parse(readFileSync(resolve(__dirname, "../../fixtures/compat/cases.json"), "utf8")) as Array<{
    params: Record<string, string>;
  }>;
  for (const c of cases) if (c.params.query) queries.push(c.params.query);
  // ../shared is absent outside the development checkout: then the compat cases and hand list
  // remain (and it is said). A corpus that is there but unreadable fails the suite.
  const sharedValid = resolve(process.cwd(), "../shared/logql/valid.json");
  if (existsSync(sharedValid)) {
    const valid = JSON.parse(readFileSync(sharedValid, "utf8")) as Array<{ query: string }>;
    for (const v of valid) queries.push(v.query);
    sharedCorpusRead = true;
  } else {
    console.warn(`Go regexp equivalence: no LogQL corpus at ${sharedValid}; compat cases and the hand list only`);
  }
  for (const q of queries) {
    try {
      collect(parseExpr(q), out);
    } catch {
      // Queries that do not parse carry no regex the Worker would run.
    }
  }
  return [...out.values()];
}

const HAND: Use[] = [
  "(?P<x>(a+)+$)",
  "(a|ab)(c|bcd)(d*)",
  "(a)|b",
  "(x+x+)+y",
  "^(\\w+\\s?)*$",
  "(?i)straße",
  "(?i)k",
  "(?U)a+(b+)",
  "(?s)a.b",
  "a.b",
  "^$",
  "\\bfoo\\b",
  "[^a]",
  ".",
  "😀+",
  "[😀-😂]",
  "\\pL+",
  "\\p{Greek}+",
  "[[:alpha:]]+",
  "\\Qa.b\\E+",
  "a{2,3}?",
  "(?m)^b$",
  "\\d+ms$",
  "(?P<ip>\\d{1,3}(?:\\.\\d{1,3}){3})",
  "level=(?P<level>\\w+)",
  "x*",
  "",
  "|a",
  "(a|b)*?c",
  "\\B",
  "x\\B",
  "(?m)$",
  "(?m)^",
  "(?m)^b$",
  "\\A",
  "\\z",
  "(a?){2}",
  "^[^x]*$",
].flatMap((src) => [
  { src, anchored: false },
  { src, anchored: true },
]);

/** About `count` log lines of the compat dataset, every k-th one so that each service's format is in. */
function datasetLines(count: number): string[] {
  const text = gunzipSync(readFileSync(resolve(__dirname, "../../fixtures/compat/dataset-seed7.ndjson.gz"))).toString();
  const lines: string[] = [];
  for (const row of text.split("\n")) {
    if (row === "") continue;
    for (const s of (JSON.parse(row) as { streams: Array<{ values: string[][] }> }).streams) {
      for (const v of s.values) lines.push(v[1]!);
    }
  }
  const k = Math.max(1, Math.floor(lines.length / count));
  return lines.filter((_, i) => i % k === 0);
}

const GENERIC = [
  "",
  "a",
  "ab",
  "abcd",
  "aaaa",
  "aaab",
  "b",
  "xxy",
  "foo bar",
  "foo\n",
  "a\nb",
  "a\rb",
  "ERROR",
  "error",
  "level=error msg=done",
  "GET /api/v1/users 200 12ms",
  "10.0.0.1",
  "héllo wörld",
  "STRASSE straße",
  "\u212a",
  "😀😁😂",
  "x😀y",
  "\t\v\f",
  "\u00a0",
  "a.b",
  "a.bb",
  "ac",
  "abc",
];

/** Strings near a regex: its own text, its text with metacharacters dropped, and both around context. */
function near(src: string): string[] {
  const literal = src.replace(/\\[pP]\{\w+\}|\\.|[()[\]{}*+?|^$.]/g, "");
  return [src, literal, `x ${literal} y`, literal.toUpperCase(), `${literal}\n`, literal.repeat(2)];
}

const compare = (use: Use, inputs: readonly string[]) => {
  const old = compileGoRegexp(use.src, { anchored: use.anchored, engine: "backtracking" });
  const re2 = compileGoRegexp(use.src, { anchored: use.anchored, engine: "linear" });
  const differences: string[] = [];
  for (const s of inputs) {
    const a = old.exec(s);
    const b = re2.exec(s);
    const same =
      old.test(s) === re2.test(s) &&
      JSON.stringify(a && [a.index, a.groups]) === JSON.stringify(b && [b.index, b.groups]);
    if (!same) differences.push(JSON.stringify({ s, old: a?.groups ?? null, re2: b?.groups ?? null }));
  }
  return differences;
};

describe("backtracking (translated) and linear (re2js) engines agree", () => {
  const lines = datasetLines(150);
  const regexes = corpusRegexes();

  it("found the corpus regexes", () => {
    // The compat cases alone hold 17 distinct regexes; the shared corpus adds hundreds.
    expect(regexes.length).toBeGreaterThan(sharedCorpusRead ? 30 : 15);
  });

  it.each([...HAND, ...regexes].map((u) => [`${u.anchored ? "anchored" : "search"} ${u.src}`, u] as const))(
    "%s",
    (_name, use) => {
      expect(compare(use, [...GENERIC, ...near(use.src), ...lines])).toEqual([]);
    },
  );
});
