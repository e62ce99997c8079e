/**
 * Middleware: telemetry for every Loki API request (src/http/telemetry.ts). Runs outermost, so the
 * line is written whatever happened inside — errors included — once the response is known.
 */
import type { Context, Next } from "hono";
import { matchedRoutes } from "hono/route";
import type { Env } from "../config";
import type { LokiRequest } from "./context";
import { cacheVerdict } from "./cache-status";
import { writeMetrics } from "./metrics";
import { digest, RequestTelemetry } from "./telemetry";
import { waitUntilOf } from "./wait-until";

type ObservedEnv = { Bindings: Env; Variables: { loki: LokiRequest; telemetry: RequestTelemetry } };

export async function observe(c: Context<ObservedEnv>, next: Next): Promise<void> {
  const telemetry = new RequestTelemetry();
  c.set("telemetry", telemetry);
  await next();
  const r = c.get("loki") as LokiRequest | undefined;
  // The answer exists: its cache writes may be prepared, unless a streamed body still holds them.
  r?.afterAnswer.answered();
  const cache = cacheVerdict(r?.cacheStats, telemetry.originRequests);
  try {
    c.res.headers.set("Server-Timing", telemetry.serverTiming(r?.cacheStats));
    if (cache.header !== undefined) c.res.headers.set("Cache-Status", cache.header);
  } catch {
    // A WebSocket upgrade's headers are immutable; its log line is still written.
  }
  const query = r
    ? (r.params.get("query") ?? r.params.getAll("match[]").concat(r.params.getAll("match")).join("\n"))
    : "";
  // A multi-tenant request is logged under its set of tenants, never under one of them alone.
  const tenant = r?.tenants.map((t) => t.client.tenantKey).join("|");
  const config = r?.config;
  const line = telemetry.record({
    route: routeOf(c),
    method: c.req.method,
    status: c.res.status,
    cache: r?.cacheStats,
    cacheOutcome: cache.outcome,
  });
  const write = async () => {
    if (tenant !== undefined && config !== undefined) {
      line.tenant = await digest(config, config.telemetryKeyMaterial, tenant);
      // Scoped by tenant: equal queries of two tenants are not linkable through the logs.
      if (query !== "") line.query = await digest(config, config.telemetryKeyMaterial, `${tenant}\n${query}`);
    }
    console.log(JSON.stringify(line));
    writeMetrics(c.env?.METRICS, {
      route: line.route,
      method: line.method,
      status: line.status,
      tenant: line.tenant,
      cache: cache.outcome,
      durationMs: line.durationMs,
      origin: line.origin,
      cacheTotals: line.cache,
      scanned: line.scanned,
    });
  };
  // The digests are not the client's business: after the response when the runtime allows it.
  const waitUntil = waitUntilOf(c);
  if (waitUntil) waitUntil(write().catch(() => {}));
  else await write();
}

/** The route's pattern (`/loki/api/v1/label/:name/values`), never the path a client sent. */
function routeOf(c: Context): string {
  const handlers = matchedRoutes(c).filter((route) => route.method !== "ALL");
  return handlers[handlers.length - 1]?.path ?? "unmatched";
}
