/**
 * The ruler's read API, answered as a Loki whose ruler holds no rule groups. The Worker evaluates
 * no recording or alerting rules, but Grafana probes these paths (the alert rules page, the data
 * source's ruler check) and must get Loki's "nothing configured" answers rather than a 404 page.
 */
import { Hono } from "hono";
import { errorResponse } from "../http/errors";
import type { LokiRequest } from "../http/context";

type Vars = { Variables: { loki: LokiRequest } };

/** Loki's ruler responses always carry `errorType` and `error`, empty on success. */
function rulerJson(status: number, body: object): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

export const rulesRoutes = new Hono<Vars>()
  .get("/prometheus/api/v1/rules", (c) => {
    const type = (c.get("loki").params.get("type") ?? "").toLowerCase();
    if (type !== "" && type !== "alert" && type !== "record") {
      return rulerJson(400, {
        status: "error",
        data: null,
        errorType: "bad_data",
        error: `not supported value ${JSON.stringify(type)}`,
      });
    }
    return rulerJson(200, { status: "success", data: { groups: [] }, errorType: "", error: "" });
  })
  .get("/prometheus/api/v1/alerts", () =>
    rulerJson(200, { status: "success", data: { alerts: [] }, errorType: "", error: "" }),
  )
  .on(
    "GET",
    ["/loki/api/v1/rules", "/loki/api/v1/rules/:namespace", "/api/prom/rules", "/api/prom/rules/:namespace"],
    () => errorResponse(404, "no rule groups found\n"),
  )
  .on("GET", ["/loki/api/v1/rules/:namespace/:group", "/api/prom/rules/:namespace/:group"], () =>
    errorResponse(404, "group does not exist\n"),
  );
