/**
 * Live tail over a WebSocket, inside workerd against the real origin: the first frame replays the
 * newest entries since `start`, exactly the entries a backward query_range over the same window
 * returns, in Loki's tail frame shape. Loki's limits on a tail: `limit`, `delay_for`, and its
 * maximum duration, after which it closes with 1011.
 */
import { env, exports } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import direct from "../../src/index";
import type { Env } from "../../src/config";
import { GATEWAY } from "./support/gateway";

const worker = (exports as unknown as { default: Fetcher }).default;
const QUERY = '{app="auth", namespace="prod"}';
const START_NS = "1769925000000000000"; // the dataset's last 10 minutes

function firstFrame(ws: WebSocket): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no tail frame within 20 s")), 20_000);
    ws.addEventListener("message", (ev) => {
      clearTimeout(timer);
      resolve(String(ev.data));
    });
    ws.addEventListener("close", (ev) => reject(new Error(`closed ${ev.code} ${ev.reason}`)));
  });
}

describe("tail", () => {
  it("streams the newest entries since start as Loki tail frames", async () => {
    const qs = new URLSearchParams({ query: QUERY, start: START_NS, limit: "20" });
    // The dataset lies further back than Loki's default max_query_length (721h) allows a tail's start.
    const res = await direct.fetch(
      new Request(`http://loki.test/loki/api/v1/tail?${qs}`, {
        headers: { ...GATEWAY, Upgrade: "websocket", "X-Loki-Response-Encoding-Flags": "categorize-labels" },
      }) as Request<unknown, IncomingRequestCfProperties>,
      { ...(env as Env), MAX_QUERY_LENGTH: "87600h" },
      createExecutionContext(),
    );
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    ws.accept();
    const frame = JSON.parse(await firstFrame(ws));
    ws.close(1000, "done");

    expect(Object.keys(frame)).toEqual(["streams", "encodingFlags"]);
    const got = frame.streams.flatMap((s: { stream: object; values: [string, string, object][] }) =>
      s.values.map((v) => [v[0], v[1], JSON.stringify(s.stream)]),
    );
    const range = await worker.fetch(
      `http://loki.test/loki/api/v1/query_range?${new URLSearchParams({ query: QUERY, start: START_NS, end: "1769925600000000000" /* the dataset's end: nothing is newer */, limit: "20" })}`,
      { headers: { ...GATEWAY, "X-Loki-Response-Encoding-Flags": "categorize-labels" } },
    );
    const want = (
      await range.json<{ data: { result: { stream: object; values: [string, string][] }[] } }>()
    ).data.result.flatMap((s) => s.values.map((v) => [v[0], v[1], JSON.stringify(s.stream)]));
    expect(got.length).toBe(20);
    expect([...got].sort()).toEqual([...want].sort());
  });

  it("refuses a plain GET", async () => {
    const res = await worker.fetch(`http://loki.test/loki/api/v1/tail?query=${encodeURIComponent(QUERY)}`, {
      headers: GATEWAY,
    });
    expect(res.status).toBe(400);
  });

  it("refuses a limit above the max entries limit and a delay_for above 5, as Loki does", async () => {
    const open = (extra: Record<string, string>) =>
      worker.fetch(`http://loki.test/loki/api/v1/tail?${new URLSearchParams({ query: QUERY, ...extra })}`, {
        headers: { ...GATEWAY, Upgrade: "websocket" },
      });
    const tooMany = await open({ limit: "5001" });
    expect(tooMany.status).toBe(400);
    expect(await tooMany.text()).toBe(
      "max entries limit per query exceeded, limit > max_entries_limit_per_query (5001 > 5000)",
    );
    const tooLate = await open({ delay_for: "6" });
    expect(tooLate.status).toBe(400);
    expect(await tooLate.text()).toBe("delay_for can't be greater than 5");
    const metric = await worker.fetch(
      `http://loki.test/loki/api/v1/tail?${new URLSearchParams({ query: `count_over_time(${QUERY}[1m])` })}`,
      { headers: { ...GATEWAY, Upgrade: "websocket" } },
    );
    expect(metric.status).toBe(400);
  });

  it("closes with 1011 after the tail max duration", async () => {
    const res = await direct.fetch(
      new Request(`http://loki.test/loki/api/v1/tail?${new URLSearchParams({ query: QUERY })}`, {
        headers: { ...GATEWAY, Upgrade: "websocket" },
      }) as Request<unknown, IncomingRequestCfProperties>,
      { ...(env as Env), TAIL_MAX_DURATION: "2s" },
      createExecutionContext(),
    );
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    const opened = Date.now();
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.addEventListener("close", (ev) => resolve({ code: ev.code, reason: ev.reason })),
    );
    ws.accept();
    const ev = await Promise.race([closed, new Promise((r) => setTimeout(() => r("still open"), 10_000))]);
    expect(ev).toEqual({ code: 1011, reason: "reached tail max duration limit" });
    expect(Date.now() - opened).toBeGreaterThanOrEqual(1900);
  });
});
