/**
 * /patterns mined at the edge, against the real VictoriaLogs loaded with the compat dataset (default
 * tenant, 2026-02-01 00:00–06:00 UTC). Counts are checked against the Worker's own metric path,
 * which counts with VictoriaLogs: `count_over_time` over the same selector, or with the pattern as a
 * `|>` filter, on the same step grid.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "../../src/config";
import { readConfig } from "../../src/config";
import { call } from "./support/request";
import { patternChunkLength, readGroups } from "../../src/exec/patterns";
import { patternGroupsQuery, type GroupRun } from "../../src/plan/pattern-groups";
import { PatternMiner, patternLevel, patternText } from "../../src/engine/patterns/miner";

const ENV = env as unknown as Env;
const ORIGIN = readConfig(ENV).originUrl;
const START = 1769904000; // 2026-02-01T00:00:00Z, the compat dataset's start
const END = START + 6 * 3600;
const STEP = 1800;

interface Pattern {
  pattern: string;
  level: string;
  samples: [number, number][];
}

async function get(
  path: string,
  params: Record<string, string>,
  over: Partial<Env> = { CACHE: "off" },
): Promise<{ status: number; type: string | null; text: string }> {
  const res = await call(path, params, { env: over, settle: true });
  return { status: res.status, type: res.headers.get("Content-Type"), text: res.body };
}

async function patterns(query: string, step = STEP, over?: Partial<Env>): Promise<Pattern[]> {
  const a = await get(
    "/loki/api/v1/patterns",
    { query, start: String(START), end: String(END), step: String(step) },
    over,
  );
  expect(a.status, a.text).toBe(200);
  const body = JSON.parse(a.text) as { status: string; data: Pattern[] };
  expect(body.status).toBe("success");
  return body.data;
}

/** Lines per step as the metric path counts them: the value at t counts (t − step, t]. */
async function countsPerBucket(logql: string, step = STEP): Promise<Map<number, number>> {
  const a = await get("/loki/api/v1/query_range", {
    query: `sum(count_over_time(${logql} [${step}s]))`,
    start: String(START + step),
    end: String(END),
    step: String(step),
  });
  expect(a.status, a.text).toBe(200);
  const result = (JSON.parse(a.text) as { data: { result: { values: [number, string][] }[] } }).data.result;
  // A line exactly on a bucket boundary would count in different buckets; the dataset's times are
  // random to the nanosecond, so none is.
  return new Map((result[0]?.values ?? []).map(([t, v]) => [t - step, Number(v)]));
}

function totalsPerBucket(ps: readonly Pattern[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const p of ps) for (const [t, n] of p.samples) out.set(t, (out.get(t) ?? 0) + n);
  return out;
}

let restore = () => {};
afterEach(() => restore());

function countOriginCalls(): { n: number } {
  const calls = { n: 0 };
  const real = globalThis.fetch;
  restore = () => (globalThis.fetch = real);
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.startsWith(ORIGIN)) calls.n++;
    return real(input, init);
  }) as typeof fetch;
  return calls;
}

describe("patterns on the compat dataset", () => {
  it("answers in Loki's shape: pattern, level, samples of [unix s, count] on the step grid", async () => {
    const a = await get("/loki/api/v1/patterns", {
      query: '{app="nginx", namespace="prod"}',
      start: String(START),
      end: String(END),
      step: "30m",
    });
    expect(a.status).toBe(200);
    expect(a.type).toBe("application/json; charset=UTF-8");
    // Go's JSON writer escapes < and >, so Loki's patterns read \u003c_\u003e.
    expect(a.text).toContain(
      '"pattern":"\\u003c_\\u003e - - [\\u003c_\\u003e +0000] \\"GET \\u003c_\\u003e HTTP/1.1\\"',
    );
    const data = (JSON.parse(a.text) as { data: Pattern[] }).data;
    expect(data.length).toBeGreaterThan(0);
    for (const p of data) {
      expect(Object.keys(p)).toEqual(["pattern", "level", "samples"]);
      expect(p.level).toBe("unknown");
      for (const [t, n] of p.samples) {
        expect(Number.isInteger(t) && t % STEP === 0 && t >= START && t < END).toBe(true);
        expect(Number.isInteger(n) && n > 0).toBe(true);
      }
    }
  });

  it("finds the nginx template, and every line of the selector is counted in its bucket", async () => {
    const found = await patterns('{app="nginx", namespace="prod"}');
    for (const p of found)
      expect(p.pattern).toMatch(/^\S+ - - \[[^\]]+ \+0000\] "(GET|POST|PUT|DELETE) \S+ HTTP\/1\.1" /);
    expect(found[0]!.pattern).toBe('<_> - - [<_> +0000] "GET <_> HTTP/1.1" <_> <_> "-" "<_>"');
    // Under 2,000 lines per 30-minute chunk: every line mined, so the counts are exact.
    const expected = await countsPerBucket('{app="nginx", namespace="prod"}');
    expect(expected.size).toBe(12);
    expect(totalsPerBucket(found)).toEqual(expected);
  });

  it("counts each logfmt pattern exactly as a |> filter of it counts", async () => {
    const found = await patterns('{app="worker", namespace="prod"}');
    for (const p of found) {
      expect(p.pattern).toMatch(
        /^(\u001b\[31mERROR\u001b\[0m )?level=(debug|info|warn|error) caller=\S+ msg="[^"]+" job=\w+ duration=\S+ size=\S+ ok=(true|false) client_ip=\S+ attempt=\S+$/,
      );
    }
    // The info patterns have level, message and job as literals: no line matches two of them.
    const info = found.filter((p) => p.pattern.startsWith("level=info caller=<_> ")).slice(0, 3);
    expect(info).toHaveLength(3);
    for (const p of info) {
      const filter = `{app="worker", namespace="prod"} |> ${JSON.stringify(p.pattern)}`;
      expect(new Map(p.samples), p.pattern).toEqual(await countsPerBucket(filter));
    }
  });

  it("finds only the JSON message of 4+ tokens in JSON apps", async () => {
    const found = await patterns('{app="payments"}');
    expect(found.map((p) => p.pattern)).toEqual(["<_>out of memory: kill process<_>"]);
    const expected = await countsPerBucket('{app="payments"} |= `"msg": "out of memory: kill process"`');
    expect(new Map(found[0]!.samples)).toEqual(expected);
  });

  it("counts chunks of more than 2,000 lines exactly when the range holds at most 26,000", async () => {
    // Both namespaces of nginx: about 2,400 lines an hour, one chunk per one-hour step, 14,400 in all.
    const found = await patterns('{app="nginx"}', 3600);
    const expected = await countsPerBucket('{app="nginx"}', 3600);
    for (const n of expected.values()) expect(n).toBeGreaterThan(2000);
    expect(totalsPerBucket(found)).toEqual(expected);
  });

  it("scales a chunk holding more than 2,000 lines from its sample, keeping its total within rounding", async () => {
    // nginx and worker: about 4,800 lines an hour, one chunk per one-hour step, more than 26,000 in all.
    const query = '{app=~"nginx|worker"}';
    const found = await patterns(query, 3600);
    const expected = await countsPerBucket(query, 3600);
    expect([...expected.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(26_000);
    const got = totalsPerBucket(found);
    expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [t, n] of expected) {
      expect(n).toBeGreaterThan(2000);
      const patternsInBucket = found.filter((p) => p.samples.some(([s]) => s === t)).length;
      expect(Math.abs(got.get(t)! - n), `bucket ${t}`).toBeLessThanOrEqual(patternsInBucket / 2);
    }
  });

  it("keeps historical chunks in the results cache: a repeated request reads nothing from the origin", async () => {
    const query = '{app="auth", namespace="staging"}';
    const uncached = await patterns(query);
    const calls = countOriginCalls();
    expect(await patterns(query, STEP, {})).toEqual(uncached);
    // Twelve chunks, two requests (their line counts, then their groups), each chunk stored.
    expect(calls.n).toBe(2);
    calls.n = 0;
    expect(await patterns(query, STEP, {})).toEqual(uncached);
    expect(calls.n).toBe(0);
  });

  it("refuses bad parameters with Loki's messages", async () => {
    const a = await get("/loki/api/v1/patterns", {
      query: '{app="nginx"} |= "x"',
      start: String(START),
      end: String(END),
    });
    expect(a.status).toBe(400);
    expect(a.type).toBe("text/plain; charset=utf-8");
    expect(a.text).toBe("only label matchers are supported");
    const b = await get("/loki/api/v1/patterns", {
      query: '{app="nginx"}',
      start: String(START),
      end: String(END),
      step: "-1",
    });
    expect(b.status).toBe(400);
    expect(b.text).toBe("zero or negative query resolution step widths are not accepted. Try a positive integer");
  });
});

/** Bytes and rows of every origin answer while `run` runs (the Worker called in-process). */
async function originTraffic<T>(run: () => Promise<T>): Promise<{ result: T; bytes: number; rows: number }> {
  const real = globalThis.fetch;
  let bytes = 0;
  let rows = 0;
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await real(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(ORIGIN)) return res;
    const text = await res.clone().text();
    bytes += text.length;
    rows += text.split("\n").filter((l) => l.length > 0).length;
    return res;
  }) as typeof fetch;
  try {
    return { result: await run(), bytes, rows };
  } finally {
    globalThis.fetch = real;
  }
}

/**
 * The answer of mining every line of the selector, as the Worker mined them when it read lines: per
 * chunk in time order, the chunks' patterns merged, identical texts of one level added up.
 */
async function minedFromEveryLine(
  query: string,
  start: number,
  end: number,
  step: number,
  { checkDistinct = true } = {},
): Promise<Pattern[]> {
  const a = await get("/loki/api/v1/query_range", {
    query,
    start: String(start),
    end: String(end),
    limit: "5000",
    direction: "forward",
  });
  expect(a.status, a.text).toBe(200);
  const streams = (
    JSON.parse(a.text) as { data: { result: { stream: Record<string, string>; values: [string, string][] }[] } }
  ).data.result;
  const rows = streams.flatMap((s) => s.values.map(([ts, line]) => ({ ts: BigInt(ts), line, stream: s.stream })));
  expect(rows.length).toBeLessThan(5000);
  rows.sort((x, y) => (x.ts < y.ts ? -1 : x.ts > y.ts ? 1 : 0));
  const S = 1_000_000_000n;
  const length = patternChunkLength(BigInt(end - start) * S, BigInt(step) * S);
  // The case this compares: every group (lines equal but for their numbers) has at most two
  // distinct lines in its chunk, so the origin's smallest and largest line are all of them.
  const distinct = new Map<string, Set<string>>();
  for (const r of rows) {
    const key = `${r.ts / length}\u0000${r.line.replace(/[0-9]+/g, "0")}`;
    const lines = distinct.get(key) ?? new Set<string>();
    distinct.set(key, lines.add(r.line));
  }
  if (checkDistinct) expect(Math.max(...[...distinct.values()].map((l) => l.size))).toBeLessThanOrEqual(2);
  const merged = new PatternMiner(step * 1000);
  const chunks = new Map<bigint, PatternMiner>();
  for (const r of rows) {
    const c = r.ts / length;
    let miner = chunks.get(c);
    if (!miner) chunks.set(c, (miner = new PatternMiner(step * 1000)));
    miner.addLine(r.line, r.ts, patternLevel(r.stream, {}));
  }
  for (const c of [...chunks.keys()].sort((x, y) => (x < y ? -1 : 1))) {
    for (const p of chunks.get(c)!.result()) merged.addPattern(p);
  }
  const byText = new Map<string, Pattern>();
  for (const p of merged.result()) {
    const pattern = patternText(p);
    const key = `${p.level}\u0000${pattern}`;
    const e = byText.get(key) ?? { pattern, level: p.level, samples: [] };
    byText.set(key, e);
    const counts = new Map(e.samples);
    for (const [ms, n] of p.samples) counts.set(ms / 1000, (counts.get(ms / 1000) ?? 0) + n);
    e.samples = [...counts].sort((x, y) => x[0] - y[0]);
  }
  return [...byText.values()];
}

const byText = (ps: readonly Pattern[]) =>
  [...ps].sort((a, b) => (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0));

describe("patterns from what VictoriaLogs groups", () => {
  it("reads groups from the origin, far fewer rows and bytes than the selector's lines", async () => {
    const query = '{app="worker"}';
    const lines = [...(await countsPerBucket(query)).values()].reduce((a, b) => a + b, 0);
    const grouped = await originTraffic(() => patterns(query));
    const everyLine = await originTraffic(() =>
      get("/loki/api/v1/query_range", { query, start: String(START), end: String(END), limit: "5000" }),
    );
    console.log(
      `patterns ${query}, 6 h: ${lines} lines; origin sent ${grouped.rows} rows, ${grouped.bytes} B ` +
        `(reading up to 5,000 of the lines: ${everyLine.rows} rows, ${everyLine.bytes} B)`,
    );
    expect(totalsPerBucket(grouped.result)).toEqual(await countsPerBucket(query));
    // One row per group and chunk instead of one per line; every line's bytes, estimated from the
    // lines read, against the groups' bytes.
    expect(grouped.rows).toBeLessThan(lines / 3);
    expect(grouped.bytes).toBeLessThan(((everyLine.bytes / everyLine.rows) * lines) / 5);
  });

  it("asks the origin twice for a range: its lines per chunk, then every chunk's groups at once", async () => {
    // 6 h of 14,000 lines in 12 chunks: one groups request, each group's lines sent once.
    const calls = countOriginCalls();
    const found = await patterns('{app="worker"}');
    expect(calls.n).toBe(2);
    expect(found.flatMap((p) => p.samples).reduce((sum, [, n]) => sum + n, 0)).toBeGreaterThan(10_000);
  });

  it("answers as mining every line does when no group holds more than two distinct lines in a chunk", async () => {
    const query = '{app="worker", namespace="prod"}';
    const end = START + 120;
    const got = await get("/loki/api/v1/patterns", { query, start: String(START), end: String(end), step: "1" });
    expect(got.status, got.text).toBe(200);
    const found = (JSON.parse(got.text) as { data: Pattern[] }).data;
    expect(found.length).toBeGreaterThan(3);
    expect(byText(found)).toEqual(byText(await minedFromEveryLine(query, START, end, 1)));
  });

  it("answers as mining every line does over an hour of chunks under 2,000 lines (groups of up to five distinct lines)", async () => {
    // Not a guarantee past two distinct lines a group (a number equal in a group's smallest and
    // largest line can differ in another), but this hour's templates come out the same.
    const query = '{app="worker", namespace="prod"}';
    const end = START + 3600;
    const got = await get("/loki/api/v1/patterns", { query, start: String(START), end: String(end), step: "5" });
    expect(got.status, got.text).toBe(200);
    const found = (JSON.parse(got.text) as { data: Pattern[] }).data;
    expect(found.length).toBeGreaterThan(3);
    expect(byText(found)).toEqual(byText(await minedFromEveryLine(query, START, end, 5, { checkDistinct: false })));
  });

  it("files lines under the level discovered from them, counting each line once", async () => {
    const query = '{app="worker", namespace="prod"}';
    const found = await patterns(query, STEP, { CACHE: "off", DISCOVER_LOG_LEVELS: "true" });
    const levels = new Set(found.map((p) => p.level));
    expect([...levels].sort()).toEqual(["debug", "error", "info", "warn"]);
    for (const p of found) expect(p.pattern, p.level).toMatch(new RegExp(`(^|m )level=${p.level} `));
    expect(totalsPerBucket(found)).toEqual(await countsPerBucket(query));
  });

  it("counts every line of a few seconds across a chunk boundary with a step under a millisecond", async () => {
    // Chunks are at least five minutes and start at multiples of it: START + 300 is a boundary.
    // Apps whose every line is mined (logfmt and access lines): the patterns count them all.
    const query = '{app=~"worker|auth|nginx"}';
    const start = START + 295;
    const end = START + 304;
    const a = await get("/loki/api/v1/patterns", { query, start: String(start), end: String(end), step: "0.0009" });
    expect(a.status, a.text).toBe(200);
    const found = (JSON.parse(a.text) as { data: Pattern[] }).data;
    const lines = await get("/loki/api/v1/query", { query: `count_over_time(${query} [9s])`, time: String(end) });
    const expected = (JSON.parse(lines.text) as { data: { result: { value: [number, string] }[] } }).data.result.reduce(
      (sum, r) => sum + Number(r.value[1]),
      0,
    );
    expect(expected).toBeGreaterThan(5);
    // The step is read as a whole millisecond, so every sample is on the millisecond grid.
    const counted = found.flatMap((p) => p.samples).reduce((sum, [, n]) => sum + n, 0);
    expect(counted).toBe(expected);
  });

  it("places every line in its step bucket as VictoriaLogs' own time grouping does, lines at an edge by their time", async () => {
    // A 3 ms step: a line within 1 ms of an edge comes as its time, one in the middle third as an
    // index computed in float64; both must land where `stats by (_time:3ms)` puts the line.
    const startNs = BigInt(START) * 1_000_000_000n;
    const window = { start: new Date(START * 1000).toISOString(), end: new Date((START + 120) * 1000).toISOString() };
    const run: GroupRun = {
      filter: '{app=~"worker|auth|nginx"}',
      stepMs: 3,
      chunkSteps: 100_000,
      chunks: 1,
      startNs,
      levelFields: ["detected_level"],
      sample: 1,
    };
    const ask = async (query: string) => {
      const res = await fetch(`${ORIGIN}/select/logsql/query`, {
        method: "POST",
        body: new URLSearchParams({ query, ...window }),
      });
      expect(res.status).toBe(200);
      const text = await res.text();
      return text
        .split("\n")
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as Record<string, string>);
    };
    const groups = readGroups(await ask(patternGroupsQuery(run)), run);
    const got = new Map<number, number>();
    for (const g of groups) for (const [ms, n] of g.samples) got.set(ms, (got.get(ms) ?? 0) + n);
    const expected = new Map<number, number>();
    for (const row of await ask(`${run.filter} | stats by (_time:3ms) count() n`)) {
      expected.set(Date.parse(row["_time"]!), Number(row["n"]));
    }
    expect(expected.size).toBeGreaterThan(20);
    expect(got).toEqual(expected);
    // Both ways of sending a bucket were taken.
    const raw = (await ask(patternGroupsQuery(run))).flatMap((r) => JSON.parse(r["__pi"]!) as string[]);
    expect(raw.some((b) => b.includes("T"))).toBe(true);
    expect(raw.some((b) => !b.includes("T"))).toBe(true);
  });
});
