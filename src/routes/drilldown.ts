/**
 * The endpoints Grafana Logs Drilldown calls besides queries and volumes: /detected_labels,
 * /detected_fields, /detected_field/{name}/values, /patterns (GET and form POST) and
 * /drilldown-limits (GET). Parameters are checked in Loki's order with Loki's messages; the work is
 * in exec/detected.ts, the JSON in encode/drilldown.ts.
 */
import { Hono } from "hono";
import { isLogExpr, type LogSelectorExpr } from "../logql/ast";
import { parseExpr, parseMatchers } from "../logql/parser";
import { BadRequestError } from "../core/errors";
import {
  checkQueryLength,
  checkRangeOrder,
  checkResolution,
  parseRange,
  parseStep,
  requireQuery,
} from "../http/params";
import { checkLineLimit, parseFieldLimit, parseLineLimit } from "../http/drilldown-params";
import { jsonResponse, type LokiRequest } from "../http/context";
import { detectedFieldValues, detectedFields, detectedLabels, type DetectionOptions } from "../exec/detected";
import {
  detectedFieldValuesBody,
  detectedFieldsBody,
  detectedLabelsBody,
  drilldownLimitsBody,
  patternsBody,
} from "../encode/drilldown";
import { minePatterns } from "../exec/patterns";
import { multiTenantDetectedLabels, multiTenantPatterns } from "../exec/multi-tenant";
import { BUILD_INFO } from "./status";

type Vars = { Variables: { loki: LokiRequest } };

export const drilldownRoutes = new Hono<Vars>()
  .on(["GET", "POST"], "/loki/api/v1/detected_labels", async (c) => {
    const r = c.get("loki");
    const window = parseRange(r.params, r.nowNs);
    checkRangeOrder(window);
    // Loki's querier applies max_query_length here too.
    checkQueryLength(window, r.config.maxQueryLength);
    const query = r.params.get("query");
    // Without a query Loki looks at every stream; with one, it must be a bare stream selector.
    const matchers = query ? parseMatchers(query) : undefined;
    const labels =
      r.tenants.length > 1
        ? await multiTenantDetectedLabels(r.tenants, window, matchers, r.config.maxConcurrency)
        : await detectedLabels(r.client, window, matchers, r.config.maxConcurrency);
    return jsonResponse(detectedLabelsBody(labels));
  })
  .on(["GET", "POST"], "/loki/api/v1/detected_fields", async (c) => {
    const r = c.get("loki");
    const { expr, limit, options } = detectionRequest(r);
    // Loki's multi-tenant querier does not detect fields across tenants: it answers an empty list.
    if (r.tenants.length > 1) return jsonResponse(detectedFieldsBody([], limit));
    return jsonResponse(detectedFieldsBody(await detectedFields(r.client, expr, limit, options), limit));
  })
  .on(["GET", "POST"], "/loki/api/v1/detected_field/:name/values", async (c) => {
    const r = c.get("loki");
    const { expr, limit, options } = detectionRequest(r);
    // Loki answers field values through the same detected-fields call, empty across tenants.
    if (r.tenants.length > 1) return jsonResponse(detectedFieldValuesBody([], limit));
    const values = await detectedFieldValues(r.client, expr, c.req.param("name"), limit, options);
    return jsonResponse(detectedFieldValuesBody(values, limit));
  })
  .on(["GET", "POST"], "/loki/api/v1/patterns", async (c) => {
    const r = c.get("loki");
    // Loki checks the times and the step (it has no end-before-start check here: an empty range
    // finds nothing), then the query, which must be a bare stream selector.
    const window = parseRange(r.params, r.nowNs);
    const step = parseStep(r.params, window);
    checkResolution(window, step);
    const matchers = parseMatchers(requireQuery(r.params));
    const options = { window, step, maxConcurrency: r.config.maxConcurrency };
    const patterns =
      r.tenants.length > 1
        ? await multiTenantPatterns(r.tenants, matchers, options)
        : (await minePatterns(r.client, matchers, options)).patterns;
    return jsonResponse(patternsBody(patterns));
  })
  // Loki answers 401 `no org id` without X-Scope-OrgID; this Worker maps a missing header to the
  // default tenant on every route (http/tenant.ts), so this one answers for that tenant too.
  .get("/loki/api/v1/drilldown-limits", (c) => {
    const r = c.get("loki");
    return new Response(drilldownLimitsBody(r.config, BUILD_INFO.version), {
      headers: { "Content-Type": "application/json" },
    });
  });

/**
 * detected_fields and detected_field/{name}/values take the same parameters, checked as Loki's
 * ParseDetectedFieldsQuery and detected-fields handler check them: times, line_limit, limit, step,
 * then the query (a log selector, pipeline allowed), then line_limit against the entries limit.
 */
function detectionRequest(r: LokiRequest): { expr: LogSelectorExpr; limit: number; options: DetectionOptions } {
  const window = parseRange(r.params, r.nowNs);
  checkRangeOrder(window);
  const lineLimit = parseLineLimit(r.params);
  const limit = parseFieldLimit(r.params);
  checkResolution(window, parseStep(r.params, window));
  const expr = parseExpr(requireQuery(r.params));
  if (!isLogExpr(expr)) throw new BadRequestError("only log selector is supported");
  checkLineLimit(lineLimit, r.config.maxEntriesLimit);
  return {
    expr,
    limit,
    options: {
      window,
      lineLimit,
      splitInterval: r.config.splitInterval,
      maxConcurrency: r.config.maxConcurrency,
      signal: r.signal,
    },
  };
}
