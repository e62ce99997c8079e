/**
 * Run by tail.test.ts in a Node whose heap is capped at 128 MB like an isolate
 * (bench/lib/capped-node.mjs): TAILS live tails (exec/tail.ts, with the route's options) follow the
 * origin at ORIGIN_URL for TAIL_SECONDS, each frame encoded as the route sends it. Prints one
 * `RESULT {json}` line: entries sent, errors, and the peak heap above the idle baseline (live:
 * after a full collection every 100 ms). A process that runs out of memory prints nothing.
 */
import { CachedOrigin } from "../../../src/cache/cached-origin";
import { parseExpr } from "../../../src/logql/parser";
import type { LogSelectorExpr } from "../../../src/logql/ast";
import { runTail } from "../../../src/exec/tail";
import { tailFrameV1 } from "../../../src/encode/tail-frames";
import { watchHeap } from "../../../bench/lib/heap-watch";

declare const process: {
  env: Record<string, string | undefined>;
  memoryUsage(): { heapUsed: number };
  stdout: { write(s: string): void };
};

const MB = 1024 * 1024;
const TAILS = Number(process.env.TAILS ?? 5);
const SECONDS = Number(process.env.TAIL_SECONDS ?? 10);
const S = 1_000_000_000n;
const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

async function main(): Promise<void> {
  const expr = parseExpr('{app="load"}') as LogSelectorExpr;
  const stopWatching = watchHeap(5, 100);

  const stop = new AbortController();
  let entries = 0;
  let frameBytes = 0;
  const errors: string[] = [];
  const tails = Array.from({ length: TAILS }, (_, i) => {
    const client = new CachedOrigin(
      { baseUrl: process.env.ORIGIN_URL!, timeoutMs: 30_000 },
      { accountId: i, projectId: 0 },
    ).withSignal(stop.signal);
    // The options the route gives a tail (routes/tail.ts).
    return runTail(
      client,
      expr,
      {
        startNs: nowNs(),
        limit: 100,
        delayNs: 0n,
        pollMs: 1000,
        lookBackNs: 120n * S,
        maxSeen: 200_000,
        maxSentPerPoll: 10_000,
        maxReadPerPoll: 20_000,
        splitInterval: 3600n * S,
        now: nowNs,
      },
      (batch) => {
        entries += batch.entries.length;
        frameBytes += tailFrameV1(batch, false).length;
      },
      stop.signal,
    ).catch((err: unknown) => {
      errors.push(String(err));
    });
  });
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  stop.abort();
  await Promise.all(tails);
  const { peakHeapGrowthMB, peakLiveGrowthMB } = stopWatching();
  const result = {
    tails: TAILS,
    seconds: SECONDS,
    entries,
    frameMB: Math.round((frameBytes / MB) * 10) / 10,
    errors,
    peakLiveGrowthMB,
    peakHeapGrowthMB,
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

await main();
