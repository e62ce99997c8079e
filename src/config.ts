/**
 * The Worker's bindings and configuration, validated once per isolate into typed values. Secrets
 * (ORIGIN_AUTH_HEADER, AUTH_TOKEN, TENANTS, TELEMETRY_KEY) are only ever passed along, never logged
 * or echoed; a refusal names the variable and the problem, never a value.
 */
import { readTenancyPolicy, secretVar, type TenancyPolicy } from "./auth/policy";
import { ConfigError } from "./core/config-error";
import { parseLokiDuration } from "./core/go/duration";
import { DEFAULT_SERVICE_NAME_LABELS, type DerivedFieldRules } from "./engine/derived-fields";
import { DEFAULT_MAX_POINTS } from "./engine/metric/errors";
import type { OriginConfig } from "./origin/client";
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
  /** Secret: when set, operators may purge cached answers with it (POST /admin/cache/purge). */
  ADMIN_TOKEN?: string;
  /** The tenant served in single-tenant mode ("AccountID" or "AccountID:ProjectID"; 0:0 by default). */
  TENANT?: string;
  SPLIT_INTERVAL?: string;
  MAX_CONCURRENCY?: string;
  MAX_ENTRIES_LIMIT?: string;
  MAX_QUERY_SERIES?: string;
  /** What one metric evaluation or volume_range may hold: series, window accumulators, samples, bucket rows. */
  MAX_METRIC_POINTS?: string;
  /** Loki's `max_query_length`: the longest range a query may ask for (default 721h; 0 = no limit). */
  MAX_QUERY_LENGTH?: string;
  /** Rows one query may evaluate in the Worker from whole lines (default 1000000; 0 = no limit). */
  MAX_LOCAL_ROWS?: string;
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
  /** Loki's `max_concurrent_tail_requests`: live tails one tenant may hold open (default 10). */
  MAX_CONCURRENT_TAILS?: string;
  /** Per-tenant counters of open tails across isolates (exec/tail-slot-object.ts). */
  TAIL_SLOTS?: DurableObjectNamespace;
  /** Loki's `discover_log_levels`: derive `detected_level` for every entry ("false" turns it off). */
  DISCOVER_LOG_LEVELS?: string;
  /** Loki's `discover_service_name`: comma list of labels `service_name` is taken from; "" turns it off. */
  DISCOVER_SERVICE_NAME?: string;
  /** Secret: keys the digests of tenants and queries in the logs (HMAC-SHA-256), see telemetry.ts. */
  TELEMETRY_KEY?: string;
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
  maxMetricPoints: number;
  /** ns; 0 means no limit. */
  maxQueryLength: bigint;
  /** Rows one query may evaluate in the Worker (exec/local-rows.ts); 0 means no limit. */
  maxLocalRows: number;
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
  /**
   * What keys the logged digests: TELEMETRY_KEY, else the deployment's other secrets; undefined when
   * no secret is configured at all (each isolate then draws a random key, see http/telemetry.ts).
   */
  telemetryKeyMaterial?: string;
  maxConcurrentTails: number;
  tailSlots?: DurableObjectNamespace;
  /** Per-request counts of the platform's per-invocation limits (origin/subrequest-budget.ts). */
  subrequestLimits: SubrequestLimits;
}

/**
 * Each bindings object's configuration, validated once: the runtime passes the same `env` to every
 * request of an isolate, and reading it parses URLs, durations and tenancy JSON. A refusal is kept
 * too, so a broken deployment answers its configuration error from every route at no cost.
 */
const outcomes = new WeakMap<Env, Config | ConfigError>();

/** The configuration, or throws the ConfigError that names what is wrong (never a value). */
export function configOf(env: Env): Config {
  const outcome = validatedConfig(env);
  if (outcome instanceof ConfigError) throw outcome;
  return outcome;
}

/** What is wrong with the configuration, or undefined when every variable is valid (/ready). */
export function configProblem(env: Env): ConfigError | undefined {
  const outcome = validatedConfig(env);
  return outcome instanceof ConfigError ? outcome : undefined;
}

function validatedConfig(env: Env): Config | ConfigError {
  let outcome = outcomes.get(env);
  if (outcome === undefined) {
    try {
      outcome = readConfig(env);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      outcome = err;
    }
    outcomes.set(env, outcome);
  }
  return outcome;
}

/**
 * Reads and validates every variable. A variable that is absent takes its default; one that is set
 * must be valid, since a value silently replaced by the default hides the mistake until a user
 * meets its consequences. Throws ConfigError naming the first invalid variable.
 */
export function readConfig(env: Env): Config {
  const raw = env.ORIGIN_URL;
  if (raw === undefined || raw.trim() === "") throw new ConfigError("ORIGIN_URL is not configured");
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError("ORIGIN_URL is not a valid URL");
  }
  // "victorialogs:9428" parses as a URL of scheme "victorialogs:"; only HTTP reaches an origin.
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError("ORIGIN_URL must start with http:// or https://");
  }
  // Origin paths are appended to the URL: a query or fragment would swallow them.
  if (url.search !== "" || url.hash !== "") throw new ConfigError("ORIGIN_URL must not have a query or fragment");
  // Credentials embedded in the URL move to a header, so the URL itself can appear in no message.
  let originAuthorization = secretVar("ORIGIN_AUTH_HEADER", env.ORIGIN_AUTH_HEADER);
  if (originAuthorization !== undefined && !isHeaderValue(originAuthorization)) {
    throw new ConfigError("ORIGIN_AUTH_HEADER is not a valid header value");
  }
  if (url.username || url.password) {
    originAuthorization ??= "Basic " + btoa(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`);
    url.username = "";
    url.password = "";
  }
  const tenancy = readTenancyPolicy(env);
  return {
    originUrl: url.toString().replace(/\/+$/, ""),
    originAuthorization,
    originTimeoutMs: positiveInt(env, "ORIGIN_TIMEOUT_MS", 60_000),
    splitInterval: duration(env, "SPLIT_INTERVAL", 3_600_000_000_000n, MIN_SPLIT_INTERVAL),
    maxConcurrency: positiveInt(env, "MAX_CONCURRENCY", 6, MAX_OPEN_CONNECTIONS),
    maxEntriesLimit: positiveInt(env, "MAX_ENTRIES_LIMIT", 5000),
    maxQuerySeries: positiveInt(env, "MAX_QUERY_SERIES", 500),
    maxMetricPoints: positiveInt(env, "MAX_METRIC_POINTS", DEFAULT_MAX_POINTS),
    maxQueryLength: duration(env, "MAX_QUERY_LENGTH", 721n * 3_600_000_000_000n, 0n),
    maxLocalRows: nonNegativeInt(env, "MAX_LOCAL_ROWS", DEFAULT_MAX_LOCAL_ROWS),
    tenancy,
    pushdown: flag(env, "PUSHDOWN", true),
    cache: flag(env, "CACHE", true),
    cacheFreshnessMs: Number(duration(env, "CACHE_FRESHNESS", 600_000_000_000n, 0n) / 1_000_000n),
    cacheKv: env.CACHE_KV,
    coalescer: env.COALESCER,
    tailMaxDurationMs: Number(duration(env, "TAIL_MAX_DURATION", 3_600_000_000_000n, 1n) / 1_000_000n),
    tailLookBackNs: duration(env, "TAIL_LOOK_BACK", 120_000_000_000n, 1n),
    maxConcurrentTails: positiveInt(env, "MAX_CONCURRENT_TAILS", 10),
    tailSlots: env.TAIL_SLOTS,
    subrequestLimits: {
      subrequests: positiveInt(env, "MAX_SUBREQUESTS", DEFAULT_SUBREQUEST_LIMITS.subrequests),
      cacheCalls: nonNegativeInt(env, "MAX_CACHE_CALLS", DEFAULT_SUBREQUEST_LIMITS.cacheCalls),
      kvOperations: nonNegativeInt(env, "MAX_KV_OPERATIONS", DEFAULT_SUBREQUEST_LIMITS.kvOperations),
    },
    derivedFields: {
      discoverLogLevels: flag(env, "DISCOVER_LOG_LEVELS", true),
      serviceNameLabels: labelList(env, "DISCOVER_SERVICE_NAME", DEFAULT_SERVICE_NAME_LABELS),
    },
    telemetryKeyMaterial: telemetryKeyMaterial(env, originAuthorization),
  };
}

/**
 * A whole line evaluated in the Worker costs 10-24 µs of CPU (bench/results/scale.md: 10.4 µs for
 * the levels panel, 24.1 µs for a JSON field's), so a million rows take 10-24 s: within the Workers
 * CPU limit's default of 30 s for every shape measured. A deployment that raised the limit (5 min at
 * most) can raise this with it, about ten times.
 */
const DEFAULT_MAX_LOCAL_ROWS = 1_000_000;
/** Workers keep at most six connections open per request: more in flight would only queue. */
const MAX_OPEN_CONNECTIONS = 6;
/** Each sub-window is an origin request: a sub-minute interval would turn one query into thousands. */
const MIN_SPLIT_INTERVAL = 60_000_000_000n;
/** The spellings a switch accepts; anything else is a typo, not "on". */
const SWITCH: Record<string, boolean> = {
  on: true,
  true: true,
  yes: true,
  "1": true,
  off: false,
  false: false,
  no: false,
  "0": false,
};
/** Prometheus label names, which is what Loki's `discover_service_name` lists. */
const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Shorter keys can be guessed, and then every logged digest confirms a guessed tenant or query. */
const MIN_TELEMETRY_KEY_LENGTH = 16;

/** A string variable as read from env (the bindings object also holds KV and Durable Object bindings). */
type StringVar = { [K in keyof Env]-?: NonNullable<Env[K]> extends string ? K : never }[keyof Env];

function positiveInt(env: Env, name: StringVar, dflt: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = env[name];
  if (v === undefined) return dflt;
  const text = v.trim();
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(Number.isSafeInteger(n) && n >= 1 && n <= max)) {
    throw new ConfigError(
      max === Number.MAX_SAFE_INTEGER
        ? `${name} must be a positive integer`
        : `${name} must be an integer from 1 to ${max}`,
    );
  }
  return n;
}

/** A Prometheus duration ("90s", "1h30m", "0") of at least `min` ns. */
function duration(env: Env, name: StringVar, dflt: bigint, min: bigint): bigint {
  const v = env[name];
  if (v === undefined) return dflt;
  const parsed = parseLokiDuration(v.trim());
  if (!parsed.ok) throw new ConfigError(`${name} must be a duration such as 90s, 10m or 1h`);
  const d = parsed.value;
  if (d < min) {
    throw new ConfigError(
      min === 0n
        ? `${name} must not be negative`
        : min === 1n
          ? `${name} must be longer than 0`
          : `${name} must be at least ${formatNs(min)}`,
    );
  }
  return d;
}

function formatNs(ns: bigint): string {
  return ns % 60_000_000_000n === 0n ? `${ns / 60_000_000_000n}m` : `${ns / 1_000_000_000n}s`;
}

function flag(env: Env, name: StringVar, dflt: boolean): boolean {
  const v = env[name];
  if (v === undefined) return dflt;
  const value = SWITCH[v.trim().toLowerCase()];
  if (value === undefined) throw new ConfigError(`${name} must be on or off (true/false, yes/no, 1/0)`);
  return value;
}

/** A comma list of label names; set but empty means none. */
function labelList(env: Env, name: StringVar, dflt: readonly string[]): string[] {
  const v = env[name];
  if (v === undefined) return [...dflt];
  if (v.trim() === "") return [];
  const labels = v.split(",").map((l) => l.trim());
  if (!labels.every((l) => LABEL_NAME.test(l))) throw new ConfigError(`${name} must be a comma list of label names`);
  return labels;
}

function isHeaderValue(value: string): boolean {
  try {
    new Headers({ Authorization: value });
    return true;
  } catch {
    return false;
  }
}

/**
 * The material the telemetry digest key is derived from: TELEMETRY_KEY when set, else the secrets
 * this deployment already holds (an observer who can read the logs but not the secrets cannot
 * reproduce the key), else undefined.
 */
function telemetryKeyMaterial(env: Env, originAuthorization: string | undefined): string | undefined {
  const key = secretVar("TELEMETRY_KEY", env.TELEMETRY_KEY);
  if (key !== undefined) {
    if (key.length < MIN_TELEMETRY_KEY_LENGTH) {
      throw new ConfigError(`TELEMETRY_KEY must be at least ${MIN_TELEMETRY_KEY_LENGTH} characters`);
    }
    return JSON.stringify(["TELEMETRY_KEY", key]);
  }
  const secrets = [originAuthorization, env.AUTH_TOKEN, env.TENANTS];
  if (secrets.every((v) => v === undefined)) return undefined;
  return JSON.stringify(["derived", ...secrets.map((v) => v ?? null)]);
}

/**
 * 0 is meaningful here: for a platform limit, no calls of that kind at all (a Free plan deployment may
 * spend none on caches); for MAX_LOCAL_ROWS, no limit.
 */
function nonNegativeInt(env: Env, name: StringVar, dflt: number): number {
  const v = env[name];
  if (v === undefined) return dflt;
  const text = v.trim();
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n)) throw new ConfigError(`${name} must be a non-negative integer`);
  return n;
}

/**
 * The origin client's settings: the same for every request and for the coalescer, which asks the
 * origin on their behalf with the Worker's own credentials.
 */
export function originConfigOf(config: Config): OriginConfig {
  return {
    baseUrl: config.originUrl,
    authorization: config.originAuthorization,
    timeoutMs: config.originTimeoutMs,
    derivedFields: config.derivedFields,
  };
}
