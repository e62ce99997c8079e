/**
 * The decision of MAX_LOCAL_ROWS (exec/local-rows.ts), over a transport that answers `hits` with set
 * counts: what is counted before reading, what is counted while reading, when nothing is asked,
 * and the limit's status and message.
 */
import { describe, expect, it } from "vitest";
import { LocalRows, LocalRowsError } from "../../../src/exec/local-rows";
import { OriginClient, type JsonRequest } from "../../../src/origin/client";
import { SubrequestBudget } from "../../../src/origin/subrequest-budget";
import { statusOf } from "../../../src/http/errors";

const WINDOW = { start: 1_769_904_000_000_000_000n, end: 1_769_925_600_000_000_001n };
const SHAPE = 'count_over_time({app="a"} | pattern "<x> <_>"[5m])';
const ADVICE = "narrow the time range, add a line filter or a more specific stream selector, or raise MAX_LOCAL_ROWS";

/**
 * A client whose `hits` answers count `totals` (one series each), recording the requests made. The
 * transport counts what it sends against the budget, as the request's transport does.
 */
function counting(totals: number[], subrequests = 1000) {
  const asked: JsonRequest[] = [];
  const budget = new SubrequestBudget({ subrequests, cacheCalls: 0, kvOperations: 0 });
  const hits = totals.map((total) => ({ fields: {}, timestamps: [], values: [], total }));
  const client = new OriginClient(
    { baseUrl: "http://vl.test", timeoutMs: 1000 },
    { accountId: 0, projectId: 0 },
    undefined,
    (req) => {
      budget.claimOrigin();
      asked.push(req);
      return Promise.resolve({ status: 200, body: JSON.stringify({ hits }) });
    },
    budget,
  );
  return { client, asked, budget };
}

async function refusal(p: Promise<unknown>): Promise<LocalRowsError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LocalRowsError);
  return err as LocalRowsError;
}

describe("LocalRows before reading", () => {
  it("asks the origin once per range for the rows of the query as the origin filters them", async () => {
    const { client, asked } = counting([400, 600]);
    await new LocalRows(1000).admit(client, '{app="a"} "x"', WINDOW, SHAPE);
    expect(asked.length).toBe(1);
    expect(asked[0]!.path).toBe("/select/logsql/hits");
    const form = Object.fromEntries(asked[0]!.form);
    expect(form.query).toMatch(/ \{app="a"\} "x"$/);
    // One bucket as wide as the window (rounded up to a second): every series' total is counted.
    expect(form.step).toBe("21601s");
  });

  it("refuses the range that takes the request past the budget, with the rows counted", async () => {
    const { client } = counting([600]);
    const rows = new LocalRows(1000);
    await rows.admit(client, '{app="a"}', WINDOW, SHAPE);
    const err = await refusal(rows.admit(client, '{app="a"}', WINDOW, SHAPE));
    expect(err.message).toBe(
      `the query would evaluate 1200 rows in the Worker, more than 1000 (MAX_LOCAL_ROWS): ${SHAPE} is evaluated row by row; ${ADVICE}`,
    );
    expect(statusOf(err)).toBe(400);
  });

  it("admits a range of exactly the budget", async () => {
    const { client } = counting([1000]);
    await new LocalRows(1000).admit(client, '{app="a"}', WINDOW, SHAPE);
  });

  it("asks nothing when off, or when the request has fewer than two origin requests left", async () => {
    const off = counting([5]);
    await new LocalRows(0).admit(off.client, '{app="a"}', WINDOW, SHAPE);
    expect(off.asked.length).toBe(0);
    const last = counting([5000], 1);
    await new LocalRows(10).admit(last.client, '{app="a"}', WINDOW, SHAPE);
    expect(last.asked.length).toBe(0);
    expect(last.budget.originLeft).toBe(1);
  });
});

describe("LocalRows while reading", () => {
  it("refuses once the rows read pass the budget, whatever was counted before", () => {
    const rows = new LocalRows(100);
    rows.count(60, SHAPE);
    rows.count(40, SHAPE);
    let err: unknown;
    try {
      rows.count(1, SHAPE);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LocalRowsError);
    expect((err as Error).message).toBe(
      `the query evaluated more than 100 rows in the Worker (MAX_LOCAL_ROWS): ${SHAPE} is evaluated row by row; ${ADVICE}`,
    );
  });

  it("counts without limit when off", () => {
    const rows = new LocalRows(0);
    rows.count(Number.MAX_SAFE_INTEGER, SHAPE);
  });
});
