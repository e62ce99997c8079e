/**
 * Failures the client is told about, by what went wrong. Every layer throws these; only the HTTP
 * layer (src/http/errors.ts) turns a kind into a status, so the engine, the planner and the origin
 * client say what happened without knowing how a response is made. The message is the answer's
 * body: Loki's wording, kept exactly, because Grafana and scripts match on it.
 */

export type FailureKind =
  /** The request itself is wrong: a parameter, the query, a construct that is not supported. */
  | "bad-request"
  /** The request asks for more than a limit allows (series, points, origin requests, ...). */
  | "limit-exceeded"
  /** No credential, or one that names nothing. */
  | "unauthenticated"
  /** A valid credential that may not read what was asked. */
  | "forbidden"
  /** The isolate cannot take the request on now; retrying later can succeed. */
  | "too-many-outstanding"
  /** The client went away before the answer was complete. */
  | "client-canceled"
  /** The evaluation met a case it cannot answer (Loki's plain Go errors). */
  | "evaluation-failed"
  /** The origin gave no usable answer: unreachable, refused, or an answer that is not what it promised. */
  | "origin-unavailable"
  /** The origin did not answer in time. */
  | "origin-timeout"
  /** The deployment lacks what this request needs (a binding, a secret). */
  | "not-configured";

export abstract class RequestError extends Error {
  abstract readonly kind: FailureKind;
}

export class BadRequestError extends RequestError {
  readonly kind = "bad-request";
  constructor(message: string) {
    super(message);
    this.name = "BadRequestError";
  }
}

export class LimitExceededError extends RequestError {
  readonly kind = "limit-exceeded";
  constructor(message: string) {
    super(message);
    this.name = "LimitExceededError";
  }
}

export class UnauthenticatedError extends RequestError {
  readonly kind = "unauthenticated";
  constructor(message: string) {
    super(message);
    this.name = "UnauthenticatedError";
  }
}

export class ForbiddenError extends RequestError {
  readonly kind = "forbidden";
  constructor(message: string) {
    super(message);
    this.name = "ForbiddenError";
  }
}

/** Loki's answer when its queriers are saturated, and ours when an isolate's memory is spoken for. */
export class TooManyOutstandingRequests extends RequestError {
  readonly kind = "too-many-outstanding";
  constructor() {
    super("too many outstanding requests");
    this.name = "TooManyOutstandingRequests";
  }
}

export class ClientCanceledError extends RequestError {
  readonly kind = "client-canceled";
  constructor() {
    super("client canceled the request");
    this.name = "ClientCanceledError";
  }
}

/** The message names the failure, never the origin's credentials or its own error text. */
export class OriginError extends RequestError {
  constructor(
    readonly kind: "origin-unavailable" | "origin-timeout",
    message: string,
    /** The origin's HTTP status, where it answered with one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = "OriginError";
  }
}

export class NotConfiguredError extends RequestError {
  readonly kind = "not-configured";
  constructor(message: string) {
    super(message);
    this.name = "NotConfiguredError";
  }
}
