/**
 * The result of one attempt to ask the origin, as a plain value: it crosses the Durable Object RPC
 * boundary (where error classes do not survive) and is shared by every coalesced caller.
 */
import { OriginError } from "../core/errors";
import { isValidAnswer } from "../origin/answers";
import type { JsonAnswer, JsonRequest, JsonTransport } from "../origin/client";

export type OriginOutcome =
  /** `kvStored`: the coalescer already wrote the answer to KV, so the caller need not. */
  | { kind: "answer"; status: number; body: string; kvStored?: boolean }
  | { kind: "timeout"; timeoutMs: number }
  | { kind: "unreachable"; message: string }
  /** The transport already named the failure in Loki's terms (a body cut off after the headers). */
  | { kind: "failed"; failure: OriginError["kind"]; message: string };

/** The only endpoints whose answers are small JSON documents worth caching and coalescing. */
const COALESCIBLE_PATHS = new Set(
  [
    "hits",
    "field_names",
    "field_values",
    "stream_field_names",
    "stream_field_values",
    "streams",
    "stats_query_range",
    // Only stats queries (small answers) travel as JSON requests; log rows stream past this layer.
    "query",
  ].map((e) => `/select/logsql/${e}`),
);

export function isCoalescible(path: string): boolean {
  return COALESCIBLE_PATHS.has(path);
}

/**
 * Asks the origin under its own timeout, never a single caller's signal: the answer is shared, so
 * one impatient caller must not cancel it for the others.
 */
export async function attemptOrigin(
  transport: JsonTransport,
  req: JsonRequest,
  timeoutMs: number,
): Promise<OriginOutcome> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    return { kind: "answer", ...(await transport(req, timeout)) };
  } catch (err) {
    if (timeout.aborted) return { kind: "timeout", timeoutMs };
    if (err instanceof OriginError) return { kind: "failed", failure: err.kind, message: err.message };
    return { kind: "unreachable", message: err instanceof Error ? err.message : String(err) };
  }
}

/** Back to the transport contract: an HTTP answer, or the Loki-facing error for no answer. */
export function answerOf(outcome: OriginOutcome): JsonAnswer {
  switch (outcome.kind) {
    case "answer":
      return { status: outcome.status, body: outcome.body };
    case "timeout":
      throw new OriginError("origin-timeout", `origin did not answer within ${outcome.timeoutMs} ms`);
    case "unreachable":
      throw new OriginError("origin-unavailable", `origin unreachable: ${outcome.message}`);
    case "failed":
      throw new OriginError(outcome.failure, outcome.message);
  }
}

/**
 * Only a 200 whose body is what `path` promises may be stored: an entry lives up to a day, so one
 * proxy error page cached as an answer would break every later request for it. An answer its
 * caller keeps in pieces (`noStore`) is never stored here, so it is not checked here either: its
 * caller decodes it once and rejects it then (a bucketed stats answer is megabytes of rows: reading
 * it a second time only to check it would double the CPU a pushed-down metric costs the Worker).
 */
export function isCacheable(
  outcome: OriginOutcome,
  req: Pick<JsonRequest, "path" | "noStore">,
): outcome is Extract<OriginOutcome, { kind: "answer" }> {
  return !req.noStore && outcome.kind === "answer" && outcome.status === 200 && isValidAnswer(req.path, outcome.body);
}
