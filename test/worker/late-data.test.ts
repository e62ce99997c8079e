/**
 * Late lines become visible. A shipper that reconnects after an outage sends lines stamped an hour or
 * two back, into windows the Worker may already have cached as empty. In workerd against the real
 * VictoriaLogs: such entries live only as long as their window's age allows (policy.ts), and an
 * operator can purge a tenant's range at once (POST /admin/cache/purge), for that tenant only.
 *
 * The graded lifetime is checked by moving the clock the Worker reads (Date.now; the Worker and these
 * tests share one isolate) past it: every tier checks the expiry stamped in the entry, so nothing
 * has to wait in real time.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import type { Env } from "../../src/config";
import { pushStreams } from "../support/push-streams";

const ENV = env as unknown as Env;
const ADMIN_TOKEN = "operator-secret-for-late-data-tests";
const MIN_S = 60;

/** The range every query asks for: from 3 h ago to 30 min ago (all of it historical). */
const NOW_S = Math.floor(Date.now() / 1000);
const START_S = NOW_S - 180 * MIN_S;
const END_S = NOW_S - 30 * MIN_S;
/** A backlog: one line every 5 minutes from 140 to 40 minutes ago, as a reconnecting shipper sends. */
const BACKLOG_AGES_MIN = Array.from({ length: 21 }, (_, i) => 140 - 5 * i);
const RUN = Date.now().toString(36);

afterEach(() => {
  vi.restoreAllMocks();
});

async function call(req: Request, over: Partial<Env> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await createApp().fetch(req, { ...ENV, ...over }, ctx);
  // Cache writes run after the response; the next request finds them, as in production.
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return new Response(text, { status: res.status, headers: res.headers });
}

async function queryRange(tenant: string, query: string, extra: Record<string, string>, over: Partial<Env> = {}) {
  const params = new URLSearchParams({ query, start: String(START_S), end: String(END_S), ...extra });
  const res = await call(
    new Request(`http://loki.test/loki/api/v1/query_range?${params}`, { headers: { "X-Scope-OrgID": tenant } }),
    over,
  );
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as { data: { result: { values: [unknown, string][] }[] } };
}

/** How many lines the log query answers. */
async function linesSeen(tenant: string, app: string, over: Partial<Env> = {}): Promise<number> {
  const answer = await queryRange(tenant, `{app="${app}"}`, { limit: "1000" }, over);
  return answer.data.result.reduce((n, s) => n + s.values.length, 0);
}

/** The sum of every sample of a 5-minute count: each line is counted exactly once. */
async function linesCounted(tenant: string, app: string, over: Partial<Env> = {}): Promise<number> {
  const answer = await queryRange(tenant, `sum(count_over_time({app="${app}"}[5m]))`, { step: "300" }, over);
  return answer.data.result.reduce((n, s) => n + s.values.reduce((m, v) => m + Number(v[1]), 0), 0);
}

async function pushBacklog(tenant: string, app: string): Promise<void> {
  const values = BACKLOG_AGES_MIN.map((age) => [
    // 17 s off the minute, so no line sits on an evaluation time's edge.
    String(BigInt(NOW_S - age * MIN_S + 17) * 1_000_000_000n),
    `late line ${age} min ago`,
  ]);
  await pushStreams(tenant, [{ stream: { app }, values }], async () => {
    const seen = await linesSeen(tenant, app, { CACHE: "off" });
    return seen === values.length || `${seen} of ${values.length} lines`;
  });
}

function purge(params: Record<string, string>, headers: Record<string, string>, over: Partial<Env> = {}) {
  return call(
    new Request(`http://loki.test/admin/cache/purge?${new URLSearchParams(params)}`, { method: "POST", headers }),
    { ADMIN_TOKEN, ...over },
  );
}

describe("late lines in windows already cached empty", () => {
  it("appear once the entries' graded lifetime has passed", async () => {
    const tenant = "9272:0";
    const app = `late-ttl-${RUN}`;
    expect(await linesSeen(tenant, app)).toBe(0);
    expect(await linesCounted(tenant, app)).toBe(0);

    await pushBacklog(tenant, app);
    // The origin holds every line; the cache still answers from the empty entries.
    expect(await linesSeen(tenant, app)).toBe(0);
    expect(await linesCounted(tenant, app)).toBe(0);

    // 21 minutes later: windows that ended 30 min to 3 h ago lived 2 or 20 minutes, not a day.
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, "now").mockImplementation(() => realNow() + 21 * MIN_S * 1000);
    expect(await linesSeen(tenant, app)).toBe(BACKLOG_AGES_MIN.length);
    expect(await linesCounted(tenant, app)).toBe(BACKLOG_AGES_MIN.length);
  });

  it("appear at once after an operator purges the tenant's range, and only for that tenant", async () => {
    const tenant = "9273:0";
    const other = "9274:0";
    const app = `late-purge-${RUN}`;
    for (const t of [tenant, other]) {
      expect(await linesSeen(t, app)).toBe(0);
      expect(await linesCounted(t, app)).toBe(0);
      await pushBacklog(t, app);
      expect(await linesSeen(t, app)).toBe(0);
    }

    const range = { tenant: "9273", start: String(START_S), end: String(END_S) };
    // No endpoint without ADMIN_TOKEN (an empty one included), and no purge without it.
    expect((await purge(range, { Authorization: `Bearer ${ADMIN_TOKEN}` }, { ADMIN_TOKEN: undefined })).status).toBe(
      404,
    );
    expect((await purge(range, { Authorization: "Bearer " }, { ADMIN_TOKEN: "" })).status).toBe(404);
    const refused: Record<string, string>[] = [
      {},
      { "X-Scope-OrgID": tenant },
      { Authorization: "Bearer wrong-token" },
      { Authorization: `Basic ${btoa(`admin:${ADMIN_TOKEN}`)}` },
    ];
    for (const headers of refused) {
      const res = await purge(range, headers);
      const body = await res.text();
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(body).not.toContain(ADMIN_TOKEN);
    }
    // Nothing was purged by the refused attempts.
    expect(await linesSeen(tenant, app)).toBe(0);

    const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    expect((await purge({ ...range, tenant: "" }, auth)).status).toBe(400);
    expect((await purge({ ...range, tenant: "not-a-tenant" }, auth)).status).toBe(400);
    expect((await purge({ ...range, start: "bogus" }, auth)).status).toBe(400);
    expect((await purge({ ...range, start: range.end, end: range.start }, auth)).status).toBe(400);

    const done = await purge(range, auth);
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({
      status: "success",
      data: { tenant: "9273:0", start: `${START_S}000000000`, end: `${END_S}000000000` },
    });

    expect(await linesSeen(tenant, app)).toBe(BACKLOG_AGES_MIN.length);
    expect(await linesCounted(tenant, app)).toBe(BACKLOG_AGES_MIN.length);
    // The other tenant's entries were not touched: still its cached (empty) answer.
    expect(await linesSeen(other, app)).toBe(0);
    expect(await linesCounted(other, app)).toBe(0);
  });

  it("answers hostile purge parameters with 400, never a 500", async () => {
    const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    const hostile = [
      "",
      "x",
      "-1",
      "1e300",
      "NaN",
      "9".repeat(30),
      "2026-13-45T99:99:99Z",
      "\u0000",
      "4294967296",
      "1|2",
    ];
    for (const value of hostile) {
      for (const name of ["tenant", "start", "end"]) {
        const params: Record<string, string> = { tenant: "9275", [name]: value };
        const res = await purge(params, auth);
        const text = await res.text();
        expect([200, 400], `${name}=${JSON.stringify(value)}: ${text}`).toContain(res.status);
        if (res.status === 400) expect(res.headers.get("Content-Type")).toMatch(/^text\/plain/);
      }
    }
    // Other methods are refused once authenticated; unauthenticated, everything is 401.
    const get = await call(new Request("http://loki.test/admin/cache/purge?tenant=1", { headers: auth }), {
      ADMIN_TOKEN,
    });
    expect(get.status).toBe(405);
    expect((await call(new Request("http://loki.test/admin/cache/purge?tenant=1"), { ADMIN_TOKEN })).status).toBe(401);
  });
});
