/** The status each kind of failure is answered with: Loki's, so Grafana knows whether to retry. */
import { describe, expect, it } from "vitest";
import {
  BadRequestError,
  ClientCanceledError,
  ForbiddenError,
  LimitExceededError,
  NotConfiguredError,
  OriginError,
  TooManyOutstandingRequests,
  UnauthenticatedError,
  type RequestError,
} from "../../../src/core/errors";
import { MetricEvalError, QueryLimitError } from "../../../src/engine/metric/errors";
import { SubrequestBudgetError } from "../../../src/origin/subrequest-budget";
import { errorResponse, statusOf } from "../../../src/http/errors";

describe("statusOf", () => {
  it("answers each kind of failure with Loki's status", () => {
    const cases: [RequestError, number][] = [
      [new BadRequestError("x"), 400],
      [new LimitExceededError("x"), 400],
      [new QueryLimitError(500), 400],
      [new SubrequestBudgetError(1000), 400],
      [new MetricEvalError("x", "bad-request"), 400],
      [new UnauthenticatedError("x"), 401],
      [new ForbiddenError("x"), 403],
      [new TooManyOutstandingRequests(), 429],
      [new ClientCanceledError(), 499],
      [new MetricEvalError("x"), 500],
      [new OriginError("origin-unavailable", "x"), 502],
      [new NotConfiguredError("x"), 503],
      [new OriginError("origin-timeout", "x"), 504],
    ];
    expect(cases.map(([err]) => [err.name, statusOf(err)])).toEqual(cases.map(([err, status]) => [err.name, status]));
  });

  it("keeps the fixed messages Loki sends", () => {
    expect(new TooManyOutstandingRequests().message).toBe("too many outstanding requests");
    expect(new ClientCanceledError().message).toBe("client canceled the request");
  });
});

describe("errorResponse", () => {
  it("is a bare text/plain body with the given status", async () => {
    const res = errorResponse(400, "parse error");
    expect(res.status).toBe(400);
    expect(res.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(await res.text()).toBe("parse error");
  });
});
