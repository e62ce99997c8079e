/**
 * Hostile strings from a query must reach VictoriaLogs as data, never as LogsQL structure: each of
 * these asks for text that no line of the compat dataset contains, so the only right answer is 200
 * with no entries. A string that broke out of its quotes would either be rejected by the origin
 * (a 500 here) or widen the match (entries here).
 */
import { describe, expect, it } from "vitest";
import { queryRange } from "./support/request";

const WINDOW = { start: "1769904000", end: "1769925600", limit: "50" };

async function entries(query: string): Promise<{ status: number; count: number; body: string }> {
  const res = await queryRange({ ...WINDOW, query });
  const body = res.body;
  if (res.status !== 200) return { status: res.status, count: -1, body };
  const json = res.json as { data: { result: { values: unknown[] }[] } };
  return { status: 200, count: json.data.result.reduce((n, s) => n + s.values.length, 0), body };
}

const HOSTILE_LITERALS = [
  '\\" | delete _msg | \\"',
  'x\\" or _msg:*',
  "` | stats count() `",
  "line\\nbreak",
  "nul\\u0000byte",
  "\\\\",
  "☕".repeat(300),
  "| limit 1",
];

describe("query strings cannot change the LogsQL structure", () => {
  it.each(HOSTILE_LITERALS)("line filter |= %j selects nothing", async (lit) => {
    const r = await entries(`{app="nginx"} |= "${lit}"`);
    expect(r.status, r.body).toBe(200);
    expect(r.count).toBe(0);
  });

  it.each(HOSTILE_LITERALS)("selector value %j selects nothing", async (lit) => {
    const r = await entries(`{app="${lit}"}`);
    expect(r.status, r.body).toBe(200);
    expect(r.count).toBe(0);
  });

  it.each(HOSTILE_LITERALS)(
    "label filter value %j (sent to the origin as a prefilter) selects nothing",
    async (lit) => {
      const r = await entries(`{app="nginx"} | logfmt | level="${lit}"`);
      expect(r.status, r.body).toBe(200);
      expect(r.count).toBe(0);
    },
  );

  it("regex filters stay regexes: an escaped hostile regex matches nothing", async () => {
    const r = await entries('{app="nginx"} |~ "\\\\| delete _msg"');
    expect(r.status, r.body).toBe(200);
    expect(r.count).toBe(0);
  });

  it("the same filters on real text still match (the test can fail)", async () => {
    const r = await entries('{app="nginx", namespace="prod"} |= "app.js"');
    expect(r.status).toBe(200);
    expect(r.count).toBeGreaterThan(0);
  });
});
