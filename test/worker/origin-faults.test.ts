/**
 * Fault injection between the Worker and the real VictoriaLogs: for every kind of origin failure and
 * every endpoint family, the Worker answers Loki's text/plain 502/504 (never a 200 holding a cut
 * answer, never a 500), quotes neither the origin's body nor its credential, keeps serving other
 * requests meanwhile, and leaves nothing bad in its caches: once the fault heals, the same request
 * answers exactly what a Worker asking VictoriaLogs directly answers.
 *
 * The proxy (test/support/fault-proxy.mjs) is chosen as the origin per request. The coalescer
 * Durable Object reads the origin from its own bindings, so it is left unbound here: the Worker's
 * own cache layer (Cache API and KV) is what these requests go through.
 */
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApp } from "../../src/app";
import type { Env } from "../../src/config";
import { GATEWAY } from "./support/gateway";

const ENV = env as unknown as Env;
const TIMEOUT_MS = 1500;
/** Text in every error page the proxy makes up; an answer quoting it echoed the origin's body. */
const MARKER = "fault-proxy-body-7f3a";

const W = "start=1769904000&end=1769925600";
const q = (s: string) => encodeURIComponent(s);

/**
 * One request per endpoint, grouped by family; all have data in the compat dataset. `unordered`:
 * the endpoint's series order is not defined (Loki's volume_range neither), so it is not compared.
 */
const ENDPOINTS: { family: string; path: string; unordered?: boolean }[] = [
  { family: "log query_range", path: `/loki/api/v1/query_range?query=${q('{app="nginx"}')}&${W}&limit=50` },
  {
    family: "metric query_range (local)",
    path: `/loki/api/v1/query_range?query=${q('rate({app="nginx", namespace="prod"}[5m])')}&${W}&step=300`,
  },
  {
    family: "metric query_range (pushed down)",
    path: `/loki/api/v1/query_range?query=${q('sum by (namespace) (count_over_time({app="nginx"}[5m]))')}&${W}&step=300`,
  },
  {
    family: "instant query",
    path: `/loki/api/v1/query?query=${q('sum by (app) (count_over_time({namespace="staging"}[1h]))')}&time=1769925600`,
  },
  { family: "labels", path: `/loki/api/v1/labels?${W}` },
  { family: "label values", path: `/loki/api/v1/label/app/values?${W}` },
  { family: "series", path: `/loki/api/v1/series?match[]=${q('{app="payments"}')}&${W}` },
  { family: "index/stats", path: `/loki/api/v1/index/stats?query=${q('{app="nginx"}')}&${W}` },
  { family: "index/volume", path: `/loki/api/v1/index/volume?query=${q('{app=~".+"}')}&${W}&limit=100` },
  {
    family: "index/volume_range",
    path: `/loki/api/v1/index/volume_range?query=${q('{app=~".+"}')}&${W}&step=3600&limit=100`,
    unordered: true,
  },
  { family: "detected_fields", path: `/loki/api/v1/detected_fields?query=${q('{app="payments"}')}&${W}` },
  { family: "detected_labels", path: `/loki/api/v1/detected_labels?query=${q('{app="payments"}')}&${W}` },
];

type FaultKind = "refuse" | "delay" | "status" | "html" | "truncate" | "reset" | "stall";

const FAULTS: { kind: FaultKind; status: 502 | 504; options?: Record<string, number> }[] = [
  { kind: "refuse", status: 502 },
  { kind: "delay", status: 504, options: { ms: TIMEOUT_MS + 1000 } },
  { kind: "status", status: 502, options: { status: 500 } },
  { kind: "html", status: 502 },
  { kind: "truncate", status: 502 },
  { kind: "reset", status: 502 },
  { kind: "stall", status: 504 },
];

async function setFault(kind: FaultKind | "none", options: Record<string, number> = {}): Promise<void> {
  const res = await fetch(inject("faultControlUrl"), { method: "POST", body: JSON.stringify({ kind, ...options }) });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

/** How many proxied requests the current fault was applied to. */
async function faultedCount(): Promise<number> {
  const res = await fetch(inject("faultControlUrl"));
  return ((await res.json()) as { faulted: number }).faulted;
}

interface Answer {
  status: number;
  type: string | null;
  body: string;
}

async function ask(path: string, bindings: Partial<Env>): Promise<Answer> {
  const res = await createApp().fetch(new Request(`http://loki.test${path}`, { headers: GATEWAY }), {
    ...ENV,
    ...bindings,
  });
  return { status: res.status, type: res.headers.get("Content-Type"), body: await res.text() };
}

/** The Worker asking VictoriaLogs itself, without caching: the reference answer. */
const direct = (path: string) => ask(path, { CACHE: "off", COALESCER: undefined });

/**
 * The Worker asking through the proxy, with its caches on. Each case has its own origin credential:
 * it must never show in an answer, and (being part of every cache key) it gives each case its own
 * cache entries, so one case's healed answer cannot hide the next case's fault.
 */
const throughProxy = (path: string, credential: string) =>
  ask(path, {
    ORIGIN_URL: inject("faultProxyUrl"),
    ORIGIN_TIMEOUT_MS: String(TIMEOUT_MS),
    ORIGIN_AUTH_HEADER: `Bearer ${credential}`,
    COALESCER: undefined,
  });

/**
 * An answer as compared with the direct one: everything but its `stats` (how long it took, and what
 * was read from caches or scanned, which differ between a filled and a served request), and for an
 * unordered endpoint, the series order.
 */
function comparable(body: string, unordered = false): unknown {
  const json = JSON.parse(body) as { data?: { result?: unknown[]; stats?: unknown } };
  const withoutTimes = JSON.parse(JSON.stringify(json, (k, v) => (k === "stats" ? undefined : v))) as typeof json;
  if (unordered && Array.isArray(withoutTimes.data?.result)) {
    withoutTimes.data.result.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }
  return withoutTimes;
}

/** fault × family → status, printed at the end for the record. */
const table = new Map<string, Map<string, number>>();

beforeAll(() => setFault("none"));
afterAll(async () => {
  await setFault("none");
  const families = ENDPOINTS.map((e) => e.family);
  const lines = [["fault", ...families].join(" | ")];
  for (const [kind, row] of table) lines.push([kind, ...families.map((f) => String(row.get(f) ?? "-"))].join(" | "));
  console.log(`origin fault matrix (status per endpoint):\n${lines.join("\n")}`);
});

describe("the fault proxy", () => {
  it("is transparent when no fault is chosen", async () => {
    const path = ENDPOINTS[0]!.path;
    const [viaProxy, reference] = [await throughProxy(path, "transparent"), await direct(path)];
    expect(viaProxy.status).toBe(200);
    expect(JSON.parse(viaProxy.body).data.result.length).toBeGreaterThan(0);
    expect(comparable(viaProxy.body)).toEqual(comparable(reference.body));
  });
});

describe.each(FAULTS)("origin fault: $kind", ({ kind, status, options }) => {
  it.each(ENDPOINTS)("$family fails cleanly and heals", async ({ family, path, unordered }) => {
    const credential = `fault-secret-${kind}-${family.replace(/\W+/g, "-")}`;
    const reference = await direct(path);
    expect(reference.status).toBe(200);

    await setFault(kind, options);
    // Another request, to a healthy origin, is answered while this one fails.
    const [failed, meanwhile] = await Promise.all([
      throughProxy(path, credential),
      direct("/loki/api/v1/label/namespace/values?start=1769904000&end=1769925600"),
    ]);
    const faulted = await faultedCount();
    await setFault("none");
    (table.get(kind) ?? table.set(kind, new Map()).get(kind)!).set(family, failed.status);

    expect(faulted).toBeGreaterThan(0);
    expect(failed.status, failed.body).toBe(status);
    expect(failed.type).toBe("text/plain; charset=utf-8");
    expect(failed.body).toMatch(/^origin /);
    expect(failed.body).not.toContain(MARKER);
    expect(failed.body).not.toContain(credential);
    expect(failed.body).not.toContain("Bearer");
    expect(meanwhile.status).toBe(200);
    expect(JSON.parse(meanwhile.body).data).toContain("prod");

    // A timed-out request returns as soon as its own deadline passes; the shared attempt it may
    // have joined (coalescing) ends a moment later. The healed request must start a fresh one.
    if (status === 504) await new Promise((r) => setTimeout(r, 250));

    // Healed: the same request (same cache keys) now answers exactly the direct answer, and again
    // from whatever it cached.
    const healed = await throughProxy(path, credential);
    expect(healed.status).toBe(200);
    expect(comparable(healed.body, unordered)).toEqual(comparable(reference.body, unordered));
    const again = await throughProxy(path, credential);
    expect(again.status).toBe(200);
    expect(comparable(again.body, unordered)).toEqual(comparable(reference.body, unordered));
  });
});
