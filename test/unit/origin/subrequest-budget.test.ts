/**
 * The per-request count of what the Workers runtime caps per invocation: origin requests are
 * refused with Loki's 400 and advice past the limit, cache and KV calls are skipped, and a split
 * gets half of what is left.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { OriginClient } from "../../../src/origin/client";
import { SubrequestBudget, SubrequestBudgetError } from "../../../src/origin/subrequest-budget";
import { RequestError } from "../../../src/core/errors";
import { statusOf } from "../../../src/http/errors";

const limits = (subrequests: number, cacheCalls = 10, kvOperations = 10) => ({ subrequests, cacheCalls, kvOperations });

describe("SubrequestBudget", () => {
  it("counts origin requests up to the limit, then refuses with a 400 that says what to change", () => {
    const budget = new SubrequestBudget(limits(3));
    budget.claimOrigin();
    budget.claimOrigin();
    expect(budget.originLeft).toBe(1);
    budget.claimOrigin();
    expect(budget.originLeft).toBe(0);
    let caught: unknown;
    try {
      budget.claimOrigin();
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SubrequestBudgetError);
    expect(caught).toBeInstanceOf(RequestError);
    expect(statusOf(caught as RequestError)).toBe(400);
    expect((caught as RequestError).message).toBe(
      "the query needs more than 3 origin requests, the most one request may make (MAX_SUBREQUESTS): " +
        "narrow the time range, increase the step or the split interval, or raise MAX_SUBREQUESTS",
    );
    // A refused request is not counted.
    expect(budget.used).toEqual({ origin: 3, cache: 0, kv: 0 });
  });

  it("allows Cache API calls and KV operations up to their own limits, then says to skip them", () => {
    const budget = new SubrequestBudget(limits(1, 2, 1));
    expect([budget.tryCache(), budget.tryCache(), budget.tryCache()]).toEqual([true, true, false]);
    expect([budget.tryKv(), budget.tryKv()]).toEqual([true, false]);
    expect(budget.used).toEqual({ origin: 0, cache: 2, kv: 1 });
    // The limits are independent: origin requests are still allowed.
    budget.claimOrigin();
    expect(budget.originLeft).toBe(0);
  });

  it("treats a limit of 0 cache calls as no cache at all", () => {
    const budget = new SubrequestBudget(limits(5, 0, 0));
    expect(budget.tryCache()).toBe(false);
    expect(budget.tryKv()).toBe(false);
  });

  it("gives a split half of the origin requests left, and at least one window", () => {
    const budget = new SubrequestBudget(limits(10));
    expect(budget.windowShare()).toBe(5n);
    for (let i = 0; i < 7; i++) budget.claimOrigin();
    expect(budget.windowShare()).toBe(1n);
    for (let i = 0; i < 3; i++) budget.claimOrigin();
    expect(budget.windowShare()).toBe(1n);
  });

  it("two splits planned one after the other, each using its share, fit the limit", () => {
    const budget = new SubrequestBudget(limits(9));
    const first = Number(budget.windowShare());
    const second = Number(budget.windowShare());
    for (let i = 0; i < first + second; i++) budget.claimOrigin();
    expect(first + second).toBeLessThanOrEqual(9);
  });

  it("lifted (a live tail), it counts but never refuses", () => {
    const budget = new SubrequestBudget(limits(1, 0, 0));
    budget.lift();
    for (let i = 0; i < 5000; i++) budget.claimOrigin();
    expect(budget.tryCache()).toBe(true);
    expect(budget.tryKv()).toBe(true);
    expect(budget.used.origin).toBe(5000);
    expect(SubrequestBudget.unlimited().originLeft).toBe(Infinity);
    // Planning with no limit splits as it always did.
    expect(budget.windowShare() >= 4096n).toBe(true);
  });
});

describe("OriginClient within a budget", () => {
  afterEach(() => vi.unstubAllGlobals());
  const TENANT = { accountId: 0, projectId: 0 };
  const CONFIG = { baseUrl: "http://vl.test", timeoutMs: 1000 };

  it("claims one origin request per streamed request, and refuses past the limit without fetching", async () => {
    const fetched: string[] = [];
    vi.stubGlobal("fetch", async (url: string) => {
      fetched.push(url);
      return new Response("", { status: 200 });
    });
    const budget = new SubrequestBudget(limits(1));
    const client = new OriginClient(CONFIG, TENANT, undefined, undefined, budget);
    const window = { start: 0n, end: 1_000_000_000n };
    for await (const _ of client.logRows("*", window)) void _;
    expect(budget.used.origin).toBe(1);
    await expect(
      (async () => {
        for await (const _ of client.logRows("*", window)) void _;
      })(),
    ).rejects.toBeInstanceOf(SubrequestBudgetError);
    expect(fetched).toHaveLength(1);
  });

  it("a request abandoned before it starts costs neither a fetch nor a place in the budget", async () => {
    const fetched: string[] = [];
    vi.stubGlobal("fetch", async (url: string) => {
      fetched.push(url);
      return new Response("", { status: 200 });
    });
    const budget = new SubrequestBudget(limits(5));
    const abandoned = new AbortController();
    abandoned.abort();
    const client = new OriginClient(CONFIG, TENANT, abandoned.signal, undefined, budget);
    await expect(
      (async () => {
        for await (const _ of client.logRows("*", { start: 0n, end: 1n })) void _;
      })(),
    ).rejects.toBeInstanceOf(RequestError);
    expect(fetched).toEqual([]);
    expect(budget.used.origin).toBe(0);
  });
});
