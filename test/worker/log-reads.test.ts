/**
 * How a log query reads its range from the origin when the origin sorts and cuts: what it asks
 * for, how many rows come back, and that the answer is the one a single request over the whole
 * range gives (SPLIT_INTERVAL wider than the range), or the Worker alone (PUSHDOWN=off).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { queryRange } from "./support/request";
import { queryTraffic } from "./support/traffic";
import { pushStreams } from "../support/push-streams";
import type { Env } from "../../src/config";

const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const DATA_END = DATA_START + 6 * 3600;
const SIX_HOURS = { start: String(DATA_START), end: String(DATA_END) };

/** Each entry as `labels time line`, in the answer's order of time (streams merged). */
async function entries(query: string, params: Record<string, string>, env: Partial<Env>, headers = {}) {
  const res = await queryRange({ query, ...params }, { env: { CACHE: "off", ...env }, headers });
  expect(res.status, res.body.slice(0, 300)).toBe(200);
  const out: { ts: bigint; text: string }[] = [];
  for (const s of res.json.data.result) {
    const labels = JSON.stringify(Object.entries(s.stream).sort());
    for (const [t, line] of s.values) out.push({ ts: BigInt(t), text: `${labels} ${t} ${line}` });
  }
  const backward = params.direction !== "forward";
  out.sort((a, b) => (a.ts === b.ts ? (a.text < b.text ? -1 : 1) : a.ts < b.ts === backward ? 1 : -1));
  return out.map((e) => e.text);
}

describe("a query the origin cuts (no Worker stage drops rows)", () => {
  it("reads only the entries it answers: the edge hour and, beside it, the span the count says holds the rest", async () => {
    for (const direction of ["backward", "forward"]) {
      const params = { ...SIX_HOURS, limit: "5000", direction };
      const query = '{app="checkout"}';
      const answer = await entries(query, params, {});
      // One request over the whole range, cut by the origin: the reference.
      expect(answer).toEqual(await entries(query, params, { SPLIT_INTERVAL: "24h" }));
      expect(answer).toHaveLength(5000);
      const traffic = await queryTraffic(query, params, true);
      // The count of the range, the edge hour, the span past it: every row read is answered.
      expect(traffic.requests, direction).toBe(3);
      expect(traffic.rows, direction).toBe(5000);
    }
  });

  it("a line filter is not counted first: the edge hour, then windows asking only for what is missing", async () => {
    const query = '{app="checkout"} |= "GET"';
    for (const direction of ["backward", "forward"]) {
      const params = { ...SIX_HOURS, limit: "3000", direction };
      const answer = await entries(query, params, {});
      expect(answer).toEqual(await entries(query, params, { SPLIT_INTERVAL: "24h" }));
      expect(answer).toHaveLength(3000);
      const traffic = await queryTraffic(query, params, true);
      expect(traffic.requests, direction).toBeLessThanOrEqual(3);
      expect(traffic.rows, direction).toBe(3000);
    }
  });
});

describe("a query whose parsed-field filters the origin applies", () => {
  const query = '{app="checkout"} | json | status >= 500';

  it("reads a sparse range in at most three cut requests (the edge hour, a window sized from its density, the rest), not one per window, with the same entries", async () => {
    for (const direction of ["backward", "forward"]) {
      const params = { ...SIX_HOURS, limit: "5000", direction };
      const answer = await entries(query, params, {});
      expect(answer.length).toBeGreaterThan(100);
      expect(answer.length).toBeLessThan(5000);
      expect(answer).toEqual(await entries(query, params, { PUSHDOWN: "off" }));
      const traffic = await queryTraffic(query, params, true);
      // Was one request per hour of the range (6).
      expect(traffic.requests, direction).toBeLessThanOrEqual(3);
    }
  });

  it("over more than 24 intervals: the edge, a window sized from its density, the rest; the same entries", async () => {
    for (const direction of ["backward", "forward"]) {
      const params = { ...SIX_HOURS, limit: "5000", direction };
      const vars = { SPLIT_INTERVAL: "10m" } as Partial<Env>;
      expect(await entries(query, params, vars)).toEqual(await entries(query, params, { PUSHDOWN: "off" }));
      // Was one request per 10 minutes past the first two windows (34 or more).
      expect((await queryTraffic(query, params, true, vars)).requests, direction).toBeLessThanOrEqual(3);
    }
  });

  it("with the results cache: the same entries, cold and warm, from a few requests", async () => {
    const params = { ...SIX_HOURS, limit: "5000" };
    const reference = await entries(query, params, { PUSHDOWN: "off" });
    for (const pass of ["cold", "warm"]) {
      const res = await queryRange({ query, ...params }, { env: { CACHE: "on" }, settle: true });
      expect(res.status).toBe(200);
      // Cold: the edge windows (kept in pieces) and the rest; warm: only the pieces still open.
      expect(res.json.data.stats.summary.subqueries, pass).toBeLessThanOrEqual(4);
    }
    expect(await entries(query, params, { CACHE: "on" })).toEqual(reference);
  });
});

/**
 * Rows at one nanosecond where the origin's cut falls: a page ends among them, and the Worker drops
 * some of the rows the origin sends (the guard's), so it reads on past the page.
 */
describe("pages cut among rows of equal time (real VictoriaLogs)", () => {
  const TENANT = { "X-Scope-OrgID": "43:6" };
  const base = BigInt(DATA_START) * 1_000_000_000n;
  const at = (s: number) => String(base + BigInt(s) * 1_000_000_000n);
  // Kept by `num >= 5`; an escaped key makes the guard send a row the Worker then drops (num 1).
  const keep = (i: number) => `{"num": 7, "i": ${i}}`;
  const drop = (i: number) => `{"num": 1, "\\u0069": ${i}}`;
  const values: [string, string][] = [];
  // Newest: three kept rows, each its own second.
  for (let i = 0; i < 3; i++) values.push([at(100 + i), keep(i)]);
  // One nanosecond: four kept rows among twenty dropped ones.
  for (let i = 0; i < 24; i++) values.push([at(50), i % 6 === 0 ? keep(10 + i) : drop(10 + i)]);
  // Oldest: three kept rows, and dropped ones between them.
  for (let i = 0; i < 3; i++) values.push([at(10 + i), keep(40 + i)], [at(20 + i), drop(40 + i)]);
  const RANGE = { start: String(DATA_START), end: String(DATA_START + 3 * 3600) };
  const query = '{app="ties"} | json | num >= 5';

  beforeAll(async () => {
    await pushStreams("43:6", [{ stream: { app: "ties" }, values }], async () => {
      const n = (await entries('{app="ties"}', { ...RANGE, limit: "100" }, { PUSHDOWN: "off" }, TENANT)).length;
      return n === values.length || `saw ${n} of ${values.length} lines`;
    });
  });

  it("keeps every kept row of the nanosecond, whichever of them the cut fell among", async () => {
    // 3: the newest (or oldest) three; 7: and the four of the nanosecond; 10 and more: all of them.
    for (const direction of ["backward", "forward"]) {
      for (const limit of ["3", "7", "10", "100"]) {
        const params = { ...RANGE, limit, direction };
        const answer = await entries(query, params, {}, TENANT);
        const expected = Math.min(Number(limit), 10);
        expect(answer, `${direction} ${limit}`).toHaveLength(expected);
        expect(answer).toEqual(await entries(query, params, { PUSHDOWN: "off" }, TENANT));
        const nanosecond = answer.filter((e) => e.includes(` ${at(50)} `));
        if (expected >= 7) expect(nanosecond, `${direction} ${limit}`).toHaveLength(4);
      }
      // A limit that ends inside the nanosecond: two of its four, which two is the origin's order.
      const five = await entries(query, { ...RANGE, limit: "5", direction }, {}, TENANT);
      expect(five.filter((e) => e.includes(` ${at(50)} `))).toHaveLength(2);
    }
  });
});
