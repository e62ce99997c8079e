/**
 * Everything a route needs about one request, built once by middleware: configuration, merged
 * GET/POST parameters, the tenant-scoped origin client, the clock and the response flavour.
 */
import { isLogsDrilldownRequest } from "./query-tags";
import { BadRequestError } from "../core/errors";
import { AfterAnswer } from "./after-answer";
import { type Config, originConfigOf } from "../config";
import type { Tenant } from "../core/tenant";
import { CachedOrigin } from "../cache/cached-origin";
import { directTransport, originTransport, resultCacheFor } from "../cache/request-caches";
import { CacheStats } from "../cache/stats";
import { RequestTelemetry } from "./telemetry";
import { type RawParams, rawParamsFrom } from "./params";
import { acceptsMultiTenant, resolveTenants } from "./tenant";
import { SubrequestBudget } from "../origin/subrequest-budget";
import type { TenantClient } from "../exec/multi-tenant";

export interface LokiRequest {
  config: Config;
  params: RawParams;
  client: CachedOrigin;
  /**
   * Every tenant the request reads, each with its own client (own cache keys, own origin requests):
   * one for a plain X-Scope-OrgID, several for a multi-tenant `a|b` (then `client` is the first's,
   * and only the routes in MULTI_TENANT_PATHS, which read `tenants`, are reached).
   */
  tenants: TenantClient[];
  nowNs: bigint;
  /** X-Loki-Response-Encoding-Flags: categorize-labels */
  categorize: boolean;
  /** The request comes from Logs Drilldown (`X-Query-Tags`), which Loki answers partially past limits. */
  logsDrilldown: boolean;
  signal: AbortSignal;
  startedAt: number;
  /** What the caches did for this request (Loki's `stats.cache`). */
  cacheStats: CacheStats;
  telemetry: RequestTelemetry;
  /** Cache writes prepared after the answer is out (see after-answer.ts). */
  afterAnswer: AfterAnswer;
  /** What this request may still ask of the platform: origin requests, Cache API calls, KV operations. */
  budget: SubrequestBudget;
}

/**
 * `boundTenant`: the tenant the caller's credential is bound to (auth/credentials.ts), if any.
 * `waitUntil` keeps cache writes alive after the response; without an execution context (plain
 * app.fetch in tests) they simply run unawaited.
 */
export async function buildLokiRequest(
  req: Request,
  config: Config,
  boundTenant?: Tenant,
  waitUntil: (work: Promise<unknown>) => void = () => {},
  telemetry: RequestTelemetry = new RequestTelemetry(),
): Promise<LokiRequest> {
  const url = new URL(req.url);
  let form: URLSearchParams | undefined;
  if (req.method === "POST") {
    const type = req.headers.get("Content-Type") ?? "";
    if (type.includes("application/x-www-form-urlencoded")) form = new URLSearchParams(await req.text());
    else if (type.includes("multipart/form-data")) form = await multipartParams(req);
  }
  const named = resolveTenants(config.tenancy, boundTenant, req.headers.get("X-Scope-OrgID"));
  if (named.length > 1 && !acceptsMultiTenant(url.pathname)) {
    throw new BadRequestError("multi-tenant queries are not supported by this endpoint");
  }
  const flags = req.headers.get("X-Loki-Response-Encoding-Flags") ?? "";
  const cacheStats = new CacheStats();
  // Loki's query frontend leaves its results cache out of a `Cache-Control: no-cache` request
  // altogether: nothing is read from it and nothing is written to it. So do we, coalescing included:
  // the client asked for the origin's answer as of now.
  const noCache = /(?:^|,)\s*no-cache\s*(?:,|$)/i.test(req.headers.get("Cache-Control") ?? "");
  if (noCache) cacheStats.bypass = "no-cache";
  else if (config.cache === false) cacheStats.bypass = "CACHE=off";
  const defer = (work: Promise<unknown>) => waitUntil(work.catch(() => {}));
  const afterAnswer = new AfterAnswer(defer);
  const budget = new SubrequestBudget(config.subrequestLimits);
  const use = { stats: cacheStats, defer, later: (task: () => void) => afterAnswer.add(task), budget };
  // One transport for all tenants: each request it carries names its tenant, and the cache keys
  // it writes include it (cache/keys.ts); the results caches, around each tenant's client, are per tenant.
  const transport = noCache
    ? directTransport(config, telemetry.meter, budget)
    : originTransport(config, use, telemetry.meter);
  const tenants = named.map(({ name, tenant }) => ({
    name,
    client: new CachedOrigin(
      { ...originConfigOf(config), meter: telemetry.meter },
      tenant,
      req.signal,
      transport,
      budget,
      noCache ? undefined : resultCacheFor(config, tenant, use),
    ),
  }));
  return {
    config,
    params: rawParamsFrom(url.searchParams, form),
    client: tenants[0]!.client,
    tenants,
    nowNs: BigInt(Date.now()) * 1_000_000n,
    categorize: flags.split(",").some((f) => f.trim() === "categorize-labels"),
    logsDrilldown: isLogsDrilldownRequest(req.headers.get("X-Query-Tags")),
    signal: req.signal,
    startedAt: Date.now(),
    cacheStats,
    telemetry,
    afterAnswer,
    budget,
  };
}

export function jsonResponse(body: string, status = 200): Response {
  return new Response(body, { status, headers: { "Content-Type": "application/json; charset=UTF-8" } });
}

/** A multipart body's text fields. One the runtime cannot parse is the client's error, not ours. */
async function multipartParams(req: Request): Promise<URLSearchParams> {
  let data: FormData;
  try {
    data = await req.formData();
  } catch {
    throw new BadRequestError("could not parse the multipart/form-data body");
  }
  const form = new URLSearchParams();
  for (const [k, v] of data) if (typeof v === "string") form.append(k, v);
  return form;
}
