/**
 * Per-request telemetry: one structured JSON log line per request (Workers Logs indexes its fields),
 * a `Server-Timing` header with the same phases, and, when an Analytics Engine dataset is bound, one
 * data point. What a request sent is never logged: the tenant and the query appear only as digests,
 * so lines can be grouped by them without revealing either.
 */
import { BoundedMap } from "../util/bounded-map";
import type { CacheStats } from "../cache/stats";

export interface OriginMeter {
  /** Called once per origin request, when its answer (or failure) arrives. */
  (elapsedMs: number): void;
}

export class RequestTelemetry {
  readonly startedAt = performance.now();
  private readonly phases = new Map<string, number>();
  originRequests = 0;
  originMs = 0;
  rowsScanned = 0;
  bytesScanned = 0;

  /** For the origin client: counts a request and the time until its answer. */
  readonly meter: OriginMeter = (elapsedMs) => {
    this.originRequests++;
    this.originMs += elapsedMs;
  };

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
  record(f: { route: string; method: string; status: number; tenant?: string; query?: string; cache?: CacheStats }) {
    const totals = f.cache?.totals();
    return {
      message: "request",
      route: f.route,
      method: f.method,
      status: f.status,
      durationMs: Number(ms(performance.now() - this.startedAt)),
      phasesMs: Object.fromEntries([...this.phases].map(([k, v]) => [k, Number(ms(v))])),
      origin: { requests: this.originRequests, ms: Number(ms(this.originMs)) },
      cache: totals ?? { hits: 0, misses: 0, stored: 0 },
      scanned: { rows: this.rowsScanned, bytes: this.bytesScanned },
      tenant: f.tenant,
      query: f.query,
    };
  }
}

/**
 * Digests already computed, by their input: every request logs two (tenant, tenant + query) and a
 * dashboard sends the same ones again and again. The value is a function of the key alone.
 */
const digests = new BoundedMap<string>(4096, 2 * 1024 * 1024, () => 64);

/** A short, stable digest for grouping log lines: 16 hex characters of SHA-256. */
export async function digest(value: string): Promise<string> {
  const known = digests.get(value);
  if (known !== undefined) return known;
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)));
  let hex = "";
  for (let i = 0; i < 8; i++) hex += bytes[i]!.toString(16).padStart(2, "0");
  digests.set(value, hex);
  return hex;
}

function ms(v: number): string {
  return v.toFixed(1);
}
