/** /loki/api/v1/tail (and /api/prom/tail): a WebSocket streaming new entries as Loki tail frames. */
import { Hono } from "hono";
import { parseExpr } from "../logql/parser";
import { isLogExpr } from "../logql/ast";
import { BadRequestError } from "../http/errors";
import { parseLimit, parseLokiTime } from "../http/params";
import type { LokiRequest } from "../http/context";
import { runTail } from "../exec/tail";

type Vars = { Variables: { loki: LokiRequest } };

export const tailRoutes = new Hono<Vars>().get("/loki/api/v1/tail", (c) =>
  tail(c.get("loki"), c.req.header("Upgrade")),
);

function tail(r: LokiRequest, upgrade: string | undefined): Response {
  if (upgrade?.toLowerCase() !== "websocket") throw new BadRequestError("tail requires a websocket upgrade");
  const expr = parseExpr(r.params.get("query") ?? "");
  if (!isLogExpr(expr)) throw new BadRequestError("tail requires a log query");
  const limit = parseLimit(r.params, r.config.maxEntriesLimit);
  const startRaw = r.params.get("start");
  const startNs = startRaw ? parseLokiTime(startRaw, "start") : r.nowNs - 3_600_000_000_000n;
  const delay = Number(r.params.get("delay_for") ?? "0");
  if (!Number.isFinite(delay) || delay < 0 || delay > 5) {
    throw new BadRequestError("delay_for can't be greater than 5");
  }

  const pair = new WebSocketPair();
  const [clientSide, server] = [pair[0], pair[1]];
  server.accept();
  const stop = new AbortController();
  server.addEventListener("close", () => stop.abort());
  server.addEventListener("error", () => stop.abort());
  runTail(
    r.client.withSignal(stop.signal),
    expr,
    {
      startNs,
      limit,
      delayNs: BigInt(Math.round(delay * 1e9)),
      pollMs: 1000,
      categorize: r.categorize,
      splitInterval: r.config.splitInterval,
      now: () => BigInt(Date.now()) * 1_000_000n,
    },
    (frame) => server.send(frame),
    stop.signal,
  ).catch((err: unknown) => {
    // Loki closes with 1011 and the reason on failures.
    const reason = err instanceof Error ? err.message.slice(0, 120) : "internal error";
    try {
      server.close(1011, reason);
    } catch {
      /* already closed */
    }
  });
  return new Response(null, { status: 101, webSocket: clientSide });
}
