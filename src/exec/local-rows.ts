/**
 * The rows one request may evaluate in the Worker (MAX_LOCAL_ROWS). Each row the Worker reads whole
 * and runs a pipeline over costs it 10-25 µs of CPU (bench/results/scale.md); a query over enough rows
 * would end at the runtime's CPU limit in the middle of its answer. So a query is refused, with a
 * limit's 400 that names the part evaluated row by row and what to change, before it gets there:
 *
 * - a metric query reads every row of its range: before reading, the origin counts them (one `hits`
 *   request per range read, the selector and the filters the origin applies), and a range that would
 *   take the request past the budget is refused without a row read;
 * - every read row is counted as it arrives, and the request is refused once the count passes the
 *   budget: the backstop when the estimate was low (rows arriving late), and the whole limit for a
 *   log query, which stops reading once it holds its `limit` entries, so that what its range holds
 *   says little about what it reads.
 *
 * Parts VictoriaLogs computes read no rows and are never counted, nor are projected unwrap samples
 * (a few fields each, read without a pipeline) or live tails.
 */
import { LimitExceededError } from "../core/errors";
import type { TimeWindow } from "../core/time-window";
import type { OriginClient } from "../origin/client";

/** The rows past which a request is refused, and the rows it has planned to and did evaluate. */
export class LocalRows {
  /** Rows the origin counted in the ranges admitted so far. */
  private planned = 0;
  /** Rows read so far. */
  private read = 0;

  /** `max` 0: no budget (nothing is asked of the origin, nothing refused). */
  constructor(readonly max: number) {}

  /**
   * Before reading `window` of `logsql` (the selector and its pushed filters) to evaluate `shape`:
   * asks the origin how many rows that is, and refuses when the request's rows would pass the
   * budget. With fewer than two origin requests left for the request, the count is not asked (it
   * would leave none to read with) and only the rows read are counted.
   */
  async admit(client: OriginClient, logsql: string, window: TimeWindow, shape: string): Promise<void> {
    if (this.max === 0 || client.budget.originLeft < 2) return;
    const rows = await countRows(client, logsql, window);
    this.planned += rows;
    if (this.planned > this.max) throw new LocalRowsError(estimateMessage(this.planned, this.max, shape));
  }

  /** `n` rows the origin already counted, to be read to evaluate `shape`: refused past the budget. */
  plan(n: number, shape: string): void {
    this.planned += n;
    if (this.max !== 0 && this.planned > this.max)
      throw new LocalRowsError(estimateMessage(this.planned, this.max, shape));
  }

  /** `n` more rows read to evaluate `shape`: refused once the request has read more than the budget. */
  count(n: number, shape: string): void {
    this.read += n;
    if (this.max !== 0 && this.read > this.max) throw new LocalRowsError(readMessage(this.max, shape));
  }
}

/** A request that would evaluate more rows in the Worker than MAX_LOCAL_ROWS allows. */
export class LocalRowsError extends LimitExceededError {
  constructor(message: string) {
    super(message);
    this.name = "LocalRowsError";
  }
}

const ADVICE = "narrow the time range, add a line filter or a more specific stream selector, or raise MAX_LOCAL_ROWS";

function estimateMessage(rows: number, max: number, shape: string): string {
  return (
    `the query would evaluate ${rows} rows in the Worker, more than ${max} (MAX_LOCAL_ROWS): ` +
    `${shape} is evaluated row by row; ${ADVICE}`
  );
}

function readMessage(max: number, shape: string): string {
  return `the query evaluated more than ${max} rows in the Worker (MAX_LOCAL_ROWS): ${shape} is evaluated row by row; ${ADVICE}`;
}

/**
 * The rows of `logsql` in `window`, from one `hits` request whose single bucket spans the window
 * (buckets are aligned to multiples of the step, so a window may straddle two: every bucket counts).
 */
async function countRows(client: OriginClient, logsql: string, window: TimeWindow): Promise<number> {
  const seconds = (window.end - window.start) / 1_000_000_000n + 1n;
  const answer = await client.hits(logsql, window, { step: `${seconds}s` });
  let rows = 0;
  for (const series of answer.hits) rows += series.total;
  return rows;
}
