/**
 * The Worker's bindings and configuration, read once per request into typed values. Secrets
 * (ORIGIN_AUTH_HEADER, AUTH_TOKEN, TENANTS) are only ever passed along, never logged or echoed.
 */
import { readTenancyPolicy, type TenancyPolicy } from "./auth/policy";
import { ConfigError } from "./config-error";
import { parsePromDuration } from "./http/params";
import { DEFAULT_SERVICE_NAME_LABELS, type DerivedFieldRules } from "./engine/derived-fields";
import { DEFAULT_SUBREQUEST_LIMITS, type SubrequestLimits } from "./origin/subrequest-budget";

export { ConfigError };

export interface Env {
  ORIGIN_URL?: string;
  ORIGIN_TIMEOUT_MS?: string;
  /** Secret: the full Authorization header value sent to the origin (e.g. `Basic ...`). */
  ORIGIN_AUTH_HEADER?: string;
  /** Secret: when set, clients must present it (Bearer, or Basic password) to read the one tenant. */
  AUTH_TOKEN?: string;
  /** Secret: JSON object, tenant name → {tenant: "AccountID:ProjectID", token_sha256: [hex, ...]}. */
  TENANTS?: string;
  /** The tenant served in single-tenant mode ("AccountID" or "AccountID:ProjectID"; 0:0 by default). */
  TENANT?: string;
  SPLIT_INTERVAL?: string;
  MAX_CONCURRENCY?: string;
  MAX_ENTRIES_LIMIT?: string;
  MAX_QUERY_SERIES?: string;
  /** Loki's `max_query_length`: the longest range a query may ask for (default 721h; 0 = no limit). */
  MAX_QUERY_LENGTH?: string;
  /** "single" (default): one tenant; "header": X-Scope-OrgID chooses (behind an authenticating gateway). */
  TENANCY?: string;
  /** "off" makes the Worker evaluate every metric query itself (for comparison and diagnosis). */
  PUSHDOWN?: string;
  /** JSON object mapping X-Scope-OrgID names to "AccountID:ProjectID". */
  TENANT_MAP?: string;
  CACHE_KV?: KVNamespace;
  COALESCER?: DurableObjectNamespace;
  /** "off" disables caching and coalescing of origin answers (on by default). */
  CACHE?: string;
  /** Answers for windows ending within this duration of now are never stored for long (default 10m). */
  CACHE_FRESHNESS?: string;
  /** Optional Workers Analytics Engine dataset: one data point per request. */
  METRICS?: AnalyticsEngineDataset;
  /** Loki's `tail_max_duration`: a live tail closes after this long (default 1h). */
  TAIL_MAX_DURATION?: string;
  /** How old a line's timestamp may be when it becomes visible and still reach a live tail (default 2m). */
  TAIL_LOOK_BACK?: string;
  /** Loki's `discover_log_levels`: derive `detected_level` for every entry ("false" turns it off). */
  DISCOVER_LOG_LEVELS?: string;
  /** Loki's `discover_service_name`: comma list of labels `service_name` is taken from; "" turns it off. */
  DISCOVER_SERVICE_NAME?: string;
  /** Most origin requests (and coalescer calls) one request may make (default 1000; on Workers Free, whose cap is 50: 40). */
  MAX_SUBREQUESTS?: string;
  /** Most Cache API calls one request may make (default 900); past it, lookups are misses. */
  MAX_CACHE_CALLS?: string;
  /** Most KV operations one request may make (default 900); past it, KV is skipped. */
  MAX_KV_OPERATIONS?: string;
}

export interface Config {
  originUrl: string;
  originAuthorization?: string;
  originTimeoutMs: number;
  splitInterval: bigint;
  maxConcurrency: number;
  maxEntriesLimit: number;
  maxQuerySeries: number;
  /** ns; 0 means no limit. */
  maxQueryLength: bigint;
  /** Who may read which tenant (auth/policy.ts). */
  tenancy: TenancyPolicy;
  pushdown: boolean;
  /** The fields Loki's distributor would have added at ingest, derived at query time. */
  derivedFields: DerivedFieldRules;
  /** Cache and coalesce the origin's small JSON answers (on unless false). */
  cache?: boolean;
  /** Loki's `max_cache_freshness_per_query`, in ms. */
  cacheFreshnessMs: number;
  cacheKv?: KVNamespace;
  coalescer?: DurableObjectNamespace;
  tailMaxDurationMs: number;
  tailLookBackNs: bigint;
  /** Per-request counts of the platform's per-invocation limits (origin/subrequest-budget.ts). */
  subrequestLimits: SubrequestLimits;
}

/**
 * Each bindings object's configuration, read once: the runtime passes the same `env` to every
 * request of an isolate, and reading it parses URLs, durations and tenancy JSON. A bindings object
 * whose configuration is invalid is read (and refused) again each time.
 */
const configs = new WeakMap<Env, Config>();

export function configOf(env: Env): Config {
  let config = configs.get(env);
  if (config === undefined) configs.set(env, (config = readConfig(env)));
  return config;
}

export function readConfig(env: Env): Config {
  const raw = env.ORIGIN_URL;
  if (!raw) throw new ConfigError("ORIGIN_URL is not configured");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError("ORIGIN_URL is not a valid URL");
  }
  // Credentials embedded in the URL move to a header, so the URL itself can appear in no message.
  let originAuthorization = env.ORIGIN_AUTH_HEADER;
  if (url.username || url.password) {
    originAuthorization ??= "Basic " + btoa(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`);
    url.username = "";
    url.password = "";
  }
  return {
    originUrl: url.toString().replace(/\/+$/, ""),
    originAuthorization,
    originTimeoutMs: positiveInt(env.ORIGIN_TIMEOUT_MS, 60_000),
    splitInterval: parsePromDuration(env.SPLIT_INTERVAL ?? "1h") ?? 3_600_000_000_000n,
    maxConcurrency: Math.min(positiveInt(env.MAX_CONCURRENCY, 6), 6),
    maxEntriesLimit: positiveInt(env.MAX_ENTRIES_LIMIT, 5000),
    maxQuerySeries: positiveInt(env.MAX_QUERY_SERIES, 500),
    maxQueryLength: parsePromDuration(env.MAX_QUERY_LENGTH ?? "721h") ?? 721n * 3_600_000_000_000n,
    tenancy: readTenancyPolicy(env),
    pushdown: env.PUSHDOWN !== "off",
    cache: !["off", "false", "0", "no"].includes((env.CACHE ?? "").trim().toLowerCase()),
    cacheFreshnessMs: Number((parsePromDuration(env.CACHE_FRESHNESS ?? "10m") ?? 600_000_000_000n) / 1_000_000n),
    cacheKv: env.CACHE_KV,
    coalescer: env.COALESCER,
    tailMaxDurationMs: Number((positiveDuration(env.TAIL_MAX_DURATION) ?? 3_600_000_000_000n) / 1_000_000n),
    tailLookBackNs: positiveDuration(env.TAIL_LOOK_BACK) ?? 120_000_000_000n,
    subrequestLimits: {
      subrequests: positiveInt(env.MAX_SUBREQUESTS, DEFAULT_SUBREQUEST_LIMITS.subrequests),
      cacheCalls: nonNegativeInt(env.MAX_CACHE_CALLS, DEFAULT_SUBREQUEST_LIMITS.cacheCalls),
      kvOperations: nonNegativeInt(env.MAX_KV_OPERATIONS, DEFAULT_SUBREQUEST_LIMITS.kvOperations),
    },
    derivedFields: {
      discoverLogLevels: !["off", "false", "0", "no"].includes((env.DISCOVER_LOG_LEVELS ?? "").trim().toLowerCase()),
      serviceNameLabels:
        env.DISCOVER_SERVICE_NAME === undefined
          ? DEFAULT_SERVICE_NAME_LABELS
          : env.DISCOVER_SERVICE_NAME.split(",")
              .map((l) => l.trim())
              .filter(Boolean),
    },
  };
}

function positiveInt(v: string | undefined, dflt: number): number {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : dflt;
}

/** 0 is meaningful here: no calls of that kind at all (a Free plan deployment may spend none on caches). */
function nonNegativeInt(v: string | undefined, dflt: number): number {
  const n = Number(v);
  return v !== undefined && v.trim() !== "" && Number.isInteger(n) && n >= 0 ? n : dflt;
}

function positiveDuration(v: string | undefined): bigint | undefined {
  const d = v === undefined ? undefined : parsePromDuration(v);
  return d !== undefined && d > 0n ? d : undefined;
}
