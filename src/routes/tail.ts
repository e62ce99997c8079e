/** /loki/api/v1/tail (and /api/prom/tail): a WebSocket streaming new entries as Loki tail frames. */
import { Hono } from "hono";
import { parseExpr } from "../logql/parser";
import { isLogExpr } from "../logql/ast";
import { BadRequestError, HttpError } from "../http/errors";
import { checkEntriesLimit, parseLimit, parseLokiTime } from "../http/params";
import type { LokiRequest } from "../http/context";
import { runTail, type TailBatch } from "../exec/tail";
import { tailFrameLegacy, tailFrameV1 } from "../encode/tail-frames";

type Vars = { Variables: { loki: LokiRequest } };

/** Loki's `max_delay_for_in_tail` limit, seconds. */
const MAX_DELAY_FOR_S = 5;
/** Rows of the look-back window remembered for de-duplication (hashed keys, ~100 bytes each). */
const MAX_SEEN = 200_000;
/** New entries sent per poll (per second): beyond, Loki-style dropped_entries. */
const MAX_SENT_PER_POLL = 10_000;

export const tailRoutes = new Hono<Vars>()
  .get("/loki/api/v1/tail", (c) => tail(c.get("loki"), c.req.header("Upgrade"), "v1"))
  .get("/api/prom/tail", (c) => tail(c.get("loki"), c.req.header("Upgrade"), "legacy"));

function tail(r: LokiRequest, upgrade: string | undefined, version: "v1" | "legacy"): Response {
  if (upgrade?.toLowerCase() !== "websocket") throw new BadRequestError("tail requires a websocket upgrade");
  const expr = parseExpr(r.params.get("query") ?? "");
  if (!isLogExpr(expr)) throw new BadRequestError("tail requires a log query");
  const limit = checkEntriesLimit(parseLimit(r.params), r.config.maxEntriesLimit);
  const startRaw = r.params.get("start");
  const startNs = startRaw ? parseLokiTime(startRaw, "start") : r.nowNs - 3_600_000_000_000n;
  const delay = Number(r.params.get("delay_for") ?? "0");
  if (!Number.isFinite(delay) || delay < 0 || delay > MAX_DELAY_FOR_S) {
    throw new BadRequestError(`delay_for can't be greater than ${MAX_DELAY_FOR_S}`);
  }
  const encode =
    version === "v1" ? (b: TailBatch) => tailFrameV1(b, r.categorize) : (b: TailBatch) => tailFrameLegacy(b);

  const pair = new WebSocketPair();
  const [clientSide, server] = [pair[0], pair[1]];
  server.accept();
  const stop = new AbortController();
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
      splitInterval: r.config.splitInterval,
      now: () => BigInt(Date.now()) * 1_000_000n,
    },
    (batch) => server.send(encode(batch)),
    stop.signal,
  ).catch((err: unknown) => {
    // Loki closes with 1011 and the reason on failures. Only our own errors' messages are sent (they
    // name the origin's status, never its text or credentials); anything else is "internal error".
    closeWith(1011, err instanceof HttpError ? err.message : "internal error");
  });
  return new Response(null, { status: 101, webSocket: clientSide });
}
