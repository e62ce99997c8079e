/**
 * The `Cache-Status` header (RFC 9211) inside workerd, with the real Cache API and coalescer, in
 * front of the real VictoriaLogs: a cold answer is a miss, the same one again a hit, a wider range
 * over it a partial that says how many pieces were found, and the client's `no-cache`,
 * `CACHE=off`, a range within the freshness horizon and an answer that is never cached are
 * bypasses that say why.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config";
import { call } from "./support/request";

/** The compat dataset (tenant 0:0) spans 2026-02-01T00:00Z to 06:00Z. */
const T0 = 1769904000;

async function get(path: string, headers: Record<string, string> = {}, over: Partial<Env> = {}) {
  // Cache writes run after the answer (settle): the next request must find them.
  const res = await call(path, {}, { headers, env: over, settle: true });
  expect(res.status, res.body).toBe(200);
  return { status: res.headers.get("Cache-Status"), timing: res.headers.get("Server-Timing") ?? "" };
}

/** A metric query over [start, end) whose text no other test asks: its cache entries are its own. */
function metric(start: number, end: number, token: string): string {
  const query = `sum by (app) (count_over_time({namespace="prod"} != "${token}" [5m]))`;
  return `/loki/api/v1/query_range?${new URLSearchParams({ query, start: String(start), end: String(end), step: "300" })}`;
}

const pieces = (status: string | null) =>
  /detail="(\d+)\/(\d+) pieces"/
    .exec(status ?? "")
    ?.slice(1)
    .map(Number);

describe("Cache-Status", () => {
  it("says miss, then hit, then partial with how many pieces were found", async () => {
    const token = `cs-${crypto.randomUUID()}`;
    const cold = await get(metric(T0, T0 + 3600, token));
    expect(cold.status).toMatch(/^loki-vl-worker; fwd=miss; detail="0\/\d+ pieces"$/);
    const [, coldPieces] = pieces(cold.status)!;
    expect(coldPieces).toBeGreaterThan(0);
    // Origin requests were made, as Server-Timing says too.
    expect(cold.timing).not.toContain('origin;dur=0.0;desc="0 requests"');

    const warm = await get(metric(T0, T0 + 3600, token));
    expect(warm.status).toBe("loki-vl-worker; hit");
    expect(warm.timing).toContain('desc="0 requests"');

    // The same query over three hours: the first hour's pieces are found, the rest asked for.
    const wider = await get(metric(T0, T0 + 3 * 3600, token));
    const [found, of] = pieces(wider.status)!;
    expect(wider.status).toBe(`loki-vl-worker; fwd=partial; detail="${found}/${of} pieces"`);
    // As many pieces as a cold three-hour query has, those of the first hour found.
    const otherCold = await get(metric(T0, T0 + 3 * 3600, `cs-${crypto.randomUUID()}`));
    expect(otherCold.status).toBe(`loki-vl-worker; fwd=miss; detail="0/${of} pieces"`);
    expect(found).toBe(coldPieces);
    expect(of).toBeGreaterThan(found!);
  });

  it("counts a log query's windows: one cached hour of two is a partial", async () => {
    const token = `cs-${crypto.randomUUID()}`;
    // Matches no line: every window is read to its end (no limit reached), so each is looked up.
    const logs = (end: number) =>
      `/loki/api/v1/query_range?${new URLSearchParams({ query: `{namespace="prod"} |= "${token}"`, start: String(T0), end: String(end), limit: "100" })}`;
    expect((await get(logs(T0 + 3600))).status).toBe('loki-vl-worker; fwd=miss; detail="0/1 pieces"');
    expect((await get(logs(T0 + 3600))).status).toBe("loki-vl-worker; hit");
    expect((await get(logs(T0 + 7200))).status).toBe('loki-vl-worker; fwd=partial; detail="1/2 pieces"');
  });

  it("says bypass and why: the client's no-cache, CACHE=off", async () => {
    const token = `cs-${crypto.randomUUID()}`;
    await get(metric(T0, T0 + 3600, token));
    // Warm, yet the client asked for the origin's answer.
    const noCache = await get(metric(T0, T0 + 3600, token), { "Cache-Control": "no-cache" });
    expect(noCache.status).toBe('loki-vl-worker; fwd=bypass; detail="no-cache"');
    expect(noCache.timing).toMatch(/origin;dur=[\d.]+;desc="[1-9]\d* requests"/);
    const off = await get(metric(T0, T0 + 3600, token), {}, { CACHE: "off" });
    expect(off.status).toBe('loki-vl-worker; fwd=bypass; detail="CACHE=off"');
  });

  it("says bypass for a range within the freshness horizon and for answers never cached", async () => {
    const now = Math.floor(Date.now() / 1000);
    const recent = await get(metric(now - 300, now, `cs-${crypto.randomUUID()}`));
    expect(recent.status).toBe('loki-vl-worker; fwd=bypass; detail="fresh window"');
    // A log query shorter than the split interval goes to the origin in one request, uncached.
    const short = await get(
      `/loki/api/v1/query_range?${new URLSearchParams({ query: '{namespace="prod"}', start: String(T0), end: String(T0 + 900), limit: "10" })}`,
    );
    expect(short.status).toBe('loki-vl-worker; fwd=bypass; detail="not cached"');
    // Neither a cache nor the origin took part: no header.
    expect((await get("/loki/api/v1/drilldown-limits")).status).toBeNull();
  });
});
