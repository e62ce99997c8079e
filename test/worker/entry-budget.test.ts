/**
 * The entry text a log query holds, lines and labels together, inside workerd against the real
 * origin: a `label_format` that gives every entry a label of a million characters is refused with
 * Loki's 400 naming the limit, as the same text through `line_format` is, instead of answering
 * 100 MB or taking the isolate's memory; and the isolate goes on answering.
 */
import { describe, expect, it } from "vitest";
import { queryRange } from "./support/request";

const W = { start: "1769904000", end: "1769925600" };
const TENANT = { "X-Scope-OrgID": "0" };
const BIG_LABEL = '{app=~".+"} | label_format big="{{ repeat 1000000 \\"x\\" }}"';
const REFUSED =
  "the query would return more than 16Mi characters of log lines and labels (limit %d entries); reduce the limit or the size of the lines and labels";

async function ask(params: Record<string, string>) {
  const res = await queryRange(params, { headers: TENANT, env: { CACHE: "off" }, settle: true });
  return { status: res.status, type: res.headers.get("Content-Type"), body: res.body };
}

describe("entry text budget: lines and labels", () => {
  it.each(["100", "2000"])(
    "a label_format making 1 MB labels at limit %s is Loki's 400 naming the limit",
    async (limit) => {
      const a = await ask({ query: BIG_LABEL, ...W, limit });
      expect(a.status, a.body.slice(0, 200)).toBe(400);
      expect(a.type).toContain("text/plain");
      expect(a.body).toBe(REFUSED.replace("%d", limit));
    },
  );

  it("the same text through line_format gets the same refusal", async () => {
    const a = await ask({ query: '{app=~".+"} | line_format "{{ repeat 1000000 \\"x\\" }}"', ...W, limit: "100" });
    expect(a.status).toBe(400);
    expect(a.body).toBe(REFUSED.replace("%d", "100"));
  });

  it("labels are counted as the answer writes them: control characters by their escapes", async () => {
    // 20 entries of 200,000 control characters: 4 Mi characters held, 24 Mi written as \u0001.
    const a = await ask({
      query: '{app="nginx"} | label_format ctl="{{ repeat 200000 \\"\\\\x01\\" }}"',
      ...W,
      limit: "20",
    });
    expect(a.status, a.body.slice(0, 200)).toBe(400);
    expect(a.body).toBe(REFUSED.replace("%d", "20"));
    // Printable text of the same length fits.
    const b = await ask({
      query: '{app="nginx"} | label_format ctl="{{ repeat 200000 \\"x\\" }}"',
      ...W,
      limit: "20",
    });
    expect(b.status).toBe(200);
    const streams = JSON.parse(b.body).data.result as { stream: Record<string, string>; values: string[][] }[];
    expect(streams.flatMap((s) => s.values)).toHaveLength(20);
    for (const s of streams) expect(s.stream.ctl).toBe("x".repeat(200_000));
  });

  it("a metric query whose label_format gives every sample a 1 MB label is Loki's 400 naming the limit", async () => {
    const a = await ask({
      query: 'count_over_time({app=~".+"} | label_format big="{{ __timestamp__ }}{{ repeat 1000000 \\"x\\" }}" [1m])',
      ...W,
      step: "60",
    });
    expect(a.status, a.body.slice(0, 200)).toBe(400);
    expect(a.body).toBe(
      "the query's series would hold more than 16Mi characters of labels; reduce the size of the labels or the number of series",
    );
    // Small labels of the same shape still count.
    const b = await ask({
      query: 'sum by (big) (count_over_time({app="nginx"} | label_format big="{{ repeat 1000 \\"x\\" }}" [1h]))',
      ...W,
      step: "3600",
    });
    expect(b.status, b.body.slice(0, 200)).toBe(200);
    expect(JSON.parse(b.body).data.result[0].metric.big).toHaveLength(1000);
  });

  it("labels that fit are answered in full, and the isolate still answers a normal query", async () => {
    // 10 entries with a 100,000-character label each: 1 Mi characters, well within the budget.
    const small = await ask({
      query: '{app="nginx"} | label_format big="{{ repeat 100000 \\"x\\" }}"',
      ...W,
      limit: "10",
    });
    expect(small.status).toBe(200);
    const streams = JSON.parse(small.body).data.result as { stream: Record<string, string>; values: string[][] }[];
    expect(streams.flatMap((s) => s.values)).toHaveLength(10);
    for (const s of streams) expect(s.stream.big).toHaveLength(100_000);

    const normal = await ask({ query: '{app="nginx"} | logfmt', ...W, limit: "100" });
    expect(normal.status).toBe(200);
    expect(JSON.parse(normal.body).data.result.length).toBeGreaterThan(0);
  });
});
