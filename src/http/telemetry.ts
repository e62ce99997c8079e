/**
 * Per-request telemetry: one structured JSON log line per request (Workers Logs indexes its fields),
 * a `Server-Timing` header with the same phases, and, when an Analytics Engine dataset is bound, one
 * data point. What a request sent is never logged: the tenant and the query appear only as keyed
 * digests, so lines can be grouped by them without revealing or confirming either.
 */
import { BoundedMap } from "../util/bounded-map";
import type { CacheStats } from "../cache/stats";
import type { OriginMeter } from "../origin/client";

export class RequestTelemetry {
  readonly startedAt = performance.now();
  private readonly phases = new Map<string, number>();
  originRequests = 0;
  originMs = 0;
  /** Bytes of origin answers this request caused to be read (the coalescer's included). */
  originBytes = 0;
  rowsScanned = 0;
  bytesScanned = 0;

  /** For the origin client: counts a request, the time until its answer and the answer's size. */
  readonly meter: OriginMeter = Object.assign(
    (elapsedMs: number) => {
      this.originRequests++;
      this.originMs += elapsedMs;
    },
    {
      received: (bytes: number) => {
        this.originBytes += bytes;
      },
    },
  );

  /** Records the time since the request started under `name` (e.g. "exec" once the answer is computed). */
  mark(name: string): void {
    this.phases.set(name, performance.now() - this.startedAt);
  }

  scanned(rows: number, bytes: number): void {
    this.rowsScanned = rows;
    this.bytesScanned = bytes;
  }

  /** `Server-Timing`: total, origin (summed over requests), and the phases marked. */
  serverTiming(cache?: CacheStats): string {
    const parts = [`total;dur=${ms(performance.now() - this.startedAt)}`];
    parts.push(`origin;dur=${ms(this.originMs)};desc="${this.originRequests} requests"`);
    for (const [name, at] of this.phases) parts.push(`${name};dur=${ms(at)}`);
    if (cache) {
      const t = cache.totals();
      parts.push(`cache;desc="hits=${t.hits} misses=${t.misses} stored=${t.stored}"`);
    }
    return parts.join(", ");
  }

  /** The log line's fields; `tenant` and `query` are digests, never the values. */
  record(f: {
    route: string;
    method: string;
    status: number;
    tenant?: string;
    query?: string;
    cache?: CacheStats;
    /** The Cache-Status outcome (http/cache-status.ts): hit, partial, miss, bypass, none. */
    cacheOutcome?: string;
  }) {
    const totals = f.cache?.totals();
    return {
      message: "request",
      route: f.route,
      method: f.method,
      status: f.status,
      durationMs: Number(ms(performance.now() - this.startedAt)),
      phasesMs: Object.fromEntries([...this.phases].map(([k, v]) => [k, Number(ms(v))])),
      origin: { requests: this.originRequests, ms: Number(ms(this.originMs)), bytes: this.originBytes },
      cache: { outcome: f.cacheOutcome ?? "none", ...(totals ?? { hits: 0, misses: 0, stored: 0, bytesRead: 0 }) },
      scanned: { rows: this.rowsScanned, bytes: this.bytesScanned },
      tenant: f.tenant,
      query: f.query,
    };
  }
}

/**
 * The key of the logged digests. A plain hash of a tenant id or a query can be confirmed by anyone
 * who guesses the input ("0:0", a common query), so digests are HMAC-SHA-256 under a key only the
 * deployment holds: derived from `material` (TELEMETRY_KEY or the deployment's other secrets, see
 * config.ts), or, when no secret is configured at all, drawn at random once per isolate (its
 * digests then group one isolate's lines only). One key per configuration object.
 */
const keys = new WeakMap<object, Promise<CryptoKey>>();

function keyFor(owner: object, material: string | undefined): Promise<CryptoKey> {
  let key = keys.get(owner);
  if (key === undefined) {
    // Random values may not be drawn at global scope in Workers: the first request draws them.
    const raw = material === undefined ? crypto.getRandomValues(new Uint8Array(32)) : encoder.encode(material);
    key = crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(owner, key);
  }
  return key;
}

const encoder = new TextEncoder();

/**
 * Digests already computed, by key owner and input: every request logs two (tenant, tenant +
 * query) and a dashboard sends the same ones again and again.
 */
const digests = new WeakMap<object, BoundedMap<string>>();

/**
 * A short, stable digest for grouping log lines: 16 hex characters of HMAC-SHA-256 under the key of
 * `owner` (the configuration; `material` as in {@link keyFor}).
 */
export async function digest(owner: object, material: string | undefined, value: string): Promise<string> {
  let known = digests.get(owner);
  if (known === undefined) digests.set(owner, (known = new BoundedMap<string>(4096, 2 * 1024 * 1024, () => 64)));
  const hit = known.get(value);
  if (hit !== undefined) return hit;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await keyFor(owner, material), encoder.encode(value)));
  let hex = "";
  for (let i = 0; i < 8; i++) hex += mac[i]!.toString(16).padStart(2, "0");
  known.set(value, hex);
  return hex;
}

function ms(v: number): string {
  return v.toFixed(1);
}
