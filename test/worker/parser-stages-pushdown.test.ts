/**
 * Counting metrics over parsers pushed down with what the parser counting push-down once left to
 * the Worker: fractional constants in numeric filters. Each query is answered pushed down and by the
 * Worker from rows (PUSHDOWN=off) against the real VictoriaLogs, and the answers must agree; the
 * tests also check which answers were pushed (no rows scanned).
 */
import fc from "fast-check";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { pushCounted, pushedAcrossSets, pushedAndLocal } from "./support/metric-answers";
import { expectBucketsNotLines } from "./support/traffic";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const DATA_END = DATA_START + 6 * 3600;
const range = { start: String(DATA_START), end: String(DATA_END), step: "300" };

async function expectPushed(queries: readonly string[]): Promise<void> {
  for (const query of queries) {
    const { pushed, local } = await pushedAndLocal(query, range);
    expect(local.series.size, query).toBeGreaterThan(0);
    expect(local.linesScanned, query).toBeGreaterThan(0);
    expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
  }
}

async function expectLocal(queries: readonly string[]): Promise<void> {
  for (const query of queries) {
    const { pushed } = await pushedAndLocal(query, range);
    expect(pushed.linesScanned, query).not.toBe(0);
  }
}

describe("fractional constants (compat data)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("pushes numeric filters with a fractional constant down", async () => {
    await expectPushed([
      'sum(rate({app="checkout"} | json | latency_ms > 100.5 [5m]))',
      'sum by (status) (count_over_time({app="checkout"} | json | status > 399.5 [5m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | attempt > 2.5 [5m]))',
      'sum by (method) (count_over_time({app="checkout"} | json | drop __error__ | latency_ms <= 0.75e2 [5m]))',
      'sum by (job) (count_over_time({app="worker"} | logfmt | attempt >= 1.5 and attempt < 4.25 [5m]))',
      'sum by (status) (count_over_time({app="checkout"} | json | latency_ms != 50.5 or status == 404.0 [5m]))',
      'sum(count_over_time({app="worker"} | logfmt | attempt > -0.5 [5m]))',
    ]);
  });

  it("keeps constants of more than 6 fraction digits local", async () => {
    await expectLocal([
      'sum(count_over_time({app="checkout"} | json | latency_ms > 100.0000001 [5m]))',
      'sum(count_over_time({app="checkout"} | json | latency_ms > 1e-7 [5m]))',
    ]);
  });

  it("reads buckets instead of lines", async () => {
    await expectBucketsNotLines('sum(rate({app="checkout"} | json | latency_ms > 100.5 [5m]))', {
      start: String(DATA_START),
      end: String(DATA_END),
      step: "60",
    });
  });
});

/**
 * Numbers at, beside and around fractional constants, in every spelling the two sides could read
 * apart: trailing zeros, exponents, more fraction digits than VictoriaLogs reads exactly, negative
 * zero, one unit of the sixth fraction digit away.
 */
describe("fractional constants over generated numbers (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:611" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const CONSTANTS = ["100.5", "-100.5", "0.1", "100.499999", "1.005e2", "999999999.999999", "-0.000001", "7.25"];
  const NEAR = [
    "100.5",
    "100.50",
    "100.500000",
    "100.49999999",
    "100.499999",
    "100.4999990",
    "100.500001",
    "1.005e2",
    "100.4",
    "101",
    "100",
    "-100.5",
    "-100.500",
    "-100.499999",
    "0.1",
    "0.100000",
    "0.099999",
    "0.100001",
    "0.10000000000000001",
    "-0",
    "-0.000001",
    "-0.0000010",
    "0.000000",
    "999999999.999999",
    "999999999.999998",
    "7.25",
    "7.250",
    "7.2500001",
    "7.249999",
    "1e2",
    "0x64",
    "",
  ];
  const num = fc.constantFrom(...NEAR);
  const jsonLine = fc
    .tuple(fc.constantFrom("a", "b"), num)
    .map(([g, n]) => `{"g": "${g}", "num": ${n === "" || /[ex]/.test(n) ? JSON.stringify(n) : n}}`);
  const logfmtLine = fc.tuple(fc.constantFrom("a", "b"), num).map(([g, n]) => `g=${g} num=${n}`);
  const plainNum = fc.constantFrom(...NEAR.filter((n) => /^-?(0|[1-9][0-9]{0,8})(\.[0-9]{1,6})?$/.test(n)));
  interface NumberSet {
    kind: "json" | "logfmt";
    lines: string[];
    plain: boolean;
  }
  const plainSet = (kind: "json" | "logfmt", seed: number): NumberSet => ({
    kind,
    plain: true,
    lines: fc.sample(
      fc
        .tuple(fc.constantFrom("a", "b"), plainNum)
        .map(([g, n]) => (kind === "json" ? `{"g": "${g}", "num": ${n}}` : `g=${g} num=${n}`)),
      { numRuns: 12, seed },
    ),
  });
  const sets: NumberSet[] = [
    // Every spelling at once, in both parsers; then random mixtures and plain decimals only.
    {
      kind: "json",
      plain: false,
      lines: NEAR.map((n) => `{"g": "a", "num": ${n === "" || /[ex]/.test(n) ? JSON.stringify(n) : n}}`),
    },
    { kind: "logfmt", plain: false, lines: NEAR.map((n) => `g=a num=${n}`) },
    ...[1, 2, 3].map((seed) => plainSet("json", seed)),
    ...[4, 5, 6].map((seed) => plainSet("logfmt", seed)),
    ...fc.sample(fc.array(jsonLine, { minLength: 3, maxLength: 12 }), { numRuns: 6, seed: 2611 }).map((lines) => ({
      kind: "json" as const,
      plain: false,
      lines,
    })),
    ...fc.sample(fc.array(logfmtLine, { minLength: 3, maxLength: 12 }), { numRuns: 6, seed: 2612 }).map((lines) => ({
      kind: "logfmt" as const,
      plain: false,
      lines,
    })),
  ];

  beforeAll(async () => {
    const streams = sets.map((set, k) => ({
      stream: { app: "pfrac", set: `s${k}` },
      values: set.lines.map((line, i) => [String(base + BigInt(i * 7 + k) * 1_000_000_000n), line]),
    }));
    await pushCounted("26:611", "pfrac", streams, DATA_START);
  });

  const shapes = (kind: "json" | "logfmt", sel: string) => {
    const parser = kind === "json" ? "json | drop __error__, __error_details__" : "logfmt";
    return CONSTANTS.flatMap((c, i) => [
      `sum by (g) (count_over_time(${sel} | ${parser} | num ${[">", ">=", "<", "<="][i % 4]} ${c} [1m]))`,
      `sum by (g) (count_over_time(${sel} | ${parser} | num ${["==", "!=", "=", "!="][i % 4]} ${c} [30s]))`,
      `sum(count_over_time(${sel} | ${parser} | num ${["<=", "<", ">=", ">"][i % 4]} ${c} or g="b" [1m]))`,
    ]);
  };

  it("every set and constant: pushed equals local; sets of plain decimals are pushed", async () => {
    const { pushedAsRequired, fellBack } = await pushedAcrossSets(
      sets.length,
      (k) => shapes(sets[k]!.kind, `{app="pfrac", set="s${k}"}`),
      (k) => sets[k]!.plain,
      DATA_START,
      TENANT,
    );
    expect(pushedAsRequired).toBeGreaterThan(100);
    expect(fellBack).toBeGreaterThan(20);
  }, 300_000);
});
