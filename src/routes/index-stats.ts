/** /index/stats, /index/volume, /index/volume_range. */
import { Hono } from "hono";
import type { Matcher } from "../logql/ast";
import { parseMatchers } from "../logql/parser";
import { BadRequestError } from "../http/errors";
import { checkQueryLength, checkRangeOrder, checkResolution, parseRange, parseStep } from "../http/params";
import { jsonResponse, type LokiRequest } from "../http/context";
import { indexStats, volume, volumeRange } from "../exec/index-stats";
import { metricResponseBody } from "../encode/metric";
import { requestStats } from "./request-stats";

type Vars = { Variables: { loki: LokiRequest } };

export const indexRoutes = new Hono<Vars>()
  .on(["GET", "POST"], "/loki/api/v1/index/stats", async (c) => {
    const r = c.get("loki");
    const window = parseRange(r.params, r.nowNs);
    checkRangeOrder(window);
    return c.json(await indexStats(r.client, selector(r.params.get("query")), window));
  })
  .on(["GET", "POST"], "/loki/api/v1/index/volume", async (c) => {
    const r = c.get("loki");
    const window = parseRange(r.params, r.nowNs);
    checkRangeOrder(window);
    const groups = await volume(r.client, volumeOptions(r, window));
    const samples = groups.map((g) => ({ labels: g.labels, v: g.bytes }));
    return jsonResponse(metricResponseBody({ type: "vector", t: window.end, samples }, requestStats(r)));
  })
  .on(["GET", "POST"], "/loki/api/v1/index/volume_range", async (c) => {
    const r = c.get("loki");
    const window = parseRange(r.params, r.nowNs);
    checkRangeOrder(window);
    const step = parseStep(r.params, window);
    checkResolution(window, step);
    checkQueryLength(window, r.config.maxQueryLength);
    const series = await volumeRange(r.client, { ...volumeOptions(r, window), step });
    return jsonResponse(metricResponseBody({ type: "matrix", series }, requestStats(r)));
  });

function volumeOptions(r: LokiRequest, window: { start: bigint; end: bigint }) {
  const limitRaw = Number(r.params.get("limit") ?? "100");
  const targets = (r.params.get("targetLabels") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    matchers: selector(r.params.get("query")),
    window,
    targetLabels: targets,
    limit: Number.isInteger(limitRaw) && limitRaw > 0 ? limitRaw : 100,
  };
}

function selector(query: string | undefined): Matcher[] {
  if (!query) throw new BadRequestError("query is required");
  return parseMatchers(query);
}
