/**
 * Live tail: polls the origin for entries newer than the last one sent and forwards them as Loki
 * tail frames. Polling (rather than holding VictoriaLogs' tail stream) keeps each origin request
 * short and bounded, which suits Workers' limits on connection lifetime.
 */
import type { LogSelectorExpr } from "../logql/ast";
import type { OriginClient } from "../origin/client";
import { tailFrameJson } from "../encode/stream-writer";
import { executeLogQuery } from "./logs";

export interface TailOptions {
  startNs: bigint;
  limit: number;
  delayNs: bigint;
  pollMs: number;
  categorize: boolean;
  splitInterval: bigint;
  now: () => bigint;
}

/** Runs until `signal` aborts; `send` gets each frame. Errors propagate to the caller (close 1011). */
export async function runTail(
  client: OriginClient,
  expr: LogSelectorExpr,
  o: TailOptions,
  send: (frame: string) => void,
  signal: AbortSignal,
): Promise<void> {
  let from = o.startNs;
  let first = true;
  while (!signal.aborted) {
    const to = o.now() - o.delayNs;
    if (to > from) {
      const { entries } = await executeLogQuery(client, expr, {
        window: { start: from, end: to },
        // The first batch replays the newest `limit` entries, as Loki does; later ones send all.
        limit: first ? o.limit : 5000,
        direction: first ? "backward" : "forward",
        splitInterval: o.splitInterval,
        maxConcurrency: 1,
        signal,
      });
      if (entries.length > 0) {
        const ordered = [...entries].sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
        send(tailFrameJson(ordered, o.categorize));
        const last = ordered[ordered.length - 1]!.ts + 1n;
        from = ordered.length >= 5000 && !first ? last : to;
      } else from = to;
      first = false;
    }
    await sleep(o.pollMs, signal);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });
}
