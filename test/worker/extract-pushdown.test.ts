/**
 * Counting metrics over `| regexp` / `| pattern` pushed down (VictoriaLogs' `extract_regexp`) must
 * never change an answer. Every query is answered pushed down and evaluated by the Worker from rows
 * (PUSHDOWN=off), and the two must agree; generated lines cover what the two sides could read
 * differently (lines the pattern matches partly or not at all, literals repeated, empty captures,
 * unicode, control characters, number spellings, stream and metadata labels of a captured name).
 * The tests also check which answers were pushed (no rows scanned), so the property never just
 * compares local evaluation with itself.
 */
import fc from "fast-check";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { lineSetStreams, pushCounted, pushedAcrossSets, pushedAndLocal } from "./support/metric-answers";
import { expectBucketsNotLines } from "./support/traffic";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const DATA_END = DATA_START + 6 * 3600;

const NGINX_PATTERN = String.raw`<ip> - - [<_>] \"<method> <path> <_>\" <status> <size> <_>`;

describe("regexp and pattern push-down on the compat data", () => {
  const range = { start: String(DATA_START), end: String(DATA_END), step: "300" };

  it("pushes counting metrics over nginx lines down", async () => {
    for (const query of [
      `sum by (status) (count_over_time({app="nginx"} | pattern "${NGINX_PATTERN}" [1m]))`,
      `sum by (method, path) (rate({app="nginx"} | pattern "${NGINX_PATTERN}" | status >= 400 [5m]))`,
      `sum(bytes_over_time({app="nginx"} | pattern "${NGINX_PATTERN}" | size > 100000 [10m]))`,
      String.raw`sum by (method) (rate({app="nginx"} | regexp "\"(?P<method>\\w+) (?P<path>\\S+)" | path=~"/api/.*" [5m]))`,
      String.raw`sum by (code) (count_over_time({app="nginx"} | regexp "HTTP/1\\.1\" (?P<code>\\d{3})" | __error__="" [10m]))`,
      String.raw`sum by (method) (count_over_time({app="nginx"} | regexp "\" (?P<code>\\d+) (?P<size>\\d+)" | code >= 400 or size < 1000 [10m]))`,
      String.raw`sum by (job, status) (bytes_rate({app="nginx"} |= "GET" | pattern "<_> \"<_> <_> <_>\" <status> <_>" [15m]))`,
      // Unwrapped captures: the nginx panels' bytes sent.
      `sum by (method) (sum_over_time({app="nginx"} | pattern "${NGINX_PATTERN}" | unwrap size [5m]))`,
      `quantile_over_time(0.95, {app="nginx"} | pattern "${NGINX_PATTERN}" | status >= 400 | unwrap size [5m]) by (status)`,
      String.raw`avg_over_time({app="nginx"} | regexp "\" (?P<status>\\d{3}) (?P<size>\\d+) " | unwrap size [10m]) by (status, job)`,
    ]) {
      const { pushed, local } = await pushedAndLocal(query, range);
      expect(local.series.size, query).toBeGreaterThan(0);
      expect(local.linesScanned, query).toBeGreaterThan(0);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    }
  });

  it("keeps what it cannot prove equal local, with the same answer", async () => {
    for (const query of [
      // A group named as the origin cannot hold it (`_path`).
      String.raw`sum by (method) (count_over_time({app="nginx"} | regexp "\"(?P<method>\\w+) (?P<_path>\\S+)" [10m]))`,
      `sum by (method) (count_over_time({app="nginx"} | pattern "${NGINX_PATTERN}" | ip = ip("2001:db8::/32") [10m]))`,
      `sum by (method) (count_over_time({app="nginx"} | pattern "${NGINX_PATTERN}" | line_format "{{.path}}" [10m]))`,
    ]) {
      const { pushed } = await pushedAndLocal(query, range);
      expect(pushed.linesScanned, query).not.toBe(0);
    }
  });
});

describe("origin traffic of nginx panels (compat data, 6 h)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("reads buckets instead of lines", async () => {
    const params = { start: String(DATA_START), end: String(DATA_END), step: "60" };
    for (const query of [
      `sum by (status) (count_over_time({app="nginx"} | pattern "${NGINX_PATTERN}" [1m]))`,
      String.raw`sum by (method) (rate({app="nginx"} | regexp "\"(?P<method>\\w+) (?P<path>\\S+)" | path=~"/api/.*" [5m]))`,
    ]) {
      await expectBucketsNotLines(query, params);
    }
  });
});

/**
 * Lines built to probe the matchers, each set in a stream of its own (in a tenant of its own). A
 * set of plain lines must be pushed; a set with a metadata label of a captured name may be pushed
 * or sent back, but must give the same answer.
 */
describe("generated lines (property, real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "26:5" };

  const word = fc.constantFrom("a", "bb", "GET", "élan", "x-y", "a b", "日本");
  const number = fc.integer({ min: -20, max: 600 }).map(String);
  // Units as Go (`us`, `μs`) and go-humanize (any case) also read them.
  const dur = fc.constantFrom("5ms", "50ms", "3s", "1m", "70s", "250us", "7\u03bcs");
  const size = fc.constantFrom("0", "1KB", "2KiB", "100MB", "5000", "2kb", "3kib", "12Mi");
  /** Lines of the shape the patterns and regexes read, with the odd separator or repeated key. */
  const lineOf = (n: fc.Arbitrary<string>, d: fc.Arbitrary<string>, z: fc.Arbitrary<string>) =>
    fc
      .tuple(word, n, d, z, fc.constantFrom(" ", "  ", " - "), fc.constantFrom("", " tail", " c=1 c=2"))
      .map(([g, c, dd, zz, sep, tail]) => `g=${g}${sep}c=${c} d=${dd} z=${zz}${tail}`);
  const shaped = lineOf(number, dur, size);
  /** Values a typed filter reads otherwise on the two sides, or that are empty. */
  const odd = lineOf(
    fc.constantFrom("", "1.5", "07", "0x10", "1e3", "-0", "abc", "12345678901"),
    fc.constantFrom("1.5s", "7", "50us", "", "1h30m"),
    fc.constantFrom("1.5KB", "2kb", "", "1 KB"),
  );
  const TRICKY = [
    "",
    " ",
    "g=",
    "g=a",
    "g=a c=",
    "g=a c=1",
    "c=1 g=a d=5ms z=1KB",
    "no match here",
    "g=a c=1 d=5ms z=1KB g=b c=2",
    "g=a\tc=1 d=5ms z=1KB",
    "g=a\nc=1 d=5ms z=1KB",
    "g=ü c=\u0000 d=5ms z=1KB",
    "g=\u0001 c=1 d=5ms z=1KB",
    "g=a\u0007b c=\u0001 d=5ms z=1KB",
    "g=repl\ufffd c=1 d=5ms z=1KB",
    "g=\u212a c=1 d=5ms z=1KB",
    "xg=a c=1 d=5ms z=1KB",
    "g=a c=1 d= z=",
    "g=a c=1  d=5ms z=1KB",
    "g=a c=1 d=5ms z=1KB d=6ms",
    'g="a b" c=1 d=5ms z=1KB',
    'g=a c="1" d=5ms z=1KB',
    'g=a c=1 d="5ms" z="1KB"',
    'g=a c=1 d=5ms z="1 KB" x',
    "g=a&amp; c=1 d=5ms z=1KB",
    "g=a c=1 d=5ms",
    "c=1 d=5ms z=",
    "g= c= d=5ms z=1KB",
  ];

  interface LineSet {
    plain: string[];
    tricky: string[];
    /** `g` as a stream label or as structured metadata, besides the lines'. */
    label?: "stream" | "metadata";
  }
  const setOf = fc.record({
    plain: fc.array(shaped, { minLength: 2, maxLength: 10 }),
    tricky: fc.array(fc.oneof(fc.constantFrom(...TRICKY), odd), { maxLength: 3 }),
    label: fc.constantFrom(undefined, undefined, "stream" as const, "metadata" as const),
  });
  const plainOf = (seed: number) => fc.sample(shaped, { numRuns: 5, seed });
  const sets: LineSet[] = [
    ...TRICKY.map((line, k) => ({ plain: plainOf(k), tricky: [line] })),
    ...fc.sample(odd, { numRuns: 8, seed: 2604 }).map((line, k) => ({ plain: plainOf(200 + k), tricky: [line] })),
    { plain: plainOf(101), tricky: [] },
    { plain: plainOf(102), tricky: [], label: "stream" },
    { plain: plainOf(103), tricky: [], label: "metadata" },
    ...fc.sample(setOf, { numRuns: 16, seed: 2603 }),
  ];

  beforeAll(async () => {
    const streams = lineSetStreams("xgen", sets, DATA_START, {
      stream: { g: "from-stream" },
      metadata: { g: "from-metadata" },
    });
    await pushCounted("26:5", "xgen", streams, DATA_START);
  });

  const shapes = (sel: string) => [
    `sum by (g) (count_over_time(${sel} | pattern "g=<g> c=<c> <_>" [1m]))`,
    `sum by (g, c) (count_over_time(${sel} | pattern "g=<g> c=<c>" [30s]))`,
    `sum by (c) (rate(${sel} | pattern "<_>c=<c> d=<d> z=<z>" | c > 3 [20s]))`,
    `sum(bytes_over_time(${sel} | pattern "g=<g> <_> d=<d> z=<z> <_>" | d >= 50ms or z <= 2KiB [1m]))`,
    `sum by (set) (count_over_time(${sel} | pattern "<g> c=<c> <_>" | g=~"g=(a|bb).*" [1m]))`,
    `sum by (z) (bytes_rate(${sel} | pattern "<_> z=<z>" | __error__="" | z != "" [40s]))`,
    `sum by (c, z) (count_over_time(${sel} | pattern "<_>=<g> c=<c> d=<_> z=<z>" [1m]))`,
    `sum by (g) (count_over_time(${sel} | pattern "<_>=<g> <_>=\\"<_>\\" " | g!="" [30s]))`,
    String.raw`sum by (g) (count_over_time(${sel} | regexp "g=(?P<g>\\S*)\\s+c=(?P<c>-?\\d+)" [1m]))`,
    String.raw`sum by (c, g) (count_over_time(${sel} | regexp "(?:g=(?P<g>[^ ]+)|c=(?P<c>\\w*))" | g!="a" [30s]))`,
    String.raw`sum(rate(${sel} | regexp "(?s)(?P<g>.*) d=(?P<d>\\S+)" | g=~".*c=1.*" [1m]))`,
    // Unwrapped captures (plan/unwrap-extract.ts).
    `sum by (g) (sum_over_time(${sel} | pattern "g=<g> c=<c> <_>" | unwrap c [1m]))`,
    String.raw`max_over_time(${sel} | regexp "c=(?P<c>-?\\d+) d=(?P<d>\\S+)" | unwrap duration(d) [30s]) by (c)`,
    `quantile_over_time(0.9, ${sel} | pattern "<_> z=<z> <_>" | z != "" | unwrap bytes(z) | __error__="" [1m]) by (set)`,
    `avg_over_time(${sel} | pattern "g=<g> c=<c> d=<d> <_>" | c > 3 | unwrap c [1m]) by (g)`,
  ];

  it("every set and shape: pushed equals local; plain sets are pushed", async () => {
    const { pushedAsRequired, fellBack } = await pushedAcrossSets(
      sets.length,
      (k) => shapes(`{app="xgen", set="s${k}"}`),
      (k) => {
        const set = sets[k]!;
        return set.label !== "metadata" && set.tricky.length === 0;
      },
      DATA_START,
      TENANT,
    );
    console.info(`sets ${sets.length}, pushed as required ${pushedAsRequired}, fell back ${fellBack}`);
    expect(pushedAsRequired).toBeGreaterThan(20);
    expect(fellBack).toBeGreaterThan(5);
  }, 360_000);
});
