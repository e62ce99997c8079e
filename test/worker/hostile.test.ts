/**
 * Requests built to hurt the isolate, inside workerd against the real origin: each gets Loki's
 * error shape (or Loki's per-line template error) and a small answer, never a 500, a hang or an
 * answer that would take the isolate's memory. And Loki label names that VictoriaLogs reserves
 * never reach it as field names: pushed-down and local answers agree.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config";
import { call } from "./support/request";

const W = { start: "1769904000", end: "1769925600" };

async function ask(path: string, params: Record<string, string>, over: Partial<Env> = {}) {
  const res = await call(path, params, { env: { CACHE: "off", ...over }, settle: true });
  return { status: res.status, type: res.headers.get("Content-Type"), body: res.body };
}

describe("hostile input", () => {
  it("a template that would build a 20 MB line gives each line Loki's template error, not a 400 MB answer", async () => {
    const a = await ask("/loki/api/v1/query_range", {
      query: '{app="nginx"} | line_format "{{ repeat 20000000 \\"x\\" }}"',
      ...W,
      limit: "20",
    });
    expect(a.status, a.body).toBe(200);
    expect(a.body.length).toBeLessThan(100_000);
    const streams = JSON.parse(a.body).data.result as { stream: Record<string, string>; values: string[][] }[];
    expect(streams.flatMap((s) => s.values)).toHaveLength(20);
    for (const s of streams) {
      expect(s.stream.__error__).toBe("TemplateFormatErr");
      expect(s.stream.__error_details__).toContain("exceeds the limit");
    }
  });

  it("a query nested 1,000 deep is a Loki-shaped 400", async () => {
    const query = "sum(".repeat(1000) + 'count_over_time({app="nginx"}[1m])' + ")".repeat(1000);
    const a = await ask("/loki/api/v1/query_range", { query, ...W, step: "60" });
    expect(a.status).toBe(400);
    expect(a.type).toContain("text/plain");
    expect(a.body).toBe("parse error : query is nested deeper than the limit (256 levels of parentheses)");
    const fine = "sum(".repeat(200) + 'count_over_time({app="nginx"}[1m])' + ")".repeat(200);
    expect((await ask("/loki/api/v1/query_range", { query: fine, ...W, step: "3600" })).status).toBe(200);
  });

  it("a template function Loki does not define is Loki's 400 naming the stage", async () => {
    const a = await ask("/loki/api/v1/query_range", {
      query: '{app="nginx"} | line_format "{{range $i := until 10}}x{{end}}"',
      ...W,
    });
    expect(a.status).toBe(400);
    expect(a.body).toBe(
      `parse error : stage '| line_format "{{range $i := until 10}}x{{end}}"' : invalid line template: template: line:1: function "until" not defined`,
    );
    const b = await ask("/loki/api/v1/query_range", {
      query: '{app="nginx"} | label_format x="{{ nosuchfn . }}"',
      ...W,
    });
    expect(b.status).toBe(400);
    expect(b.body).toContain(`invalid template for label 'x': template: label:1: function "nosuchfn" not defined`);
  });

  it("an absurd step, a century-long range and a too fine volume_range are 400s", async () => {
    const step = await ask("/loki/api/v1/query_range", { query: 'rate({app="nginx"}[1m])', ...W, step: "1e300" });
    expect(step).toMatchObject({
      status: 400,
      body: "zero or negative query resolution step widths are not accepted. Try a positive integer",
    });
    const century = await ask("/loki/api/v1/query_range", {
      query: '{app="nginx"} | logfmt | level="error"',
      start: "0",
      end: String(124 * 365 * 86400),
      limit: "10",
    });
    expect(century.status).toBe(400);
    expect(century.body).toBe("the query time range exceeds the limit (query length: 1086240h0m0s, limit: 30d1h)");
    const volume = await ask("/loki/api/v1/index/volume_range", { query: '{app="nginx"}', ...W, step: "1" });
    expect(volume.status).toBe(400);
    expect(volume.body).toContain("exceeded maximum resolution of 11,000 points per time series");
  });
});

describe("labels named like VictoriaLogs' own fields", () => {
  it("are grouped by in the Worker: sum by (_stream) equals local evaluation and has no such label", async () => {
    const params = { query: 'sum by (_stream) (count_over_time({app="nginx"}[30m]))', ...W, step: "1800" };
    const pushed = await ask("/loki/api/v1/query_range", params);
    const local = await ask("/loki/api/v1/query_range", params, { PUSHDOWN: "off" });
    expect(pushed.status).toBe(200);
    const result = JSON.parse(pushed.body).data.result as { metric: Record<string, string> }[];
    expect(result).toHaveLength(1);
    expect(result[0]!.metric).toEqual({});
    expect(JSON.parse(pushed.body).data.result).toEqual(JSON.parse(local.body).data.result);
  });

  it("never become a prefilter on the line or the time", async () => {
    const params = { query: '{app="nginx"} | json | _time="x" or _msg="y"', ...W, limit: "10" };
    const pushed = await ask("/loki/api/v1/query_range", params);
    const local = await ask("/loki/api/v1/query_range", params, { PUSHDOWN: "off" });
    expect(pushed.status).toBe(200);
    expect(JSON.parse(pushed.body).data.result).toEqual(JSON.parse(local.body).data.result);
  });

  it("group no volume: targetLabels=_msg does not group by the line", async () => {
    const a = await ask("/loki/api/v1/index/volume", { query: '{app="nginx"}', ...W, targetLabels: "_msg" });
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body).data.result).toEqual([]);
  });
});
