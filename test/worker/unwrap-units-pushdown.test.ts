/**
 * `unwrap duration(f)`, `duration_seconds(f)` and `bytes(f)` pushed down: every query is answered
 * twice against the real VictoriaLogs — pushed, and evaluated by the Worker from rows
 * (PUSHDOWN=off) — and the two must agree. Generated values cover every unit, decimals, the digit
 * limits of the shape and values outside it (several units, signs, exponents, spaces, fractions of
 * a byte, huge values, garbage); sets whose values are all of the shape must be pushed (no rows
 * read in the Worker), the others fall back to rows with the same answer.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { pushCounted, pushedAcrossSets, pushedAndLocal } from "./support/metric-answers";
import { expectBucketsNotLines } from "./support/traffic";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const DATA_END = DATA_START + 6 * 3600;

describe("conversions on the compat data", () => {
  const range = { start: String(DATA_START), end: String(DATA_END), step: "300" };

  it("pushes Grafana's duration and size panels down, with the local answer", async () => {
    for (const query of [
      'avg_over_time({app="checkout"} | json | unwrap duration(duration) [5m]) by (path)',
      'sum by (job) (sum_over_time({app="worker"} | logfmt | unwrap bytes(size) [5m]))',
      'quantile_over_time(0.99, {app="worker"} | logfmt | unwrap duration(duration) [5m]) by (job)',
      'max_over_time({app="auth"} | logfmt | unwrap duration_seconds(duration) [5m]) by (job)',
      'min by (cluster) (min_over_time({app=~"checkout|payments"} | json | unwrap duration(duration) | __error__="" [10m]))',
      'sum by (app) (sum_over_time({app="checkout"} | json | unwrap bytes(bytes) [5m]))',
      'max_over_time({app="worker"} | logfmt | unwrap bytes(size) [5m]) by (pod)',
      'quantile_over_time(0.5, {app="checkout"} | json | unwrap duration_seconds(duration) [5m]) by (method)',
    ]) {
      const { pushed, local } = await pushedAndLocal(query, range);
      expect(local.series.size, query).toBeGreaterThan(0);
      expect(local.linesScanned, query).toBeGreaterThan(0);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    }
  });

  it("answers instant queries pushed down, with the local answer", async () => {
    for (const query of [
      'avg_over_time({app="checkout"} | json | unwrap duration(duration) [10m]) by (path)',
      'quantile_over_time(0.9, {app="worker"} | logfmt | unwrap bytes(size) [1h]) by (job)',
      'min by (pod) (min_over_time({app="auth"} | logfmt | unwrap duration_seconds(duration) [30m]))',
    ]) {
      const { pushed, local } = await pushedAndLocal(query, { time: String(DATA_START + 3 * 3600) });
      expect(local.series.size, query).toBeGreaterThan(0);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    }
  });

  it("sends buckets, not lines", async () => {
    await expectBucketsNotLines(
      'sum by (job) (sum_over_time({app="worker"} | logfmt | unwrap bytes(size) [5m]))',
      range,
      { atLeast: 1000 },
    );
    await expectBucketsNotLines(
      'avg_over_time({app="checkout"} | json | unwrap duration(duration) [5m]) by (path)',
      range,
      { atLeast: 1000 },
    );
  });
});

const digits = (max: number) => fc.integer({ min: 0, max: 10 ** max - 1 }).map((n) => String(n));
const fractionOf = (max: number) =>
  fc.option(
    fc.integer({ min: 1, max }).chain((d) => fc.stringMatching(new RegExp(`^[0-9]{${d}}$`)).map((f) => `.${f}`)),
    { nil: "" },
  );

/** Durations of the shape: per unit, the integer and fraction digits Go converts exactly. */
const shapedDuration = fc
  .oneof(
    fc.tuple(digits(9), fc.constant(""), fc.constant("ns")),
    fc.tuple(digits(9), fractionOf(3), fc.constantFrom("us", "µs", "μs")),
    fc.tuple(digits(9), fractionOf(6), fc.constantFrom("ms", "s")),
    // Seconds as Go's Duration.String() writes a span under a minute: whole nanoseconds.
    fc.tuple(
      digits(5),
      fc.integer({ min: 7, max: 9 }).chain((d) => fc.stringMatching(new RegExp(`^\\.[0-9]{${d}}$`))),
      fc.constant("s"),
    ),
    fc.tuple(digits(8), fractionOf(6), fc.constant("m")),
    fc.tuple(digits(6), fractionOf(6), fc.constant("h")),
    // Everyday values: small, with short fractions.
    fc.tuple(digits(3), fractionOf(2), fc.constantFrom("ms", "s", "m", "h", "us")),
  )
  .map(([n, f, u]) => `${n}${f}${u}`);

/** Durations of several parts, as Go's Duration.String() writes a minute or more, and others. */
const compoundDuration = fc.oneof(
  fc
    .tuple(digits(2), digits(2), digits(2), fractionOf(9))
    .map(([h, m, s, f]) => `${h === "0" ? "" : `${h}h`}${m}m${s}${f}s`),
  fc
    .array(fc.tuple(digits(3), fractionOf(3), fc.constantFrom("h", "m", "s", "ms", "us", "µs", "ns")), {
      minLength: 2,
      maxLength: 4,
    })
    .map((parts) => parts.map(([n, f, u]) => `${n}${f}${u}`).join("")),
  fc.constantFrom("1h30m", "2m3.5s", "1m0.000000001s", "1h0m0s"),
);

/** Durations Go reads (or rejects) that the shape leaves to local evaluation. */
const OTHER_DURATIONS = [
  "-1m30s",
  "1m 30s",
  "1h2m3s4ms5ns",
  "-5s",
  "+5s",
  "-0s",
  "1.5ns",
  "1.2345us",
  "123456.1234567s",
  "1.1234567ms",
  "1e3ms",
  "5 ms",
  "5",
  "0",
  "007ms",
  ".5s",
  "5.s",
  "5d",
  "5MS",
  "µs",
  "1000000h",
  "9999999999s",
  "2562048h",
  "nope",
];

/** Byte sizes of the shape: integers, every unit spelling go-humanize reads, in several cases. */
const shapedBytes = fc
  .oneof(
    fc.tuple(
      digits(9),
      fc.constantFrom(
        "",
        "B",
        "b",
        "K",
        "k",
        "KB",
        "kB",
        "kb",
        "Ki",
        "KiB",
        "kib",
        "M",
        "MB",
        "mb",
        "MiB",
        "G",
        "GB",
        "GiB",
        "gi",
      ),
    ),
    fc.tuple(digits(6), fc.constantFrom("T", "TB", "tb", "TiB", "Ti")),
    fc.tuple(digits(4), fc.constantFrom("", "B", "KB", "MB")),
    // A fraction with a unit, which go-humanize truncates after a float product: 2.01kb is 2009
    // bytes, so a sum of the decimals scaled once (4.02kb, 4020) is not Loki's (4018).
    fc
      .tuple(
        fc.tuple(
          digits(9),
          fc.integer({ min: 1, max: 6 }).chain((d) => fc.stringMatching(new RegExp(`^\\.[0-9]{${d}}$`))),
        ),
        fc.constantFrom("B", "b", "K", "kB", "kb", "Ki", "KiB", "mb", "MiB", "G", "gib"),
      )
      .map(([[n, f], u]) => [`${n}${f}`, u] as const),
    fc.tuple(
      fc.constantFrom("2.01", "8.19", "1.2", "0.1", "2.675", "0.000001"),
      fc.constantFrom("kb", "KB", "MiB", "GB"),
    ),
  )
  .map(([n, u]) => `${n}${u}`);

const OTHER_BYTES = [
  "1.5",
  "1.1234567KB",
  "1.5TB",
  "1 KB",
  "1,000KB",
  "2PB",
  "3EiB",
  "1e3",
  "-5",
  "+5",
  "007",
  "5kB ",
  "0x10",
  "12KBs",
  "nope",
  "1000000TB",
];

/** A line carrying `v` as `parser` writes it (JSON: a bare integer as a number, sometimes). */
function lineOf(parser: "json" | "logfmt", v: string, k: number, i: number): string {
  const level = `l${(k + i) % 3}`;
  if (parser === "logfmt") return `level=${level} v=${/[\s"=]/.test(v) || v === "" ? JSON.stringify(v) : v} msg=done`;
  const bare = /^(0|[1-9][0-9]*)$/.test(v) && i % 2 === 0;
  return `{"msg": "probe", "level": "${level}", "v": ${bare ? v : JSON.stringify(v)}}`;
}

describe.each([
  {
    conversion: "duration",
    shaped: fc.oneof(shapedDuration, compoundDuration),
    other: OTHER_DURATIONS,
    tenant: "36:1",
  },
  { conversion: "bytes", shaped: shapedBytes, other: OTHER_BYTES, tenant: "36:2" },
] as const)("generated $conversion values (property, real VictoriaLogs)", ({ conversion, shaped, other, tenant }) => {
  const headers = { "X-Scope-OrgID": tenant };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const setOf = fc.record({
    shaped: fc.array(shaped, { minLength: 1, maxLength: 10 }),
    other: fc.array(fc.constantFrom(...other), { maxLength: 2 }),
  });
  // Every other value once on its own among shaped ones, shaped-only sets, then random mixtures.
  const sets = [
    ...other.map((v, k) => ({ shaped: fc.sample(shaped, { numRuns: 3, seed: k }), other: [v] })),
    ...fc.sample(fc.array(shaped, { minLength: 1, maxLength: 12 }), { numRuns: 12, seed: 3601 }).map((s) => ({
      shaped: s,
      other: [] as string[],
    })),
    ...fc.sample(setOf, { numRuns: 8, seed: 3602 }),
  ];
  const parsers = ["json", "logfmt"] as const;

  beforeAll(async () => {
    const streams = parsers.flatMap((parser) =>
      sets.map((set, k) => ({
        stream: { app: "units", parser, set: `s${k}` },
        // One line every 7 s, so windows hold several and cut sets in between.
        values: [...set.shaped, ...set.other].map((v, i) => [
          String(base + BigInt(i * 7 + (k % 5)) * 1_000_000_000n),
          lineOf(parser, v, k, i),
        ]),
      })),
    );
    await pushCounted(tenant, "units", streams, DATA_START);
  });

  const conversions = conversion === "duration" ? ["duration", "duration_seconds"] : ["bytes"];
  const queriesOf = (k: number) =>
    parsers.flatMap((parser) =>
      conversions.flatMap((c) => {
        const s = (errf: string) =>
          `{app="units", parser="${parser}", set="s${k}"} | ${parser} | unwrap ${c}(v)${errf}`;
        return [
          `sum by (set) (sum_over_time(${s("")} [1m]))`,
          `avg_over_time(${s(' | __error__=""')} [30s]) by (set)`,
          `max_over_time(${s("")} [1m]) by (level)`,
          `min by (set) (min_over_time(${s(' | __error__=""')} [40s]))`,
          `quantile_over_time(0.9, ${s("")} [1m]) by (set)`,
          `sum by (level) (sum_over_time(${s(' | __error__=""')} [1m]))`,
          // Evaluated by the Worker from the values' texts (projected, over JSON).
          `stddev_over_time(${s("")} [1m]) by (set)`,
        ];
      }),
    );

  it("every set and shape: pushed equals local; sets of the shape are pushed", async () => {
    const { pushedAsRequired, fellBack } = await pushedAcrossSets(
      sets.length,
      queriesOf,
      (k, query) => sets[k]!.other.length === 0 && !query.startsWith("stddev"),
      DATA_START,
      headers,
    );
    // The property must exercise both the push-down and its fallback.
    expect(pushedAsRequired).toBeGreaterThan(100);
    expect(fellBack).toBeGreaterThan(50);
  });
});

/**
 * Go's Duration.String() of longer spans (`1h2m3.5s`, as slog's text handler writes a latency):
 * not one decimal and one unit, so sums and extremes stay local, but a quantile's values travel as
 * texts the Worker converts as local evaluation does, so the quantile is pushed.
 */
describe("Go's compound durations under a quantile (property, real VictoriaLogs)", () => {
  const headers = { "X-Scope-OrgID": "36:3" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const span = fc
    .tuple(
      fc.integer({ min: 0, max: 30 }),
      fc.integer({ min: 0, max: 59 }),
      fc.integer({ min: 0, max: 59 }),
      fc.integer({ min: 0, max: 999_999_999 }),
    )
    .map(([h, m, s, ns]) => {
      const sec = ns === 0 ? `${s}` : `${s}.${String(ns).padStart(9, "0").replace(/0+$/, "")}`;
      return h > 0 ? `${h}h${m}m${sec}s` : m > 0 ? `${m}m${sec}s` : `${sec}s`;
    });
  const value = fc.oneof(span, fc.constantFrom("250µs", "1.5ms", "-2s", "+1m", "3μs", "40us"));
  const sets = fc.sample(fc.array(value, { minLength: 2, maxLength: 10 }), { numRuns: 10, seed: 3603 });
  const parsers = ["json", "logfmt"] as const;

  beforeAll(async () => {
    const streams = parsers.flatMap((parser) =>
      sets.map((set, k) => ({
        stream: { app: "spans", parser, set: `s${k}` },
        values: set.map((v, i) => [String(base + BigInt(i * 7 + (k % 5)) * 1_000_000_000n), lineOf(parser, v, k, i)]),
      })),
    );
    await pushCounted("36:3", "spans", streams, DATA_START);
  });

  it("pushes quantiles of them, with the local answer", async () => {
    const { pushedAsRequired } = await pushedAcrossSets(
      sets.length,
      (k) =>
        parsers.flatMap((parser) =>
          ["duration", "duration_seconds"].flatMap((c) => {
            const s = `{app="spans", parser="${parser}", set="s${k}"} | ${parser} | unwrap ${c}(v)`;
            return [
              `quantile_over_time(0.9, ${s} [1m]) by (set)`,
              `quantile_over_time(0.5, ${s} | __error__="" [30s]) by (level)`,
              `sum by (set) (sum_over_time(${s} [1m]))`,
            ];
          }),
        ),
      (_, query) => query.startsWith("quantile"),
      DATA_START,
      headers,
    );
    expect(pushedAsRequired).toBe(sets.length * 8);
  });
});
