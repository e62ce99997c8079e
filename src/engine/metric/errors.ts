/**
 * Failures of metric evaluation, each of the kind Loki answers it as (a limit, a bad query, an
 * evaluation it cannot do), so the HTTP layer can answer them without knowing the engine.
 */
import { BadRequestError, LimitExceededError, RequestError } from "../../core/errors";
import type { Labels } from "../types";
import { formatLabels } from "./labels";

/** Loki's `max_query_series` default; the compat corpus was recorded with it. */
export const DEFAULT_MAX_SERIES = 500;

/** More distinct series in a result than `max_query_series` (Loki: 400, `ErrLimit`). */
export class QueryLimitError extends LimitExceededError {
  constructor(readonly limit: number) {
    super(
      `maximum number of series (${limit}) reached for a single query; consider reducing query cardinality by adding more specific stream selectors, reducing the time range, or aggregating results with functions like sum(), count() or topk()`,
    );
    this.name = "QueryLimitError";
  }
}

/** How many points a metric evaluation may hold by default (see PointBudget). */
export const DEFAULT_MAX_POINTS = 500_000;

/**
 * More points held in memory than the `MAX_METRIC_POINTS` budget allows (400, worded like Loki's
 * limit errors). Loki has no such limit: it evaluates step by step, while the Worker folds rows
 * into every window as they stream and must bound what that holds in its isolate's 128 MB.
 */
export class PointLimitError extends LimitExceededError {
  constructor(readonly limit: number) {
    super(
      `maximum number of points held in memory (${limit}) reached for a single query; consider reducing query cardinality by adding more specific stream selectors or grouping by fewer labels, reducing the time range, or increasing the step (the limit is the Worker's MAX_METRIC_POINTS)`,
    );
    this.name = "PointLimitError";
  }
}

/**
 * A sample still carrying `__error__` reached a metric (Loki: 400, `ErrPipeline`). Loki refuses to
 * aggregate such series silently; the user must filter them with `| __error__=""`.
 */
export class PipelineError extends BadRequestError {
  constructor(readonly series: Labels) {
    const errorType = series.__error__ ?? "";
    super(
      `pipeline error: '${errorType}' for series: '${formatLabels(series)}'.\n` +
        `Use a label filter to intentionally skip this error. (e.g | __error__!="${errorType}").\n` +
        `To skip all potential errors you can match empty errors.(e.g __error__="")\n` +
        `The label filter can also be specified after unwrap. (e.g | unwrap latency | __error__="" )\n`,
    );
    this.name = "PipelineError";
  }
}

/**
 * Evaluation failures Loki reports from plain Go errors (many-to-many matching, approx_topk on a
 * range query, ...). Loki has no dedicated status for them; they surface as evaluation failures (500) unless noted.
 */
export class MetricEvalError extends RequestError {
  constructor(
    message: string,
    readonly kind: "evaluation-failed" | "bad-request" = "evaluation-failed",
  ) {
    super(message);
    this.name = "MetricEvalError";
  }
}

/** Label text all series of one range aggregation may hold, in UTF-16 units (as the log-query text budget). */
export const SERIES_LABEL_TEXT_BUDGET = 16 * 1024 * 1024;

/**
 * The series of a range aggregation would hold more label text than SERIES_LABEL_TEXT_BUDGET: a
 * `label_format` can give every sample a label of 1 Mi characters, and the series limit counts
 * series, not their size. Loki reports its byte limits as 400s.
 */
export class SeriesLabelsLimitError extends LimitExceededError {
  constructor() {
    super(
      `the query's series would hold more than ${SERIES_LABEL_TEXT_BUDGET / (1024 * 1024)}Mi characters of labels; reduce the size of the labels or the number of series`,
    );
    this.name = "SeriesLabelsLimitError";
  }
}
