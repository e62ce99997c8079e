/** /index/stats, /index/volume, /index/volume_range. */
import { Hono } from "hono";
import type { Matcher } from "../logql/ast";
import { parseMatchers } from "../logql/parser";
import { BadRequestError } from "../core/errors";
import { checkQueryLength, checkRangeOrder, checkResolution, parseRange, parseStep } from "../http/params";
import { jsonResponse, type LokiRequest } from "../http/context";
import { indexStats, sumStats } from "../exec/index-stats";
import { tenantsFor } from "../plan/tenant-selector";
import { volume, volumeRange, type VolumeAggregation } from "../exec/volume";
import { metricResponseBody } from "../encode/metric";
import { requestStats } from "./request-stats";

type Vars = { Variables: { loki: LokiRequest } };

export const indexRoutes = new Hono<Vars>()
  .on(["GET", "POST"], "/loki/api/v1/index/stats", async (c) => {
    const r = c.get("loki");
    const window = parseRange(r.params, r.nowNs);
    checkRangeOrder(window);
    // Loki's querier applies max_query_length to stats and volume requests too.
    checkQueryLength(window, r.config.maxQueryLength);
    const chosen = tenantsFor(r.tenants, selector(r.params.get("query")));
    // A multi-tenant request's stats are the sums of its tenants' (Loki merges them so).
    const each = [];
    for (const { client } of chosen.tenants) each.push(await indexStats(client, chosen.matchers, window));
    return c.json(sumStats(each));
  })
  .on(["GET", "POST"], "/loki/api/v1/index/volume", async (c) => {
    const r = c.get("loki");
    const window = parseRange(r.params, r.nowNs);
    checkRangeOrder(window);
    checkQueryLength(window, r.config.maxQueryLength);
    const options = volumeOptions(r, window);
    const chosen = tenantsFor(r.tenants, options.matchers);
    const clients = chosen.tenants.map((t) => t.client);
    return jsonResponse(
      metricResponseBody(await volume(clients, { ...options, matchers: chosen.matchers }), requestStats(r)),
    );
  })
  .on(["GET", "POST"], "/loki/api/v1/index/volume_range", async (c) => {
    const r = c.get("loki");
    const window = parseRange(r.params, r.nowNs);
    const options = volumeOptions(r, window);
    checkRangeOrder(window);
    const step = parseStep(r.params, window);
    checkResolution(window, step);
    checkQueryLength(window, r.config.maxQueryLength);
    const chosen = tenantsFor(r.tenants, options.matchers);
    const clients = chosen.tenants.map((t) => t.client);
    const result = await volumeRange(clients, { ...options, matchers: chosen.matchers, step });
    return jsonResponse(metricResponseBody(result, requestStats(r)));
  });

/** Loki's volume parameters: `limit` (0 or absent = 100), `targetLabels`, `aggregateBy`. */
function volumeOptions(r: LokiRequest, window: { start: bigint; end: bigint }) {
  const targets = (r.params.get("targetLabels") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    limit: volumeLimit(r.params.get("limit")),
    aggregateBy: aggregation(r.params.get("aggregateBy")),
    matchers: selector(r.params.get("query")),
    window,
    targetLabels: targets,
    maxPoints: r.config.maxMetricPoints,
  };
}

const DEFAULT_VOLUME_LIMIT = 100;

function volumeLimit(raw: string | undefined): number {
  if (raw === undefined || raw === "") return DEFAULT_VOLUME_LIMIT;
  if (!/^[+-]?\d+$/.test(raw)) {
    throw new BadRequestError(`strconv.Atoi: parsing ${JSON.stringify(raw)}: invalid syntax`);
  }
  const limit = Number(raw);
  if (limit === 0) return DEFAULT_VOLUME_LIMIT;
  if (limit < 0) throw new BadRequestError("limit must be a positive value");
  return limit;
}

function aggregation(raw: string | undefined): VolumeAggregation {
  if (raw === undefined || raw === "" || raw === "series") return "series";
  if (raw === "labels") return "labels";
  throw new BadRequestError("invalid aggregation option");
}

function selector(query: string | undefined): Matcher[] {
  if (!query) throw new BadRequestError("query is required");
  return parseMatchers(query);
}
