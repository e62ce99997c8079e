/**
 * Failures as HTTP answers. Loki answers every failure with a bare text/plain message and the
 * status that tells Grafana whether retrying can help; the layers below say what went wrong
 * (src/core/errors.ts) and this is the one place that picks the status for it.
 */
import type { FailureKind, RequestError } from "../core/errors";

const STATUS: Record<FailureKind, number> = {
  "bad-request": 400,
  // Loki reports its limits (max_query_series, byte limits) as 400s, not 413 or 429.
  "limit-exceeded": 400,
  unauthenticated: 401,
  forbidden: 403,
  "too-many-outstanding": 429,
  // The status nginx and Loki log for a client that hung up; the client never reads it.
  "client-canceled": 499,
  "evaluation-failed": 500,
  "origin-unavailable": 502,
  "not-configured": 503,
  "origin-timeout": 504,
};

export function statusOf(err: RequestError): number {
  return STATUS[err.kind];
}

export function errorResponse(status: number, message: string): Response {
  return new Response(message, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
  });
}
