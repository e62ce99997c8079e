/**
 * Pattern line filters (`|>`, `!>`) evaluated by VictoriaLogs (plan/pattern-filter.ts) must keep
 * exactly the lines Loki's test keeps (engine/pipeline/pattern.ts `testPattern`, which the compat
 * cases hold to Loki's answers). Generated lines over a small alphabet (so literals recur, overlap,
 * sit right after each other and at the line's ends) and generated patterns are asked of the
 * Worker against the real VictoriaLogs: the lines it answers are those the test keeps, and the
 * origin sent no others.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { pushCounted, pushedAndLocal } from "./support/metric-answers";
import { queryRange } from "./support/request";
import { patternFilterPipes } from "../../src/plan/pattern-filter";
import { compilePattern, testPattern } from "../../src/engine/pipeline/pattern";

const TENANT = { "X-Scope-OrgID": "36:41" };
const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const base = BigInt(DATA_START) * 1_000_000_000n;
const range = { start: String(DATA_START), end: String(DATA_START + 600) };

/** The lines of a log query's answer, and the rows the Worker read for it. */
async function answer(query: string): Promise<{ lines: string[]; scanned: number }> {
  const res = await queryRange(
    { query, limit: "5000", direction: "forward", ...range },
    { headers: TENANT, env: { CACHE: "off" } },
  );
  expect(res.status, res.body).toBe(200);
  const lines: string[] = [];
  for (const s of res.json.data.result) for (const [, line] of s.values) lines.push(line);
  return { lines: lines.sort(), scanned: res.json.data.stats.summary.totalLinesProcessed };
}

/** The lines passing `op patterns[0] or patterns[1] …` by Loki's test. */
function passing(lines: readonly string[], op: "|>" | "!>", patterns: readonly string[]): string[] {
  const compiled = patterns.map((p) => compilePattern(p, false));
  const matches = (l: string) => compiled.some((p) => testPattern(p, l));
  return lines.filter((l) => matches(l) === (op === "|>")).sort();
}

const piece = fc.constantFrom("a", "b", " ", "ab", "ba", "=", '"', "x", "aa", " a ");
// Not empty: VictoriaLogs stores no empty message (it keeps a default text in its place).
const line = fc.array(piece, { minLength: 1, maxLength: 8 }).map((parts) => parts.join(""));
const literal = fc.constantFrom("a", "b", " ", "ab", "a b", "=", '"x"', "aa", " a", "b ", "xa");
const capture = fc.constantFrom("<_>", "<v>", "<w>");
/** Literals and captures alternating (no two captures in a row), at least one capture. */
const pattern = fc
  .tuple(
    fc.boolean(),
    fc.array(literal, { minLength: 1, maxLength: 3 }),
    fc.boolean(),
    fc.array(capture, { maxLength: 4 }),
  )
  .map(([startsWithCapture, literals, endsWithCapture, captures]) => {
    const names = new Set<string>();
    const cap = (i: number) => {
      let c = captures[i % Math.max(captures.length, 1)] ?? "<_>";
      // Loki refuses a name captured twice: later ones are anonymous.
      if (c !== "<_>" && names.has(c)) c = "<_>";
      names.add(c);
      return c;
    };
    let text = startsWithCapture ? cap(0) : "";
    literals.forEach((lit, i) => {
      text += lit;
      if (i < literals.length - 1 || endsWithCapture) text += cap(i + 1);
    });
    return text;
  })
  .filter((p) => p.includes("<"));

describe("pattern line filters in VictoriaLogs", () => {
  const lines = fc.sample(line, { numRuns: 120, seed: 3641 });
  const patterns = fc.sample(pattern, { numRuns: 60, seed: 3642 });

  beforeAll(async () => {
    const streams = [
      {
        stream: { app: "pfilt" },
        values: lines.map((l, i) => [String(base + BigInt(i) * 1_000_000_000n), l]),
      },
    ];
    await pushCounted("36:41", "pfilt", streams, DATA_START);
  });

  it("keeps exactly the lines Loki's test keeps, and the others for `!>`", async () => {
    let kept = 0;
    let pushedPatterns = 0;
    for (const p of patterns) {
      for (const op of ["|>", "!>"] as const) {
        const query = `{app="pfilt"} ${op} ${JSON.stringify(p)}`;
        const { lines: got, scanned } = await answer(query);
        const expected = passing(lines, op, [p]);
        expect(got, query).toEqual(expected);
        if (op === "|>") kept += expected.length;
        // Evaluated by the origin: it sent no line the filter drops.
        if (patternFilterPipes({ kind: "LineFilter", op, values: [{ type: "string", value: p }] }, 0)) {
          expect(scanned, query).toBe(expected.length);
          if (op === "|>") pushedPatterns++;
        }
      }
    }
    // The generated patterns keep some lines and are (mostly) evaluated by the origin.
    expect(kept).toBeGreaterThan(patterns.length);
    expect(pushedPatterns).toBeGreaterThan(patterns.length / 2);
  });

  it("`or` alternatives, several filters, and counting metrics computed by the origin", async () => {
    for (const [a, b] of [
      ["<_> a <_>", "<_>b"],
      ["a<_>", "<_>=<_>"],
      ["<_>x", "ab <_> a"],
    ] as const) {
      for (const [query, expected] of [
        [`{app="pfilt"} |> ${JSON.stringify(a)} or ${JSON.stringify(b)}`, passing(lines, "|>", [a, b])],
        [`{app="pfilt"} !> ${JSON.stringify(a)} or ${JSON.stringify(b)}`, passing(lines, "!>", [a, b])],
        [
          `{app="pfilt"} |> ${JSON.stringify(a)} !> ${JSON.stringify(b)}`,
          passing(passing(lines, "|>", [a]), "!>", [b]),
        ],
      ] as const) {
        const { lines: got, scanned } = await answer(query);
        expect(got, query).toEqual(expected);
        expect(scanned, query).toBe(expected.length);
      }
      for (const metric of [
        `sum(count_over_time({app="pfilt"} |> ${JSON.stringify(a)} [1m]))`,
        // One series per Loki series (the origin groups by stream, metadata and level inputs).
        `count_over_time({app="pfilt"} |> ${JSON.stringify(a)} [1m])`,
        `max by (app) (rate({app="pfilt"} !> ${JSON.stringify(b)} [2m]))`,
      ]) {
        const answers = await pushedAndLocal(metric, { ...range, step: "60" }, TENANT);
        expect(answers.pushed.linesScanned, `${metric} was not pushed down`).toBe(0);
        expect(answers.local.series.size, metric).toBeGreaterThan(0);
      }
    }
  });
});
