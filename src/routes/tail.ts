/** /loki/api/v1/tail (and /api/prom/tail): a WebSocket streaming new entries as Loki tail frames. */
import { Hono } from "hono";
import { parseExpr } from "../logql/parser";
import { isLogExpr } from "../logql/ast";
import { BadRequestError, RequestError } from "../core/errors";
import { checkEntriesLimit, checkQueryLength, parseLimit, parseLokiTime } from "../http/params";
import type { LokiRequest } from "../http/context";
import { runTail } from "../exec/tail";
import type { TailBatch } from "../engine/types";
import { tailFrameLegacy, tailFrameV1 } from "../encode/tail-frames";
import { tailSlotCounters } from "../exec/tail-slot-stubs";
import { acquireTailSlot } from "../exec/tail-slots";

type Vars = { Variables: { loki: LokiRequest } };

/** Loki's `max_delay_for_in_tail` limit, seconds. */
const MAX_DELAY_FOR_S = 5;
/** Rows of the look-back window remembered for de-duplication (hashed keys, ~100 bytes each). */
const MAX_SEEN = 200_000;
/** New entries sent per poll (per second): beyond, Loki-style dropped_entries. */
const MAX_SENT_PER_POLL = 10_000;
/** Counted rows read per poll; changed buckets beyond wait for the next poll (exec/tail.ts). */
const MAX_READ_PER_POLL = 20_000;
/** The replay's oldest start when MAX_QUERY_LENGTH is off: Loki's default max_query_length, 721h. */
const UNLIMITED_REPLAY_NS = 721n * 3_600_000_000_000n;

export const tailRoutes = new Hono<Vars>()
  .get("/loki/api/v1/tail", (c) => tail(c.get("loki"), c.req.header("Upgrade"), "v1"))
  .get("/api/prom/tail", (c) => tail(c.get("loki"), c.req.header("Upgrade"), "legacy"));

async function tail(r: LokiRequest, upgrade: string | undefined, version: "v1" | "legacy"): Promise<Response> {
  if (upgrade?.toLowerCase() !== "websocket") throw new BadRequestError("tail requires a websocket upgrade");
  const expr = parseExpr(r.params.get("query") ?? "");
  if (!isLogExpr(expr)) throw new BadRequestError("tail requires a log query");
  const limit = checkEntriesLimit(parseLimit(r.params), r.config.maxEntriesLimit);
  const startRaw = r.params.get("start");
  let startNs = startRaw ? parseLokiTime(startRaw, "start") : r.nowNs - 3_600_000_000_000n;
  // Loki checks the replay's range [start, now] against max_query_length: `start=0` is refused,
  // not replayed from 1970. With the limit off, the replay still starts no earlier than 721h ago.
  checkQueryLength({ start: startNs, end: r.nowNs }, r.config.maxQueryLength);
  if (r.config.maxQueryLength <= 0n && startNs < r.nowNs - UNLIMITED_REPLAY_NS) startNs = r.nowNs - UNLIMITED_REPLAY_NS;
  const delay = Number(r.params.get("delay_for") ?? "0");
  if (!Number.isFinite(delay) || delay < 0 || delay > MAX_DELAY_FOR_S) {
    throw new BadRequestError(`delay_for can't be greater than ${MAX_DELAY_FOR_S}`);
  }
  const encode =
    version === "v1" ? (b: TailBatch) => tailFrameV1(b, r.categorize) : (b: TailBatch) => tailFrameLegacy(b);

  // Loki's max_concurrent_tail_requests, checked last so that a refused request holds no slot.
  const counters = r.config.tailSlots ? tailSlotCounters(r.config.tailSlots) : undefined;
  const slot = await acquireTailSlot(counters, r.client.tenantKey, r.config.maxConcurrentTails);
  if ("refused" in slot) throw new BadRequestError(slot.refused);

  // Whatever ends the tail ends it through `stop`, and so frees the slot.
  const stop = new AbortController();
  stop.signal.addEventListener("abort", slot.release, { once: true });
  let clientSide: WebSocket;
  let server: WebSocket;
  try {
    const pair = new WebSocketPair();
    [clientSide, server] = [pair[0], pair[1]];
    server.accept();
  } catch (err) {
    stop.abort();
    throw err;
  }
  const closeWith = (code: number, reason: string): void => {
    stop.abort();
    try {
      server.close(code, reason.slice(0, 120));
    } catch {
      /* already closed */
    }
  };
  server.addEventListener("close", () => stop.abort());
  server.addEventListener("error", () => stop.abort());
  // Loki ends a tail after tail_max_duration with an internal-error close and this reason.
  const maxDuration = setTimeout(() => closeWith(1011, "reached tail max duration limit"), r.config.tailMaxDurationMs);
  stop.signal.addEventListener("abort", () => clearTimeout(maxDuration));
  // A tail polls for up to TAIL_MAX_DURATION: its origin requests are bounded by that and the poll
  // rate, not by the plan of one answer (README, "Platform limits").
  r.budget.lift();
  runTail(
    r.client.withSignal(stop.signal),
    expr,
    {
      startNs,
      limit,
      delayNs: BigInt(Math.round(delay * 1e9)),
      pollMs: 1000,
      lookBackNs: r.config.tailLookBackNs,
      maxSeen: MAX_SEEN,
      maxSentPerPoll: MAX_SENT_PER_POLL,
      maxReadPerPoll: MAX_READ_PER_POLL,
      splitInterval: r.config.splitInterval,
      now: () => BigInt(Date.now()) * 1_000_000n,
    },
    (batch) => server.send(encode(batch)),
    stop.signal,
  ).catch((err: unknown) => {
    // Loki closes with 1011 and the reason on failures. Only our own errors' messages are sent (they
    // name the origin's status, never its text or credentials); anything else is "internal error".
    closeWith(1011, err instanceof RequestError ? err.message : "internal error");
  });
  return new Response(null, { status: 101, webSocket: clientSide });
}
