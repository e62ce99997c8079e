/**
 * /query_range and /query: parse, validate parameters as Loki does, hand the expression to the log
 * or metric executor, encode the answer. Routes stay thin: no LogQL or origin knowledge here.
 */
import { Hono } from "hono";
import { parseExpr } from "../logql/parser";
import { isLogExpr, type Expr, type SampleExpr } from "../logql/ast";
import { withoutInternalStreams } from "../logql/internal-streams";
import type { MetricQuery } from "../engine/metric";
import { BadRequestError } from "../core/errors";
import {
  checkEntriesLimit,
  checkRangeOrder,
  checkQueryLength,
  checkResolution,
  parseDirection,
  parseLimit,
  parseLokiTime,
  parseRange,
  parseStep,
  requireQuery,
} from "../http/params";
import { jsonResponse, type LokiRequest } from "../http/context";
import { executeLogQuery } from "../exec/logs";
import { executeMetricQuery } from "../exec/metric";
import { LocalRows } from "../exec/local-rows";
import { streamsResponseStream } from "../encode/stream-writer";
import { groupByLabelSet } from "../encode/label-sets";
import { metricResponseBody } from "../encode/metric";
import { requestStats } from "./request-stats";
import { logQueryAdmission, logQueryReservation } from "../exec/admission";
import { executeMultiTenantLogQuery, executeMultiTenantMetricQuery } from "../exec/multi-tenant";

type Vars = { Variables: { loki: LokiRequest } };

export const queryRoutes = new Hono<Vars>()
  .on(["GET", "POST"], ["/loki/api/v1/query_range", "/api/prom/query"], (c) => queryRange(c.get("loki")))
  .on(["GET", "POST"], "/loki/api/v1/query", (c) => instantQuery(c.get("loki")));

async function queryRange(r: LokiRequest): Promise<Response> {
  const { params, config } = r;
  const range = parseRange(params, r.nowNs);
  const limit = parseLimit(params);
  const direction = parseDirection(params);
  checkRangeOrder(range);
  const step = parseStep(params, range);
  checkResolution(range, step);
  const expr = internalStreamsFor(r, parseExpr(requireQuery(params)));
  checkQueryLength(range, config.maxQueryLength);

  if (isLogExpr(expr)) {
    checkEntriesLimit(limit, config.maxEntriesLimit);
    // Room for the entries this query may hold, until its answer has been written out.
    const memory = await logQueryAdmission.admit(logQueryReservation(expr, limit), r.signal);
    const release = () => memory.release();
    try {
      const run = r.tenants.length > 1 ? multiTenantLogQuery(r) : executeLogQuery.bind(null, r.client);
      const { entries, stats } = await run(expr, {
        window: range,
        limit,
        direction,
        splitInterval: config.splitInterval,
        maxConcurrency: config.maxConcurrency,
        signal: r.signal,
        prefilter: config.pushdown,
        memory,
        localRows: new LocalRows(config.maxLocalRows),
      });
      r.telemetry.mark("exec");
      // The stats object is written at the end of the stream; the log line is written before that.
      r.telemetry.scanned(stats.rowsScanned, stats.bytesScanned);
      const body = streamsResponseStream(groupByLabelSet(entries, r.categorize), r.categorize, () =>
        requestStats(r, stats, entries.length),
      );
      // Cache writes wait until the last chunk is out (src/http/after-answer.ts).
      r.afterAnswer.hold();
      const done = () => {
        release();
        r.afterAnswer.release();
      };
      return new Response(releasingWhenDone(body, done), {
        headers: { "Content-Type": "application/json; charset=UTF-8" },
      });
    } catch (err) {
      release();
      throw err;
    }
  }
  return metricQuery(r, expr, { start: range.start, end: range.end, step, instant: false });
}

async function instantQuery(r: LokiRequest): Promise<Response> {
  const { params } = r;
  const timeRaw = params.get("time");
  const t = timeRaw ? parseLokiTime(timeRaw, "time") : r.nowNs;
  parseLimit(params);
  parseDirection(params);
  const expr = internalStreamsFor(r, parseExpr(requireQuery(params)));
  if (isLogExpr(expr)) {
    throw new BadRequestError(
      "log queries are not supported as an instant query type, please change your query to a range query type",
    );
  }
  return metricQuery(r, expr, { start: t, end: t, step: 0n, instant: true });
}

/** Loki's internal streams are Logs Drilldown's alone: for other clients their selectors match nothing. */
function internalStreamsFor<E extends Expr>(r: LokiRequest, expr: E): E {
  return r.logsDrilldown ? expr : withoutInternalStreams(expr);
}

/** The body, calling `release` once it has been read to its end or abandoned. */
function releasingWhenDone(body: ReadableStream<Uint8Array>, release: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        release();
        controller.error(err);
      }
    },
    async cancel(reason) {
      release();
      await reader.cancel(reason);
    },
  });
}

/** A metric query's answer (range or instant), with its phases timed. */
async function metricQuery(r: LokiRequest, expr: SampleExpr, q: MetricQuery): Promise<Response> {
  const { config } = r;
  const run = r.tenants.length > 1 ? multiTenantMetricQuery(r) : executeMetricQuery.bind(null, r.client);
  const { result, stats } = await run(expr, q, {
    splitInterval: config.splitInterval,
    maxConcurrency: config.maxConcurrency,
    maxSeries: config.maxQuerySeries,
    partialSeries: r.logsDrilldown,
    maxPoints: config.maxMetricPoints,
    pushdown: config.pushdown,
    localRows: new LocalRows(config.maxLocalRows),
  });
  r.telemetry.mark("exec");
  const body = metricResponseBody(result, requestStats(r, stats, 0));
  r.telemetry.mark("encode");
  return jsonResponse(body);
}

/** `X-Scope-OrgID: a|b`: every tenant read on its own, merged with its `__tenant_id__` (exec/multi-tenant.ts). */
function multiTenantLogQuery(r: LokiRequest) {
  return executeMultiTenantLogQuery.bind(null, r.tenants);
}

function multiTenantMetricQuery(r: LokiRequest) {
  return executeMultiTenantMetricQuery.bind(null, r.tenants);
}
