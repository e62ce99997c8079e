/**
 * What bounds a live tail, inside workerd against the real VictoriaLogs: Loki's
 * max_concurrent_tail_requests per tenant, Loki's max_query_length on the replay's `start`, and
 * the origin work of an open tail — a quiet tail asks for row counts, it does not re-read its
 * look-back window every second. Each case works in a tenant of its own.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { readConfig, type Env } from "../../src/config";
import { parseVLTime } from "../../src/origin/timefmt";
import { watchOrigin } from "../support/watch-origin";
import type { TailSlotCounter } from "../../src/exec/tail-slot-object";

const ENV = env as unknown as Env;
const ORIGIN = readConfig(ENV).originUrl;
const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function openTail(
  tenant: number,
  params: Record<string, string>,
  overrides: Partial<Env> = {},
): Promise<Response> {
  const qs = new URLSearchParams(params);
  return await worker.fetch(
    new Request(`http://loki.test/loki/api/v1/tail?${qs}`, {
      headers: { Upgrade: "websocket", "X-Scope-OrgID": `${tenant}:0` },
    }) as Request<unknown, IncomingRequestCfProperties>,
    { ...ENV, TENANCY: "header", ...overrides },
    createExecutionContext(),
  );
}

/** An accepted tail's socket, accepted, with what it received. */
function accepted(res: Response): { ws: WebSocket; got: string[]; closed: () => string | undefined } {
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const got: string[] = [];
  let closed: string | undefined;
  ws.accept();
  ws.addEventListener("message", (ev) => {
    const frame = JSON.parse(String(ev.data)) as { streams: { values: [string, string][] }[] };
    for (const s of frame.streams) for (const [ts, line] of s.values) got.push(`${ts} ${line}`);
  });
  ws.addEventListener("close", (ev) => {
    closed = `${ev.code} ${ev.reason}`;
  });
  return { ws, got, closed: () => closed };
}

async function push(tenant: number, app: string, values: [bigint, string][]): Promise<void> {
  const res = await fetch(`${ORIGIN}/insert/loki/api/v1/push?disable_message_parsing=1`, {
    method: "POST",
    headers: { "Content-Type": "application/json", AccountID: String(tenant), ProjectID: "0" },
    body: JSON.stringify({ streams: [{ stream: { app }, values: values.map(([ts, l]) => [String(ts), l]) }] }),
  });
  expect(res.status).toBe(204);
}

describe("tail limits", () => {
  it("the 11th concurrent tail of a tenant gets Loki's 400 while 10 stay open; other tenants are unaffected", async () => {
    const query = { query: '{app="tail-limit"}', start: String(nowNs()) };
    const open = [];
    for (let i = 0; i < 10; i++) open.push(accepted(await openTail(9201, query)));
    const refused = await openTail(9201, query);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toBe("max concurrent tail requests limit exceeded, count > limit (11 > 10)");
    const other = accepted(await openTail(9202, query));

    await sleep(1500);
    for (const t of open) expect(t.closed()).toBeUndefined();
    // A closed tail frees its slot.
    open[0]!.ws.close(1000, "done");
    await sleep(300);
    const again = accepted(await openTail(9201, query));
    for (const t of [...open.slice(1), other, again]) t.ws.close(1000, "done");
    await sleep(300);
  });

  it("tails a tenant holds on other isolates count: the tenant's counter object refuses the 11th here", async () => {
    // Ten leases taken as other isolates take them, through the tenant's counter object.
    const ns = ENV.TAIL_SLOTS as unknown as DurableObjectNamespace<TailSlotCounter>;
    const counter = ns.get(ns.idFromName("9207:0"));
    for (let i = 0; i < 10; i++)
      expect(await counter.acquire(`elsewhere-${i}`, 10, 60_000)).toEqual({ ok: true, open: i });
    const query = { query: '{app="tail-limit"}', start: String(nowNs()) };
    const refused = await openTail(9207, query);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toBe("max concurrent tail requests limit exceeded, count > limit (11 > 10)");
    // One of them ends elsewhere: a tail opens here.
    await counter.release("elsewhere-0");
    const t = accepted(await openTail(9207, query));
    expect((await counter.acquire("probe", 10, 60_000)).open).toBe(10);
    t.ws.close(1000, "done");
    await sleep(300);
    // The closed tail released its lease: nine held elsewhere remain.
    expect(await counter.acquire("probe-2", 10, 60_000)).toMatchObject({ ok: true, open: 9 });
  });

  it("MAX_CONCURRENT_TAILS sets the limit", async () => {
    const query = { query: '{app="tail-limit"}', start: String(nowNs()) };
    const first = accepted(await openTail(9203, query, { MAX_CONCURRENT_TAILS: "1" }));
    const second = await openTail(9203, query, { MAX_CONCURRENT_TAILS: "1" });
    expect(second.status).toBe(400);
    expect(await second.text()).toBe("max concurrent tail requests limit exceeded, count > limit (2 > 1)");
    first.ws.close(1000, "done");
    await sleep(300);
  });

  it("start=0 gets Loki's query-length 400 and asks the origin nothing", async () => {
    const calls = watchOrigin(ORIGIN);
    const res = await openTail(9204, { query: '{app="tail-start"}', start: "0" });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(
      /^the query time range exceeds the limit \(query length: \d+h\d+m[\d.]+s, limit: 30d1h\)$/,
    );
    expect(calls).toEqual([]);
  });

  it("with MAX_QUERY_LENGTH off, start=0 replays no further back than 721h, not from 1970", async () => {
    const calls = watchOrigin(ORIGIN);
    const opened = nowNs();
    const t = accepted(await openTail(9205, { query: '{app="tail-start"}', start: "0" }, { MAX_QUERY_LENGTH: "0" }));
    await sleep(2000);
    t.ws.close(1000, "done");
    await sleep(300);
    expect(calls.length).toBeGreaterThan(0);
    const oldest = calls.reduce((min, c) => (parseVLTime(c.start) < min ? parseVLTime(c.start) : min), opened);
    expect(oldest).toBeGreaterThanOrEqual(opened - 721n * 3_600_000_000_000n - 60_000_000_000n);
  });

  it("a quiet tail over 3,000 rows in its look-back reads none of them again: one row count a second", async () => {
    const app = `tail-quiet-${Date.now()}`;
    const base = nowNs() - 60_000_000_000n;
    await push(
      9206,
      app,
      Array.from({ length: 3000 }, (_, i) => [base + BigInt(i) * 10_000_000n, `quiet ${i}`] as [bigint, string]),
    );
    await sleep(2500);
    const t = accepted(await openTail(9206, { query: `{app="${app}"}`, start: String(nowNs()) }));
    await sleep(2500);

    const calls = watchOrigin(ORIGIN);
    await sleep(5000);
    const reads = calls.filter((c) => c.path === "/select/logsql/query");
    const counts = calls.filter((c) => c.path === "/select/logsql/hits");
    expect(reads).toEqual([]);
    expect(counts.length).toBeGreaterThanOrEqual(3);
    expect(counts.length).toBeLessThanOrEqual(6);

    // A line stamped 50 s back arrives once, read from its own second of the window only.
    const late = nowNs() - 50_000_000_000n;
    await push(9206, app, [[late, "late line"]]);
    const deadline = Date.now() + 15_000;
    while (t.got.length === 0 && Date.now() < deadline) await sleep(100);
    await sleep(2500);
    expect(t.got).toEqual([`${late} late line`]);
    const lateReads = calls.filter((c) => c.path === "/select/logsql/query");
    expect(lateReads.length).toBeGreaterThan(0);
    for (const r of lateReads) expect(parseVLTime(r.end) - parseVLTime(r.start)).toBeLessThanOrEqual(2_000_000_000n);
    expect(t.closed()).toBeUndefined();
    t.ws.close(1000, "done");
    await sleep(300);
  });
});
