/**
 * Live tails under an isolate's 128 MB: tails (tail.capped.ts) in a Node whose heap is capped like
 * one, against an origin whose two-minute look-back holds 100,000 rows and gains 1,000 rows
 * a second (one row a millisecond, visible half a second after its timestamp), as a busy stream
 * does. The origin is a stand-in here, served from this process: it answers the tail's two
 * requests (`query`, honouring `sort`/`limit`, and `hits`) and counts what it serves. Each tail
 * reads the look-back once when it opens; then only what is new.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCappedNode } from "../../../bench/lib/capped-node.mjs";
import { formatRFC3339Nano, parseVLTime } from "../../../src/origin/timefmt";

const script = join(dirname(fileURLToPath(import.meta.url)), "tail.capped.ts");
const MS = 1_000_000n;
const TAILS = 5;
const SECONDS = 25;
/** Rows exist one a millisecond from here on. */
const BEGIN = (BigInt(Date.now()) - 100_000n) * MS;
const PAD = "x".repeat(160);

interface TailRun {
  tails: number;
  seconds: number;
  entries: number;
  errors: string[];
  peakLiveGrowthMB: number;
  peakHeapGrowthMB: number;
}

let server: Server;
/** Each row's JSON line, made once: the stand-in must not be slower than the origin it stands for. */
const rowText = new Map<bigint, string>();
const served = { query: 0, hits: 0, rows: 0 };
let run: { exit: number | string | null; results: TailRun[] };

/** The visible rows' timestamps in [start, end): one a millisecond, up to half a second ago. */
function visibleRange(start: bigint, end: bigint): [bigint, bigint] {
  const edge = (BigInt(Date.now()) - 500n) * MS;
  const from = start > BEGIN ? start : BEGIN;
  const first = from % MS === 0n ? from : from - (from % MS) + MS;
  const until = end < edge ? end : edge;
  return [first, until];
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c) => (body += c));
    req.on("end", () => {
      const form = new URLSearchParams(body);
      const [first, until] = visibleRange(parseVLTime(form.get("start")!), parseVLTime(form.get("end")!));
      if (req.url === "/select/logsql/hits") {
        served.hits++;
        const step = BigInt(parseInt(form.get("step")!, 10)) * 1000n * MS;
        const timestamps: string[] = [];
        const values: number[] = [];
        for (let b = first - (first % step); b < until; b += step) {
          const lo = b > first ? b : first;
          const hi = b + step < until ? b + step : until;
          if (hi > lo) {
            timestamps.push(formatRFC3339Nano(b));
            values.push(Number((hi - lo + MS - 1n) / MS));
          }
        }
        const total = values.reduce((a, v) => a + v, 0);
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ hits: timestamps.length ? [{ fields: {}, timestamps, values, total }] : [] }));
        return;
      }
      served.query++;
      const query = form.get("query") ?? "";
      const limit = Number(/\| limit (\d+)/.exec(query)?.[1] ?? Infinity);
      const backward = query.includes("_time desc");
      res.writeHead(200, { "Content-Type": "application/stream+json" });
      let n = 0;
      let chunk = "";
      const row = (ts: bigint) => {
        let text = rowText.get(ts);
        if (text === undefined) {
          const fields = {
            _msg: `row ${ts} ${PAD}`,
            _time: formatRFC3339Nano(ts),
            _stream: '{app="load"}',
            app: "load",
          };
          rowText.set(ts, (text = `${JSON.stringify(fields)}\n`));
        }
        return text;
      };
      if (backward) {
        for (let ts = until - MS - ((until - MS) % MS); ts >= first && n < limit; ts -= MS, n++) chunk += row(ts);
      } else {
        for (let ts = first; ts < until && n < limit; ts += MS, n++) {
          chunk += row(ts);
          if (chunk.length > 1 << 16) {
            res.write(chunk);
            chunk = "";
          }
        }
      }
      served.rows += n;
      res.end(chunk);
    });
  });
  // Longer than the run: an idle connection the server closes while the client reuses it would fail a read.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  run = (await runCappedNode(script, {
    ORIGIN_URL: url,
    TAILS: String(TAILS),
    TAIL_SECONDS: String(SECONDS),
  })) as typeof run;
  process.stdout.write(`[tail memory] ${JSON.stringify({ ...run.results[0], served })}\n`);
}, 55_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe("live tails over a busy two-minute look-back in 128 MB", () => {
  it("five tails live through it and keep up with 1,000 new rows a second", () => {
    expect(run.exit).toBe(0);
    const r = run.results[0]!;
    expect(r.errors).toEqual([]);
    // Once past the opening read, each tail sends the 1,000 rows a second that become visible
    // (how soon the opening reads end depends on the machine: a few seconds' worth at least).
    expect(r.entries).toBeGreaterThan(TAILS * 3 * 1000);
  });

  it("hold little memory: a hash per look-back row, one page of rows at a time", () => {
    expect(run.results[0]!.peakLiveGrowthMB).toBeLessThan(40);
  });

  it("read the look-back once, then only the new rows", () => {
    // Opening: ~100,000 rows each. Then about 1,000-2,000 a second each (the buckets that grew).
    expect(served.rows).toBeLessThan(TAILS * (110_000 + SECONDS * 2_500));
    // One count request a poll, and a read or two of the buckets that grew.
    expect(served.hits).toBeLessThanOrEqual(TAILS * (SECONDS + 2));
  });
});
