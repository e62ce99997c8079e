/**
 * Answers for the people and programs that reach the Worker without a Loki query: `/` says what
 * this is for someone who opens the URL in a browser, and Loki's push endpoints say that this is a
 * read API and where VictoriaLogs takes logs instead. Both are static text: unauthenticated, the
 * same for every caller, and free of configuration (ORIGIN_URL may be internal or carry
 * credentials, so it is never named).
 *
 * Push keeps Loki's status: a Loki target without the distributor (a querier, a query-frontend)
 * answers 404 for the push path, and log shippers (Promtail, Alloy, the OTLP exporters) retry only
 * 429 and 5xx, so a 404 stops a misconfigured shipper at once instead of having it retry for ever.
 * Only the body changes, from Loki's bare "404 page not found" to one that says what to do.
 */
import { Hono } from "hono";
import { errorResponse } from "../http/errors";

export const LANDING_TEXT = `loki-vl-worker: Grafana Loki's read API, answered from VictoriaLogs.

Add a Loki data source in Grafana with this URL, or point logcli at it. The queries, labels,
series, index statistics, Logs Drilldown and live tail endpoints are under /loki/api/v1/.

  /ready                          readiness (200 "ready" when the configuration is valid)
  /loki/api/v1/status/buildinfo   the Loki version it answers as

This is a read API: logs are written to VictoriaLogs itself, not here.
Documentation: the README of the loki-vl-worker repository; Loki's API:
https://grafana.com/docs/loki/latest/reference/loki-http-api/
`;

export const PUSH_TEXT = `404 page not found: loki-vl-worker serves Loki's read API only and accepts no logs.
Send logs to VictoriaLogs directly: Loki push (JSON or protobuf) to <victorialogs>/insert/loki/api/v1/push,
OTLP to <victorialogs>/insert/opentelemetry/v1/logs.
`;

/** Loki's push paths (current and legacy) and the OTLP logs path a Loki 3 accepts. */
export const PUSH_PATHS = ["/loki/api/v1/push", "/api/prom/push", "/otlp/v1/logs"] as const;

export const landingRoutes = new Hono().get(
  "/",
  () =>
    new Response(LANDING_TEXT, {
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "public, max-age=3600",
      },
    }),
);
for (const path of PUSH_PATHS) landingRoutes.all(path, () => errorResponse(404, PUSH_TEXT));
