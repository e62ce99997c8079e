/**
 * Multi-tenant queries (`X-Scope-OrgID: a|b`) through the real Worker and the real VictoriaLogs:
 * the compat dataset's tenant 0:0 and a tenant of this file's own, 29:29, read together. Every
 * answer is checked against the same query asked of each tenant alone.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/config";
import { call as callWorker } from "./support/request";
import { pushStreams } from "../support/push-streams";
import { askMetric, pushedAndLocal } from "./support/metric-answers";
import { readConfig } from "../../src/config";

const START = 1769904000;
const END = 1769925600;
const OWN = "29:29";
const at = (s: number) => String(BigInt(START + s) * 1_000_000_000n);
/** Three entries of tenant 29:29, in a stream that also exists (with other entries) in tenant 0:0. */
const PUSHED = [
  [at(600), "mt one"],
  [at(1800), "mt two"],
  [at(7200), "mt three"],
];

async function call(path: string, orgId: string, overrides: Partial<Env> = {}, headers: Record<string, string> = {}) {
  const res = await callWorker(path, {}, { headers: { "X-Scope-OrgID": orgId, ...headers }, env: overrides });
  return { status: res.status, body: res.body };
}

const enc = encodeURIComponent;
const range = (query: string, extra = "") =>
  `/loki/api/v1/query_range?query=${enc(query)}&start=${START}&end=${END}${extra}`;

interface Stream {
  stream: Record<string, string>;
  values: [string, string][];
}

async function logStreams(query: string, orgId: string, overrides: Partial<Env> = {}): Promise<Stream[]> {
  const r = await call(range(query, "&limit=5000"), orgId, overrides);
  expect(r.status, r.body).toBe(200);
  return JSON.parse(r.body).data.result;
}

/** Lines per `__tenant_id__` ("" for streams without it). */
function linesByTenant(streams: Stream[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of streams) {
    const t = s.stream.__tenant_id__ ?? "";
    out.set(t, (out.get(t) ?? 0) + s.values.length);
  }
  return out;
}

/** A metric query's series as label-set key → values. */
async function matrix(query: string, orgId: string): Promise<Map<string, [number, string][]>> {
  const r = await call(range(query, "&step=3600"), orgId);
  expect(r.status, r.body).toBe(200);
  const out = new Map<string, [number, string][]>();
  for (const s of JSON.parse(r.body).data.result) out.set(JSON.stringify(s.metric), s.values);
  return out;
}

/** 2487 lines in tenant 0:0 (its staging nginx streams), the 3 pushed ones in 29:29: all under one limit. */
const QUERY = '{app="nginx", namespace=~"staging|mt"}';
let nginxLinesOfZero = 0;

beforeAll(async () => {
  await pushStreams(OWN, [{ stream: { app: "nginx", namespace: "mt" }, values: PUSHED }], async () => {
    // Without the cache: an empty answer from before the data arrived must not be kept.
    const n = linesByTenant(await logStreams(QUERY, OWN, { CACHE: "off" })).get("") ?? 0;
    return n === PUSHED.length || `saw ${n} of ${PUSHED.length}`;
  });
  nginxLinesOfZero = linesByTenant(await logStreams(QUERY, "0")).get("") ?? 0;
  expect(nginxLinesOfZero).toBe(2487);
});

describe("log queries across tenants", () => {
  it("returns both tenants' entries, each stream labelled with its tenant", async () => {
    const streams = await logStreams(QUERY, `0|${OWN}`);
    expect(linesByTenant(streams)).toEqual(
      new Map([
        ["0", nginxLinesOfZero],
        [OWN, PUSHED.length],
      ]),
    );
    const own = streams.filter((s) => s.stream.__tenant_id__ === OWN);
    expect(own.map((s) => s.stream)).toEqual([{ __tenant_id__: OWN, app: "nginx", namespace: "mt" }]);
    expect(own[0]!.values).toEqual([...PUSHED].reverse());
  });

  it("merges by time and keeps `limit` entries of all tenants", async () => {
    const all = (await logStreams(QUERY, `0|${OWN}`)).flatMap((s) => s.values.map((v) => v[0]));
    const newest = all.sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1)).slice(0, 7);
    const r = await call(range(QUERY, "&limit=7"), `${OWN}|0`);
    expect(r.status, r.body).toBe(200);
    const got = (JSON.parse(r.body).data.result as Stream[]).flatMap((s) => s.values.map((v) => v[0]));
    expect(got.sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1))).toEqual(newest);
  });

  it("reads only the tenants a __tenant_id__ matcher selects", async () => {
    expect(
      linesByTenant(await logStreams(`{__tenant_id__="${OWN}", app="nginx", namespace=~"staging|mt"}`, `0|${OWN}`)),
    ).toEqual(new Map([[OWN, PUSHED.length]]));
    expect(
      linesByTenant(await logStreams(`{__tenant_id__!="${OWN}", app="nginx", namespace=~"staging|mt"}`, `0|${OWN}`)),
    ).toEqual(new Map([["0", nginxLinesOfZero]]));
    expect(await logStreams(`{__tenant_id__=~"nobody", app="nginx"}`, `0|${OWN}`)).toEqual([]);
  });

  it("refuses a selector left without a usable matcher once __tenant_id__ is removed, as Loki does", async () => {
    for (const q of ['{__tenant_id__="0"}', 'sum(count_over_time({__tenant_id__="0", app=~".*"}[1h]))']) {
      const r = await call(range(q, "&step=3600"), `0|${OWN}`);
      expect(r.status, q).toBe(400);
      expect(r.body).toContain("queries require at least one regexp or equality matcher");
    }
  });

  it("leaves a single-tenant answer without the label", async () => {
    const streams = await logStreams(QUERY, "0");
    expect(streams.length).toBeGreaterThan(0);
    expect(streams.every((s) => s.stream.__tenant_id__ === undefined)).toBe(true);
  });
});

describe("metric queries across tenants", () => {
  it("sum by (__tenant_id__) gives each tenant's own count", async () => {
    const q = (sel: string) => `sum by (__tenant_id__) (count_over_time(${sel}[1h]))`;
    const per = await matrix(q(QUERY), `0|${OWN}`);
    const zero = [...(await matrix(`sum(count_over_time(${QUERY}[1h]))`, "0")).values()][0]!;
    const own = [...(await matrix(`sum(count_over_time(${QUERY}[1h]))`, OWN)).values()][0]!;
    expect(per).toEqual(
      new Map([
        [JSON.stringify({ __tenant_id__: "0" }), zero],
        [JSON.stringify({ __tenant_id__: OWN }), own],
      ]),
    );
    // (t − 1h, t]: the entries at +600 s and +1800 s count at +3600 s, the one at +7200 s there.
    expect(own).toEqual([
      [START + 3600, "2"],
      [START + 7200, "1"],
    ]);
  });

  it("sums across tenants without a grouping, and a __tenant_id__ matcher narrows the sum", async () => {
    const total = [...(await matrix(`sum(count_over_time(${QUERY}[1h]))`, `0|${OWN}`)).values()][0]!;
    const zero = [...(await matrix(`sum(count_over_time(${QUERY}[1h]))`, "0")).values()][0]!;
    const byTime = new Map(zero.map(([t, v]) => [t, Number(v)]));
    for (const [s] of PUSHED) {
      const step = Math.ceil(Number(BigInt(s!) / 1_000_000_000n) / 3600) * 3600;
      byTime.set(step, (byTime.get(step) ?? 0) + 1);
    }
    expect(total).toEqual([...byTime].sort((a, b) => a[0] - b[0]).map(([t, v]) => [t, String(v)]));
    const narrowed = await matrix(
      `sum(count_over_time({__tenant_id__="0", app="nginx", namespace=~"staging|mt"}[1h]))`,
      `0|${OWN}`,
    );
    expect([...narrowed.values()]).toEqual([zero]);
  });

  it("answers instant queries the same way", async () => {
    const path = (q: string) => `/loki/api/v1/query?query=${enc(q)}&time=${END}`;
    const vector = async (q: string, orgId: string) => {
      const r = await call(path(q), orgId);
      expect(r.status, r.body).toBe(200);
      return (JSON.parse(r.body).data.result as { metric: Record<string, string>; value: [number, string] }[]).map(
        (s) => [s.metric, s.value[1]],
      );
    };
    const total = `sum(count_over_time(${QUERY}[6h]))`;
    expect(await vector(`sum by (__tenant_id__) (count_over_time(${QUERY}[6h]))`, `0|${OWN}`)).toEqual([
      [{ __tenant_id__: "0" }, String(nginxLinesOfZero)],
      [{ __tenant_id__: OWN }, String(PUSHED.length)],
    ]);
    expect(await vector(total, `0|${OWN}`)).toEqual([[{}, String(nginxLinesOfZero + PUSHED.length)]]);
  });

  it("keeps __tenant_id__ on ungrouped series", async () => {
    const series = await matrix(`count_over_time({app="nginx", namespace="mt"}[1h])`, `0|${OWN}`);
    expect([...series.keys()].map((k) => JSON.parse(k))).toContainEqual({
      __tenant_id__: OWN,
      app: "nginx",
      namespace: "mt",
    });
  });
});

describe("metric push-downs across tenants", () => {
  const TENANTS = { "X-Scope-OrgID": `0|${OWN}` };
  const params = { start: String(START), end: String(END), step: "600" };

  it("each tenant's part is computed by the origin, and the answer is the one from rows", async () => {
    for (const query of [
      `sum by (app) (count_over_time({namespace=~"staging|mt"}[10m]))`,
      `sum by (__tenant_id__, app) (rate({namespace=~"staging|mt"} != "GET" [10m]))`,
      `sum(count_over_time(${QUERY}[10m]))`,
      // Both tenants have app="nginx" streams: their groups merge.
      `max by (app) (count_over_time({app="nginx"}[10m]))`,
      `min by (app) (bytes_over_time({app="nginx"}[10m]))`,
      `min by (__tenant_id__) (count_over_time({app="nginx"}[10m]))`,
      `count_over_time({app="nginx", namespace=~"staging|mt"}[10m])`,
      `max_over_time({app="nginx"} | pattern "<_> - - [<_>] \\"<_> <_> <_>\\" <_> <size> <_>" | unwrap size | __error__="" [10m]) by (app)`,
      `min_over_time({app="nginx"} | pattern "<_> - - [<_>] \\"<_> <_> <_>\\" <_> <size> <_>" | unwrap size | __error__="" [10m]) by (app)`,
      `sum without (pod) (count_over_time({app="nginx"}[10m]))`,
      `sum without (__tenant_id__, pod) (count_over_time({app="nginx"}[10m]))`,
      `topk(2, sum by (pod) (rate({app="nginx"}[10m])))`,
      `sum by (method) (count_over_time({app="checkout"} | json | drop __error__, __error_details__ [10m]))`,
      `sum by (__tenant_id__) (count_over_time({__tenant_id__="${OWN}", app="nginx"}[10m]))`,
      `sum(count_over_time({app="nginx"} |= "GET" [10m])) / sum(count_over_time({app="nginx"}[10m]))`,
    ]) {
      const { pushed, local } = await pushedAndLocal(query, params, TENANTS);
      expect(local.series.size, query).toBeGreaterThan(0);
      expect(local.linesScanned, query).toBeGreaterThan(0);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    }
  });

  it("instant queries agree, and aggregations the tenants cannot split are evaluated over their parts", async () => {
    for (const query of [
      `sum by (app) (count_over_time({namespace=~"staging|mt"}[6h]))`,
      `avg by (app) (count_over_time({namespace=~"staging|mt"}[6h]))`,
      `count(count_over_time({app="nginx"}[6h]))`,
    ]) {
      const { pushed } = await pushedAndLocal(query, { time: String(END) }, TENANTS);
      expect(pushed.linesScanned, `${query} was not pushed down`).toBe(0);
    }
  });

  it("a query across many tenants keeps the origin requests in flight within MAX_CONCURRENCY", async () => {
    // Eight tenants, six of them empty: each is one part, run a few at a time.
    const many = ["0", OWN, "91:1", "92:1", "93:1", "94:1", "95:1", "96:1"];
    const query = `sum by (__tenant_id__, app) (count_over_time({namespace=~"staging|mt"}[10m]))`;
    const origin = readConfig(env as Env).originUrl;
    const real = globalThis.fetch;
    let inFlight = 0;
    let peak = 0;
    let calls = 0;
    globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      if (!url.startsWith(origin)) return real(input, init);
      calls++;
      peak = Math.max(peak, ++inFlight);
      try {
        // Held, so that requests made together overlap.
        await new Promise((r) => setTimeout(r, 30));
        const res = await real(input, init);
        return new Response(await res.arrayBuffer(), res);
      } finally {
        inFlight--;
      }
    }) as typeof fetch;
    let bounded;
    try {
      bounded = await askMetric(query, params, true, { "X-Scope-OrgID": many.join("|") }, false, {
        MAX_CONCURRENCY: "2",
      });
    } finally {
      globalThis.fetch = real;
    }
    expect(bounded.status, bounded.body).toBe(200);
    expect(calls).toBeGreaterThanOrEqual(many.length);
    expect(peak).toBeLessThanOrEqual(2);
    // The answer is the two tenants' own, as the rows' evaluation gives it.
    const local = await askMetric(query, params, false, TENANTS);
    expect(bounded.series).toEqual(local.series);
    expect([...bounded.series.keys()].some((k) => k.includes(`"${OWN}"`))).toBe(true);
    expect([...bounded.series.keys()].some((k) => k.includes(`"__tenant_id__","0"`))).toBe(true);
  });

  it("what the tenants' parts cannot make is evaluated from rows, as without push-down", async () => {
    // One series when no tenant has rows; a median of both tenants' values together.
    const { pushed } = await pushedAndLocal(`absent_over_time({app="nginx", namespace="none"}[10m])`, params, TENANTS);
    expect(pushed.series.size).toBe(1);
    const median = `quantile_over_time(0.5, {app="nginx"} | regexp "(?P<n>[0-9]+)$" | unwrap n [10m]) by (app)`;
    const both = await pushedAndLocal(median, params, TENANTS);
    expect(both.pushed.linesScanned).toBeGreaterThan(0);
    // Each tenant's own part, labelled: what a tenant runs is its own to push down or not.
    const without = `min_over_time({app="nginx"} | pattern "<_> - - [<_>] \\"<_> <_> <_>\\" <_> <size> <_>" | unwrap size | __error__="" [10m]) without (pod, cluster)`;
    expect((await pushedAndLocal(without, params, TENANTS)).local.series.size).toBeGreaterThan(1);
    // Loki's pipeline error names the failing series with its tenant.
    const failing = await pushedAndLocal(`sum by (app) (count_over_time({app="nginx"} | json [10m]))`, params, TENANTS);
    expect(failing.local.body).toContain(`pipeline error: 'JSONParserErr'`);
    expect(failing.local.body).toContain(`__tenant_id__=`);
  });
});

describe("labels and series across tenants", () => {
  const window = `start=${START}&end=${END}`;

  it("label names include __tenant_id__, its values are the tenants", async () => {
    const names = await call(`/loki/api/v1/labels?${window}`, `0|${OWN}`);
    expect(names.status, names.body).toBe(200);
    const single = JSON.parse((await call(`/loki/api/v1/labels?${window}`, "0")).body).data as string[];
    expect(JSON.parse(names.body).data).toEqual([...new Set([...single, "__tenant_id__", "app", "namespace"])].sort());
    const values = await call(`/loki/api/v1/label/__tenant_id__/values?${window}`, `0|${OWN}`);
    expect(JSON.parse(values.body).data).toEqual(["0", OWN]);
    const ns = await call(`/loki/api/v1/label/namespace/values?${window}&query=${enc(QUERY)}`, `0|${OWN}`);
    const nsZero = JSON.parse(
      (await call(`/loki/api/v1/label/namespace/values?${window}&query=${enc(QUERY)}`, "0")).body,
    ).data as string[];
    expect(JSON.parse(ns.body).data).toEqual([...new Set([...nsZero, "mt"])].sort());
  });

  it("series carry __tenant_id__ and a matcher on it selects tenants", async () => {
    const r = await call(`/loki/api/v1/series?${window}&match[]=${enc(QUERY)}`, `0|${OWN}`);
    expect(r.status, r.body).toBe(200);
    const list = JSON.parse(r.body).data as Record<string, string>[];
    const zero = JSON.parse((await call(`/loki/api/v1/series?${window}&match[]=${enc(QUERY)}`, "0")).body)
      .data as Record<string, string>[];
    expect(list.filter((s) => s.__tenant_id__ === "0")).toHaveLength(zero.length);
    expect(list.filter((s) => s.__tenant_id__ === OWN)).toEqual([
      { app: "nginx", namespace: "mt", __tenant_id__: OWN },
    ]);
    const only = await call(`/loki/api/v1/series?${window}&match[]=${enc(`{__tenant_id__="${OWN}"}`)}`, `0|${OWN}`);
    expect(JSON.parse(only.body).data).toEqual([{ app: "nginx", namespace: "mt", __tenant_id__: OWN }]);
  });
});

describe("index stats and volume across tenants", () => {
  const window = `start=${START}&end=${END}`;
  const json = async (path: string, orgId: string) => {
    const r = await call(path, orgId);
    expect(r.status, r.body).toBe(200);
    return JSON.parse(r.body);
  };

  it("index stats are the sums of the tenants' stats", async () => {
    const path = `/loki/api/v1/index/stats?${window}&query=${enc(QUERY)}`;
    const [both, zero, own] = await Promise.all([json(path, `0|${OWN}`), json(path, "0"), json(path, OWN)]);
    expect(own).toMatchObject({ streams: 1, entries: PUSHED.length });
    expect(both).toEqual({
      streams: zero.streams + own.streams,
      chunks: zero.chunks + own.chunks,
      bytes: zero.bytes + own.bytes,
      entries: zero.entries + own.entries,
    });
    const narrowed = await json(
      `/loki/api/v1/index/stats?${window}&query=${enc(`{__tenant_id__="${OWN}", app="nginx"}`)}`,
      `0|${OWN}`,
    );
    expect(narrowed).toEqual(own);
  });

  it("volume adds the tenants' bytes per group", async () => {
    const path = `/loki/api/v1/index/volume?${window}&query=${enc(QUERY)}&targetLabels=namespace`;
    const bytes = (body: { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }) =>
      Object.fromEntries(body.data.result.map((s) => [s.metric.namespace, Number(s.value[1])]));
    const [both, zero, own] = await Promise.all([json(path, `0|${OWN}`), json(path, "0"), json(path, OWN)]);
    expect(Object.keys(bytes(own))).toEqual(["mt"]);
    expect(bytes(both)).toEqual({ ...bytes(zero), ...bytes(own) });
  });
});

describe("who may read which tenants", () => {
  it("header mode: every tenant must be on the TENANT_MAP allowlist", async () => {
    const map = { TENANT_MAP: JSON.stringify({ ops: "0:0", mt: OWN }) };
    expect(
      linesByTenant(JSON.parse((await call(range(QUERY, "&limit=5000"), "ops|mt", map)).body).data.result),
    ).toEqual(
      new Map([
        ["ops", nginxLinesOfZero],
        ["mt", PUSHED.length],
      ]),
    );
    const refused = await call(range(QUERY), "ops|42", map);
    expect(refused).toEqual({ status: 401, body: 'unknown tenant "42"' });
  });

  it("credentials mode: only the tenants the credential's entry lists", async () => {
    const sha = async (t: string) =>
      [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(t)))]
        .map((b) => b.toString(16).padStart(2, "0"))
        .join("");
    const creds = {
      TENANCY: undefined,
      TENANTS: JSON.stringify({
        ops: { tenant: "0:0", token_sha256: await sha("mt-token-ops-1f0c"), tenants: ["mt"] },
        mt: { tenant: OWN, token_sha256: await sha("mt-token-mt-77a2") },
      }),
    };
    const basic = (user: string, token: string) => ({ Authorization: `Basic ${btoa(`${user}:${token}`)}` });
    const ok = await call(range(QUERY, "&limit=5000"), "ops|mt", creds, basic("ops", "mt-token-ops-1f0c"));
    expect(ok.status, ok.body).toBe(200);
    expect(linesByTenant(JSON.parse(ok.body).data.result)).toEqual(
      new Map([
        ["ops", nginxLinesOfZero],
        ["mt", PUSHED.length],
      ]),
    );
    const refused = await call(range(QUERY), "ops|mt", creds, basic("mt", "mt-token-mt-77a2"));
    expect(refused).toEqual({ status: 403, body: 'X-Scope-OrgID "ops" is not a tenant these credentials may read' });
  });

  it("endpoints Loki does not answer across tenants refuse a multi-tenant id", async () => {
    const r = await call(`/loki/api/v1/tail?query=${enc(QUERY)}`, `0|${OWN}`);
    expect(r).toEqual({ status: 400, body: "multi-tenant queries are not supported by this endpoint" });
  });
});

/** Two more tenants of this file's own, holding the same lines at the same times in app "api". */
const TWIN = "29:30";
const THIRD = "29:31";
/** Enough lines of one shape for the pattern miner to find a pattern. */
const API_LINES = Array.from({ length: 40 }, (_, i) => [at(60 * i), `GET /api/item/${i} 200 took ${10 + i}ms`]);

interface Pattern {
  pattern: string;
  level: string;
  samples: [number, number][];
}

describe("Logs Drilldown across tenants", () => {
  const window = `start=${START}&end=${END}`;
  const json = async (path: string, orgId: string) => {
    const r = await call(path, orgId);
    expect(r.status, r.body).toBe(200);
    return JSON.parse(r.body);
  };
  const patterns = async (query: string, orgId: string): Promise<Pattern[]> =>
    (await json(`/loki/api/v1/patterns?query=${enc(query)}&${window}&step=60s`, orgId)).data;
  /** The tenants' patterns merged by text, their samples added per timestamp, as the answer must be. */
  const merged = (...answers: Pattern[][]): Map<string, { level: string; samples: Map<number, number> }> => {
    const out = new Map<string, { level: string; samples: Map<number, number> }>();
    for (const answer of answers) {
      for (const p of answer) {
        let into = out.get(p.pattern);
        if (!into) out.set(p.pattern, (into = { level: p.level, samples: new Map() }));
        for (const [ts, n] of p.samples) into.samples.set(ts, (into.samples.get(ts) ?? 0) + n);
      }
    }
    return out;
  };
  const asMap = (answer: Pattern[]) => merged(answer);
  const labels = async (query: string | undefined, orgId: string): Promise<Record<string, number>> => {
    const body = await json(`/loki/api/v1/detected_labels?${window}${query ? `&query=${enc(query)}` : ""}`, orgId);
    return Object.fromEntries(
      (body.detectedLabels ?? []).map((l: { label: string; cardinality: number }) => [l.label, l.cardinality]),
    );
  };

  beforeAll(async () => {
    for (const tenant of [TWIN, THIRD]) {
      await pushStreams(tenant, [{ stream: { app: "api", namespace: "mt" }, values: API_LINES }], async () => {
        const r = await call(range('{app="api"}', "&limit=100"), tenant, { CACHE: "off" });
        const n = r.status === 200 ? linesByTenant(JSON.parse(r.body).data.result).get("") : 0;
        return n === API_LINES.length || `saw ${n} of ${API_LINES.length}`;
      });
    }
  });

  it("patterns: one series per pattern, the tenants' samples added per timestamp", async () => {
    const query = '{app="api"}';
    const [both, own, twin] = await Promise.all([
      patterns(query, `${TWIN}|${THIRD}`),
      patterns(query, TWIN),
      patterns(query, THIRD),
    ]);
    expect(own.length).toBeGreaterThan(0);
    expect(asMap(twin)).toEqual(asMap(own));
    expect(both).toHaveLength(own.length);
    // The same lines at the same times in both tenants: every count doubles.
    expect(asMap(both)).toEqual(
      new Map(
        [...asMap(own)].map(([text, p]) => [
          text,
          { level: p.level, samples: new Map([...p.samples].map(([ts, n]) => [ts, 2 * n])) },
        ]),
      ),
    );
    for (const p of both) expect(p.samples.map(([ts]) => ts)).toEqual([...p.samples.map(([ts]) => ts)].sort());
  });

  it("patterns of tenants with different lines are the union, and __tenant_id__ selects tenants", async () => {
    const [both, zero, own] = await Promise.all([
      patterns(QUERY, `0|${OWN}`),
      patterns(QUERY, "0"),
      patterns(QUERY, OWN),
    ]);
    expect(zero.length).toBeGreaterThan(0);
    expect(asMap(both)).toEqual(merged(zero, own));
    const narrowed = await patterns(`{__tenant_id__="${OWN}", app="nginx"}`, `0|${OWN}`);
    expect(asMap(narrowed)).toEqual(asMap(await patterns('{app="nginx"}', OWN)));
    const r = await call(
      `/loki/api/v1/patterns?query=${enc(`{__tenant_id__="${OWN}"}`)}&${window}&step=60s`,
      `0|${OWN}`,
    );
    expect(r.status, r.body).toBe(400);
  });

  it("detected_labels: the union of labels, a label's cardinality counting distinct values of all tenants", async () => {
    const [both, own, twin] = await Promise.all([
      labels(undefined, `${OWN}|${TWIN}`),
      labels(undefined, OWN),
      labels(undefined, TWIN),
    ]);
    expect(own).toEqual({ app: 1, namespace: 1 });
    expect(twin).toEqual({ app: 1, namespace: 1 });
    // app: nginx and api; namespace: mt in both, counted once.
    expect(both).toEqual({ app: 2, namespace: 1 });

    const [withZero, zero] = await Promise.all([labels(QUERY, `0|${OWN}`), labels(QUERY, "0")]);
    expect(zero.namespace).toBeGreaterThan(0);
    // Tenant 0's staging streams are nginx too: only namespace gains a value (mt).
    expect(withZero).toEqual({ ...zero, namespace: zero.namespace! + 1 });
  });

  it("detected_fields and field values answer empty across tenants, as Loki's querier does", async () => {
    const fields = `/loki/api/v1/detected_fields?query=${enc('{app="payments"}')}&${window}`;
    const single = await json(fields, "0");
    expect(single.fields.length).toBeGreaterThan(0);
    expect(await call(fields, `0|${OWN}`)).toEqual({ status: 200, body: "{}\n" });
    const values = `/loki/api/v1/detected_field/${enc(single.fields[0].label)}/values?query=${enc('{app="payments"}')}&${window}`;
    expect((await json(values, "0")).values.length).toBeGreaterThan(0);
    expect(await call(values, `0|${OWN}`)).toEqual({ status: 200, body: "{}\n" });
  });
});
