/**
 * A catastrophic-backtracking regex cannot stall the isolate: the `regexp` stage's pattern runs on
 * re2js (a linear-time RE2 port) inside workerd, over a line pushed to the real VictoriaLogs. Loki
 * answers the entry unchanged (no match extracts no label and is no error), and so must we, quickly,
 * while `/ready` keeps answering.
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import { compileGoRegexp } from "../../src/logql/go-regexp";
import { fetchWorker, queryRange as askRange } from "./support/request";

const TENANT = { "X-Scope-OrgID": "31:7" };
const T0 = 1769904000n * 1_000_000_000n;
const RANGE = { start: "1769904000", end: String(1769904000 + 3600), limit: "100" };
const ADVERSARIAL = `${"a".repeat(34)}!`;
/** Long enough that backtracking (a+)+$ would need days; re2js takes milliseconds. */
const LONG = `${"a".repeat(100 * 1024)}!`;

async function call(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetchWorker(path, {}, { headers, env: { CACHE: "off" } });
}

async function queryRange(query: string): Promise<{ status: number; body: string }> {
  const res = await askRange({ query, ...RANGE }, { headers: TENANT, env: { CACHE: "off" } });
  return { status: res.status, body: res.body };
}

describe("ReDoS patterns run in linear time inside workerd", () => {
  beforeAll(async () => {
    const streams = [
      {
        stream: { app: "redos" },
        values: [
          [String(T0 + 1_000_000_000n), ADVERSARIAL],
          [String(T0 + 2_000_000_000n), LONG],
        ],
      },
    ];
    const res = await fetch(`${inject("originUrl")}/insert/loki/api/v1/push?disable_message_parsing=1`, {
      method: "POST",
      headers: { "Content-Type": "application/json", AccountID: "31", ProjectID: "7" },
      body: JSON.stringify({ streams }),
    });
    expect(res.status).toBe(204);
    // New streams are found by stream filters about 10 s after ingestion.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { status, body } = await queryRange('{app="redos"}');
      if (status === 200 && JSON.parse(body).data.result[0]?.values.length === 2) break;
      if (Date.now() > deadline) throw new Error(`redos entries not searchable after 60 s: ${status} ${body}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  });

  it("re2js compiles and matches in workerd (no eval or new Function)", () => {
    const re = compileGoRegexp("(?P<x>(a+)+$)");
    expect(re.engine).toBe("linear");
    // Greedy: the inner a+ takes both characters in the outer group's only iteration.
    expect(re.exec("xaa")?.groups).toEqual(["aa", "aa", "aa"]);
    expect(re.test(ADVERSARIAL)).toBe(false);
  });

  it("| regexp with (a+)+$ returns both entries without labels or error, while /ready answers", async () => {
    const started = Date.now();
    const answer = queryRange('{app="redos"} | regexp "(?P<x>(a+)+$)"');
    // Probe the isolate while the query runs: a stall would show as a long gap between two probes.
    const gaps: number[] = [];
    let done = false;
    void answer.finally(() => {
      done = true;
    });
    let last = Date.now();
    while (!done) {
      const ready = await call("/ready");
      expect(await ready.text()).toBe("ready\n");
      await new Promise((r) => setTimeout(r, 20));
      const now = Date.now();
      gaps.push(now - last);
      last = now;
    }
    const { status, body } = await answer;
    const elapsed = Date.now() - started;
    expect(status, body).toBe(200);
    const result = JSON.parse(body).data.result;
    // Loki's regexp stage: no match means no extracted label and no __error__, the line unchanged.
    expect(result).toHaveLength(1);
    expect(result[0].stream).toEqual({ app: "redos" });
    expect(result[0].values.map((v: [string, string]) => v[1])).toEqual([LONG, ADVERSARIAL]);
    expect(elapsed).toBeLessThan(10_000);
    expect(gaps.length).toBeGreaterThan(0);
    expect(Math.max(...gaps)).toBeLessThan(1_000);
  });

  it("line filter |~ and label filter =~ with the same pattern drop the non-matching entries", async () => {
    const started = Date.now();
    const line = await queryRange('{app="redos"} |~ "(a+)+$"');
    expect(line.status, line.body).toBe(200);
    expect(JSON.parse(line.body).data.result).toEqual([]);
    const label = await queryRange('{app="redos"} | regexp "(?P<v>.+)" | v =~ "(a|a)*$"');
    expect(label.status, label.body).toBe(200);
    expect(JSON.parse(label.body).data.result).toEqual([]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
