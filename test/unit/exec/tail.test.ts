/**
 * The look-back tail against a tiny in-process origin whose rows the test adds while the tail runs
 * (as rows become visible in VictoriaLogs), with a clock the test moves: what is sent, when, once.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CachedOrigin } from "../../../src/cache/cached-origin";
import { formatRFC3339Nano, parseVLTime } from "../../../src/origin/timefmt";
import { parseExpr } from "../../../src/logql/parser";
import type { LogSelectorExpr } from "../../../src/logql/ast";
import { runTail, type TailOptions } from "../../../src/exec/tail";
import type { TailBatch } from "../../../src/engine/types";

const S = 1_000_000_000n;
const T0 = 1_800_000_000n * S;

let server: Server;
let client: CachedOrigin;
/** The origin's visible rows. */
let rows: { ts: bigint; line: string }[] = [];
/** While true, the origin answers 502. */
let failing = false;
let requests = 0;
/** Count requests (`hits`), row reads (`query`) and the rows those reads returned. */
let counts = 0;
let reads = 0;
let rowsRead = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c) => (body += c));
    req.on("end", () => {
      requests++;
      if (failing) {
        res.writeHead(502).end("origin restarting");
        return;
      }
      const form = new URLSearchParams(body);
      const start = parseVLTime(form.get("start")!);
      const end = parseVLTime(form.get("end")!);
      const visible = rows.filter((r) => r.ts >= start && r.ts < end);
      if (req.url === "/select/logsql/hits") {
        // Row counts per step, at step-aligned timestamps, as VictoriaLogs answers them.
        counts++;
        const step = BigInt(parseInt(form.get("step")!, 10)) * S;
        const perBucket = new Map<bigint, number>();
        for (const r of visible) perBucket.set(r.ts - (r.ts % step), (perBucket.get(r.ts - (r.ts % step)) ?? 0) + 1);
        const buckets = [...perBucket].sort(([a], [b]) => (a < b ? -1 : 1));
        const hits = buckets.length
          ? [
              {
                fields: {},
                timestamps: buckets.map(([t]) => formatRFC3339Nano(t)),
                values: buckets.map(([, n]) => n),
                total: visible.length,
              },
            ]
          : [];
        res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ hits }));
        return;
      }
      reads++;
      rowsRead += visible.length;
      res.writeHead(200, { "Content-Type": "application/stream+json" });
      for (const r of visible) {
        res.write(`${JSON.stringify({ _msg: r.line, _time: formatRFC3339Nano(r.ts), _stream: '{app="t"}' })}\n`);
      }
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new CachedOrigin({ baseUrl, timeoutMs: 5000 }, { accountId: 0, projectId: 0 });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  rows = [];
  failing = false;
  requests = 0;
  counts = 0;
  reads = 0;
  rowsRead = 0;
});

const expr = parseExpr('{app="t"}') as LogSelectorExpr;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A running tail with a movable clock; `lines` lists what it sent, in order. */
function startTail(over: Partial<TailOptions> = {}) {
  const clock = { now: T0 };
  const batches: TailBatch[] = [];
  const stop = new AbortController();
  const done = runTail(
    client,
    expr,
    {
      startNs: T0 - 60n * S,
      limit: 2,
      delayNs: 0n,
      pollMs: 10,
      lookBackNs: 120n * S,
      maxSeen: 10_000,
      maxSentPerPoll: 1000,
      maxReadPerPoll: 100_000,
      splitInterval: 3600n * S,
      now: () => clock.now,
      ...over,
    },
    (b) => batches.push(b),
    stop.signal,
  );
  const lines = () => batches.flatMap((b) => b.entries.map((e) => e.line));
  return { clock, batches, stop, done, lines };
}

/** Waits until the tail has polled the origin `n` more times. */
async function polls(n: number): Promise<void> {
  const target = requests + n;
  while (requests < target) await sleep(5);
  await sleep(20);
}

describe("runTail", () => {
  it("replays the newest `limit` since start first, then sends only rows that appear later", async () => {
    rows = [1n, 2n, 3n].map((i) => ({ ts: T0 - 10n * S + i, line: `old ${i}` }));
    const t = startTail();
    await polls(3);
    expect(t.lines()).toEqual(["old 2", "old 3"]);
    rows.push({ ts: T0 - S, line: "new" });
    await polls(3);
    t.stop.abort();
    await t.done;
    expect(t.lines()).toEqual(["old 2", "old 3", "new"]);
  });

  it("sends a row stamped far in the past once when it becomes visible, and never again", async () => {
    const t = startTail();
    await polls(3);
    t.clock.now += 5n * S;
    rows.push({ ts: t.clock.now - 100n * S, line: "late" });
    await polls(3);
    t.clock.now += 10n * S;
    await polls(3);
    t.stop.abort();
    await t.done;
    expect(t.lines()).toEqual(["late"]);
  });

  it("never sends a row older than the look-back when it becomes visible (the stated bound)", async () => {
    const t = startTail();
    await polls(3);
    rows.push({ ts: T0 - 121n * S, line: "too late" });
    rows.push({ ts: T0 - 119n * S, line: "in time" });
    await polls(3);
    t.stop.abort();
    await t.done;
    expect(t.lines()).toEqual(["in time"]);
  });

  it("an origin outage shorter than the look-back loses nothing and repeats nothing", async () => {
    const t = startTail();
    rows.push({ ts: T0 - S, line: "before" });
    await polls(3);
    failing = true;
    rows.push({ ts: T0, line: "during" });
    t.clock.now += 30n * S;
    await polls(5);
    failing = false;
    await polls(3);
    t.stop.abort();
    await t.done;
    expect(t.lines()).toEqual(["before", "during"]);
  });

  it("an origin outage longer than the look-back fails the tail instead of skipping rows", async () => {
    const t = startTail();
    await polls(2);
    failing = true;
    await polls(2);
    t.clock.now += 121n * S;
    await expect(t.done).rejects.toThrow("origin failed (HTTP 502)");
  });

  it("more new rows than one poll may send are reported as dropped, in the frame sent with the rest", async () => {
    const t = startTail({ maxSentPerPoll: 3 });
    await polls(3);
    rows.push(...[1n, 2n, 3n, 4n, 5n].map((i) => ({ ts: T0 - 10n * S + i, line: `burst ${i}` })));
    await polls(3);
    rows.push({ ts: T0 - S, line: "next" });
    await polls(3);
    t.stop.abort();
    await t.done;
    expect(t.lines()).toEqual(["burst 1", "burst 2", "burst 3", "next"]);
    expect(t.batches[0]!.dropped.map((d) => [d.ts, d.stream])).toEqual([
      [T0 - 10n * S + 4n, { app: "t" }],
      [T0 - 10n * S + 5n, { app: "t" }],
    ]);
    expect(t.batches[1]!.dropped).toEqual([]);
  });

  it("splits a poll's rows into frames of at most 100 entries, oldest first", async () => {
    const t = startTail();
    await polls(3);
    rows.push(...Array.from({ length: 250 }, (_, i) => ({ ts: T0 - 5n * S + BigInt(249 - i), line: `r${249 - i}` })));
    await polls(3);
    t.stop.abort();
    await t.done;
    expect(t.batches.map((b) => b.entries.length)).toEqual([100, 100, 50]);
    expect(t.lines()).toEqual(Array.from({ length: 250 }, (_, i) => `r${i}`));
  });

  it("a quiet tail asks only for row counts: nothing in the look-back is read again", async () => {
    rows = Array.from({ length: 3000 }, (_, i) => ({ ts: T0 - 100n * S + BigInt(i) * 10_000_000n, line: `old ${i}` }));
    const t = startTail({ limit: 1, startNs: T0 - 120n * S });
    await polls(3);
    const [readsBefore, rowsBefore, countsBefore] = [reads, rowsRead, counts];
    for (let i = 0; i < 5; i++) {
      t.clock.now += S;
      await polls(1);
    }
    t.stop.abort();
    await t.done;
    expect(counts - countsBefore).toBeGreaterThanOrEqual(5);
    expect(reads - readsBefore).toBe(0);
    expect(rowsRead - rowsBefore).toBe(0);
    expect(t.lines()).toEqual(["old 2999"]);
  });

  it("a new row is found by reading only its own bucket, not the whole look-back", async () => {
    rows = Array.from({ length: 3000 }, (_, i) => ({ ts: T0 - 100n * S + BigInt(i) * 10_000_000n, line: `old ${i}` }));
    const t = startTail({ limit: 1, startNs: T0 - 120n * S });
    await polls(3);
    const [readsBefore, rowsBefore] = [reads, rowsRead];
    // Stamped 90 s back, inside a bucket already holding 100 rows.
    rows.push({ ts: T0 - 90n * S + 5n, line: "late" });
    await polls(4);
    t.stop.abort();
    await t.done;
    expect(t.lines()).toEqual(["old 2999", "late"]);
    expect(reads - readsBefore).toBe(1);
    expect(rowsRead - rowsBefore).toBe(101);
  });

  it("a poll reads at most maxReadPerPoll counted rows; the other changed buckets wait, and nothing is lost", async () => {
    const t = startTail({ maxReadPerPoll: 250 });
    await polls(3);
    const [readsBefore, rowsBefore] = [reads, rowsRead];
    // 10 buckets of 100 new rows each.
    rows.push(
      ...Array.from({ length: 1000 }, (_, i) => ({ ts: T0 - 50n * S + BigInt(i) * 10_000_000n, line: `n${i}` })),
    );
    await polls(14);
    t.stop.abort();
    await t.done;
    expect(t.lines()).toEqual(Array.from({ length: 1000 }, (_, i) => `n${i}`));
    // Two buckets (200 rows) a poll: five polls with reads, each returning 200 rows.
    expect(reads - readsBefore).toBe(5);
    expect(rowsRead - rowsBefore).toBe(1000);
  });
});
