/**
 * MAX_LOCAL_ROWS over the compat dataset: a metric query the Worker evaluates from whole lines is
 * counted by the origin (one `hits` request) before a row is read, and refused past the budget with
 * a limit's 400 naming the part and what to change; under the budget it answers as without one. The
 * rows read are counted too: a log query (which stops at its `limit`) and a metric query whose count
 * was not asked are refused once they read more. Pushed queries read no rows and are never refused.
 */
import { describe, expect, inject, it } from "vitest";
import type { Env } from "../../src/config";
import { call } from "./support/request";
import { watchOrigin } from "../support/watch-origin";

// Six hours of the compat dataset (tenant 0:0).
const RANGE = { start: "1769904000", end: "1769925600" };
/** Nothing cached: every answer is the origin's and the Worker's work of this request. */
const BASE: Partial<Env> = { CACHE: "off", COALESCER: undefined };
const ADVICE = "narrow the time range, add a line filter or a more specific stream selector, or raise MAX_LOCAL_ROWS";

/** A metric the origin cannot compute (an `ip()` filter over IPv6): the Worker reads every row of its range. */
const LOCAL_SHAPE = 'count_over_time({app="nginx"} | pattern "<ip> <_>" | ip!=ip("::1")[5m])';
const LOCAL = { query: `sum(${LOCAL_SHAPE})`, step: "300" };

async function ask(params: Record<string, string>, vars: Partial<Env>) {
  return call("/loki/api/v1/query_range", { ...RANGE, ...params }, { env: { ...BASE, ...vars } });
}

/** What VictoriaLogs itself counts for an origin request's query and window. */
async function originCount(q: { query: string; start: string; end: string }): Promise<number> {
  const form = new URLSearchParams({ query: `${q.query} | stats count() n`, start: q.start, end: q.end });
  const res = await fetch(`${inject("originUrl")}/select/logsql/query`, { method: "POST", body: form });
  expect(res.status).toBe(200);
  return Number((JSON.parse((await res.text()).trim()) as { n: string }).n);
}

describe("a metric query evaluated in the Worker", () => {
  it("past MAX_LOCAL_ROWS: the limit's 400 with the origin's count, and no row read", async () => {
    const calls = watchOrigin(inject("originUrl"));
    const refused = await ask(LOCAL, { MAX_LOCAL_ROWS: "100" });
    expect(refused.status, refused.body).toBe(400);
    // One request: the count. No row was asked for.
    expect(calls.map((c) => c.path)).toEqual(["/select/logsql/hits"]);
    const rows = await originCount(calls[0]!);
    expect(rows).toBeGreaterThan(100);
    expect(refused.body).toBe(
      `the query would evaluate ${rows} rows in the Worker, more than 100 (MAX_LOCAL_ROWS): ` +
        `${LOCAL_SHAPE} is evaluated row by row; ${ADVICE}`,
    );
  });

  it("under MAX_LOCAL_ROWS: the answer without a budget, after one count", async () => {
    const free = await ask(LOCAL, { MAX_LOCAL_ROWS: "0" });
    expect(free.status, free.body).toBe(200);
    expect(free.json.data.result.length).toBeGreaterThan(0);
    const calls = watchOrigin(inject("originUrl"));
    const started = Date.now();
    const budgeted = await ask(LOCAL, {});
    const took = Date.now() - started;
    expect(budgeted.status, budgeted.body).toBe(200);
    expect(budgeted.json.data.result).toEqual(free.json.data.result);
    const counts = calls.filter((c) => c.path === "/select/logsql/hits");
    expect(counts.length).toBe(1);
    expect(calls.length).toBeGreaterThan(1);

    // What the count costs, against the query it guards (VictoriaLogs on this machine).
    const hit = counts[0]!;
    const form = { query: hit.query, start: hit.start, end: hit.end, step: "21901s" };
    const t0 = performance.now();
    const res = await fetch(`${inject("originUrl")}/select/logsql/hits`, {
      method: "POST",
      body: new URLSearchParams(form),
    });
    await res.text();
    const ms = (performance.now() - t0).toFixed(1);
    console.log(`hits request: ${ms} ms for ${await originCount(hit)} rows; the whole query: ${took} ms`);
  });

  it("a budget of exactly the rows counted answers; one fewer is refused", async () => {
    // The count is of the range the query reads: a budget of exactly that many answers.
    const calls = watchOrigin(inject("originUrl"));
    await ask(LOCAL, { MAX_LOCAL_ROWS: "1" });
    const rows = await originCount(calls[0]!);
    const exact = await ask(LOCAL, { MAX_LOCAL_ROWS: String(rows) });
    expect(exact.status, exact.body).toBe(200);
    const under = await ask(LOCAL, { MAX_LOCAL_ROWS: String(rows - 1) });
    expect(under.status, under.body).toBe(400);
  });

  it("with one origin request left for the request, nothing is counted first; the rows read are", async () => {
    const free = await ask(LOCAL, { MAX_LOCAL_ROWS: "0", MAX_SUBREQUESTS: "1" });
    expect(free.status, free.body).toBe(200);
    const calls = watchOrigin(inject("originUrl"));
    const answered = await ask(LOCAL, { MAX_SUBREQUESTS: "1" });
    expect(answered.status, answered.body).toBe(200);
    expect(answered.json.data.result).toEqual(free.json.data.result);
    expect(calls.map((c) => c.path)).toEqual(["/select/logsql/query"]);

    const refused = await ask(LOCAL, { MAX_SUBREQUESTS: "1", MAX_LOCAL_ROWS: "100" });
    expect(refused.status, refused.body).toBe(400);
    expect(refused.body).toBe(
      `the query evaluated more than 100 rows in the Worker (MAX_LOCAL_ROWS): ${LOCAL_SHAPE} is evaluated row by row; ${ADVICE}`,
    );
  });

  it("the count is one of the request's MAX_SUBREQUESTS origin requests", async () => {
    const calls = watchOrigin(inject("originUrl"));
    const answered = await ask(LOCAL, { MAX_SUBREQUESTS: "2", SPLIT_INTERVAL: "5m" });
    expect(answered.status, answered.body).toBe(200);
    expect(calls.map((c) => c.path)).toEqual(["/select/logsql/hits", "/select/logsql/query"]);
  });
});

describe("a multi-tenant query", () => {
  it("asks each tenant's count, against the one budget of the request", async () => {
    const first = watchOrigin(inject("originUrl"));
    await ask(LOCAL, { MAX_LOCAL_ROWS: "1" });
    const rows = await originCount(first[0]!);
    const asTenants = (vars: Partial<Env>) =>
      call(
        "/loki/api/v1/query_range",
        { ...RANGE, ...LOCAL },
        // Tenant 0 holds the compat rows, tenant 1 none.
        { headers: { "X-Scope-OrgID": "0|1" }, env: { ...BASE, ...vars } },
      );
    const calls = watchOrigin(inject("originUrl"));
    const answered = await asTenants({ MAX_LOCAL_ROWS: String(rows) });
    expect(answered.status, answered.body).toBe(200);
    const counts = calls.filter((c) => c.path === "/select/logsql/hits");
    expect(counts.map((c) => c.accountId).sort()).toEqual(["0", "1"]);
    const refused = await asTenants({ MAX_LOCAL_ROWS: String(rows - 1) });
    expect(refused.status, refused.body).toBe(400);
    expect(refused.body).toContain(`the query would evaluate ${rows} rows in the Worker, more than ${rows - 1}`);
  });
});

describe("a push-down whose guard finds rows", () => {
  it("counts them in the same request: past the budget it is refused before a row is read", async () => {
    // A JSON object under the grouped name (Loki names its members instead): the guard finds such
    // rows, which the Worker would read and count itself.
    const shape = 'count_over_time({app="payments"} | json | drop __error__[10m])';
    const params = { query: `sum by (http) (${shape})`, step: "600" };
    const calls = watchOrigin(inject("originUrl"));
    const refused = await ask(params, { MAX_LOCAL_ROWS: "100" });
    expect(refused.status, refused.body).toBe(400);
    // Only the guarded push-down was asked: no count of its own, no row read.
    expect(calls.map((c) => c.path)).toEqual(["/select/logsql/query"]);
    const pushed = calls[0]!;
    expect(pushed.query).toContain("| stats by");
    const guardRows = {
      ...pushed,
      query: `${pushed.query.slice(0, pushed.query.indexOf(" | stats by"))} | filter __guard_row:=1`,
    };
    const rows = await originCount(guardRows);
    expect(rows).toBeGreaterThan(100);
    expect(refused.body).toBe(
      `the query would evaluate ${rows} rows in the Worker, more than 100 (MAX_LOCAL_ROWS): ` +
        `${shape} is evaluated row by row; ${ADVICE}`,
    );
    // Within the budget, those rows are read and counted, and nothing else.
    const answered = await ask(params, { MAX_LOCAL_ROWS: String(rows) });
    expect(answered.status, answered.body).toBe(200);
    expect(answered.json.data.stats.summary.totalLinesProcessed).toBe(rows);
  });

  it("a push-down whose guard finds nothing is never counted nor refused", async () => {
    const calls = watchOrigin(inject("originUrl"));
    const pushed = await ask(
      { query: 'sum by (method) (count_over_time({app="checkout"} | json | drop __error__ [30m]))', step: "600" },
      { MAX_LOCAL_ROWS: "1" },
    );
    expect(pushed.status, pushed.body).toBe(200);
    expect(pushed.json.data.result.length).toBeGreaterThan(0);
    expect(calls.some((c) => c.path === "/select/logsql/hits")).toBe(false);
  });
});

describe("queries that read no rows, or few", () => {
  it("a query VictoriaLogs computes is never counted nor refused", async () => {
    const calls = watchOrigin(inject("originUrl"));
    const pushed = await ask(
      { query: 'sum by (cluster) (count_over_time({app="nginx"}[5m]))', step: "300" },
      {
        MAX_LOCAL_ROWS: "1",
      },
    );
    expect(pushed.status, pushed.body).toBe(200);
    expect(pushed.json.data.result.length).toBeGreaterThan(0);
    expect(calls.some((c) => c.path === "/select/logsql/hits")).toBe(false);
  });

  it("a log query is refused once it has read more rows than the budget, without a count first", async () => {
    const query = '{app="nginx"} | pattern "<ip> <_>" | ip!="1.2.3.4"';
    const free = await ask({ query, limit: "5000" }, { MAX_LOCAL_ROWS: "0" });
    expect(free.status, free.body).toBe(200);
    const read = free.json.data.stats.summary.totalLinesProcessed as number;
    expect(read).toBeGreaterThan(100);

    const calls = watchOrigin(inject("originUrl"));
    const refused = await ask({ query, limit: "5000" }, { MAX_LOCAL_ROWS: "100" });
    expect(refused.status, refused.body).toBe(400);
    expect(refused.body).toBe(
      `the query evaluated more than 100 rows in the Worker (MAX_LOCAL_ROWS): ${query} is evaluated row by row; ${ADVICE}`,
    );
    expect(calls.some((c) => c.path === "/select/logsql/hits")).toBe(false);

    // Windows read at once may be cut once the answer is full, after some of their rows came:
    // what the origin holds for the selector bounds what any schedule reads.
    const held = await originCount({ query: '{app="nginx"}', start: RANGE.start, end: RANGE.end });
    expect(held).toBeGreaterThanOrEqual(read);
    const budgeted = await ask({ query, limit: "5000" }, { MAX_LOCAL_ROWS: String(held) });
    expect(budgeted.status, budgeted.body).toBe(200);
    expect(budgeted.json.data.result).toEqual(free.json.data.result);
  });
});
