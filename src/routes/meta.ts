/** /labels, /label/{name}/values, /series (and their legacy /api/prom twins). */
import { Hono } from "hono";
import type { Matcher } from "../logql/ast";
import { parseExpr, parseMatchers } from "../logql/parser";
import { BadRequestError } from "../core/errors";
import { checkQueryLength, checkRangeOrder, parseRange } from "../http/params";
import { jsonResponse, type LokiRequest } from "../http/context";
import { labelNames, labelValues, series } from "../exec/meta";
import { multiTenantLabelNames, multiTenantLabelValues, multiTenantSeries } from "../exec/multi-tenant";

type Vars = { Variables: { loki: LokiRequest } };

export const metaRoutes = new Hono<Vars>()
  .on(["GET", "POST"], ["/loki/api/v1/labels", "/loki/api/v1/label", "/api/prom/label"], async (c) => {
    const r = c.get("loki");
    const window = parseRange(r.params, r.nowNs);
    checkRangeOrder(window);
    // Loki's querier applies max_query_length to label and series requests too.
    checkQueryLength(window, r.config.maxQueryLength);
    const selector = selectorOf(r.params.get("query"));
    const names =
      r.tenants.length > 1
        ? await multiTenantLabelNames(r.tenants, window, selector)
        : await labelNames(r.client, window, selector);
    return jsonResponse(listBody(names));
  })
  .on(["GET", "POST"], ["/loki/api/v1/label/:name/values", "/api/prom/label/:name/values"], async (c) => {
    const r = c.get("loki");
    const window = parseRange(r.params, r.nowNs);
    checkRangeOrder(window);
    // Loki's querier applies max_query_length to label and series requests too.
    checkQueryLength(window, r.config.maxQueryLength);
    const selector = selectorOf(r.params.get("query"));
    const name = c.req.param("name");
    const values =
      r.tenants.length > 1
        ? await multiTenantLabelValues(r.tenants, name, window, selector)
        : await labelValues(r.client, name, window, selector);
    return jsonResponse(listBody(values));
  })
  .on(["GET", "POST"], ["/loki/api/v1/series", "/api/prom/series"], async (c) => {
    const r = c.get("loki");
    const window = parseRange(r.params, r.nowNs);
    checkRangeOrder(window);
    // Loki's querier applies max_query_length to label and series requests too.
    checkQueryLength(window, r.config.maxQueryLength);
    const selectors = seriesSelectors(r.params);
    const list =
      r.tenants.length > 1
        ? await multiTenantSeries(r.tenants, selectors, window)
        : await series(r.client, selectors, window);
    return jsonResponse(`{"status":"success","data":${JSON.stringify(list)}}`);
  });

/**
 * The series request's selectors: `match[]` and `match` unioned. No matcher at all, or the single
 * matcher `{}` (spaces ignored), asks for every stream in the range, as `logcli series '{}'` does.
 */
function seriesSelectors(params: LokiRequest["params"]): Matcher[][] {
  const raw = [...new Set([...params.getAll("match[]"), ...params.getAll("match")])];
  if (raw.length === 0 || (raw.length === 1 && raw[0]!.replaceAll(" ", "") === "{}")) return [];
  return raw.map(parseMatchers);
}

/** Loki omits `data` entirely when there is nothing to list. */
function listBody(items: string[]): string {
  return items.length === 0 ? `{"status":"success"}` : `{"status":"success","data":${JSON.stringify(items)}}`;
}

function selectorOf(query: string | undefined): Matcher[] | undefined {
  if (!query) return undefined;
  const expr = parseExpr(query);
  if (expr.kind !== "LogSelector") throw new BadRequestError("only log selectors are supported in 'query'");
  return expr.matchers;
}
