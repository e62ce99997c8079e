/**
 * The two regex engines behind compileGoRegexp on typical LogQL patterns: V8's backtracking RegExp
 * (through the Go-to-JS translation, used when the pattern's backtracking is provably bounded) and
 * re2js (linear time, used for everything else). Each benchmark runs the pattern over 1000
 * synthetic log lines (≈ 80 bytes), so the mean in milliseconds reads as µs per line.
 */
import { bench, describe } from "vitest";
import { compileGoRegexp, type GoRegexp } from "../../src/logql/go-regexp";
import { RowScanner } from "../../src/origin/rows";
import { rowSource } from "../lib/synthetic";

const N = 1000;
const src = rowSource(7);
const scanner = new RowScanner();
const lines = Array.from({ length: N }, () => scanner.scan(src.next()).line);

let sink = 0;

const PATTERNS: Array<{ name: string; re: string; use: "test" | "exec" }> = [
  { name: "|~ literal alternation", re: "error|timeout|refused", use: "test" },
  { name: "|~ case-insensitive word", re: "(?i)warn", use: "test" },
  { name: "|~ prefix then tail .*", re: "level=(info|warn).*", use: "test" },
  { name: "|~ unbounded middle (\\d+ms)", re: "duration=\\d+ms", use: "test" },
  { name: "| regexp one field", re: "level=(?P<level>\\w+)", use: "exec" },
  { name: "| regexp ip", re: "(?P<ip>\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3})", use: "exec" },
  { name: "| regexp several fields", re: "level=(?P<level>\\S+) .*path=(?P<path>\\S+)", use: "exec" },
];

function run(re: GoRegexp, use: "test" | "exec"): void {
  if (use === "test") {
    for (const l of lines) if (re.test(l)) sink++;
  } else {
    for (const l of lines) sink += re.exec(l)?.groups.length ?? 0;
  }
}

for (const p of PATTERNS) {
  const chosen = compileGoRegexp(p.re).engine;
  describe(`${p.name}: ${p.re} (runs on ${chosen})`, () => {
    const v8 = compileGoRegexp(p.re, { engine: "backtracking" });
    const re2 = compileGoRegexp(p.re, { engine: "linear" });
    bench("V8 RegExp (translated)", () => run(v8, p.use));
    bench("re2js", () => run(re2, p.use));
  });
}

describe("catastrophic: (a+)+$ over one 100 KB line of `a` and `!`", () => {
  const line = `${"a".repeat(100 * 1024)}!`;
  const re2 = compileGoRegexp("(a+)+$");
  bench("re2js (V8 would not finish)", () => {
    if (re2.test(line)) sink++;
  });
});

process.on("exit", () => {
  if (sink < 0) console.log(sink);
});
