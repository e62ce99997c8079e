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

  it("scales a chunk holding more than 2,000 lines from its sample, keeping its total within rounding", async () => {
    // Both namespaces of nginx: about 2,400 lines an hour, one chunk per one-hour step.
    const found = await patterns('{app="nginx"}', 3600);
    const expected = await countsPerBucket('{app="nginx"}', 3600);
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
    // The twelve chunks are mined from two requests (their line counts, their groups), and each is stored.
    expect(calls.n).toBe(2);
    calls.n = 0;
    expect(await patterns(query, STEP, {})).toEqual(uncached);
    expect(calls.n).toBe(0);
  });

  it("answers well under a second", async () => {
    const started = Date.now();
    await patterns('{namespace="prod"}', 60);
    const ms = Date.now() - started;
    console.log(`patterns: {namespace="prod"}, 6 h, step 60 s: ${ms} ms`);
    expect(ms).toBeLessThan(1000);
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
