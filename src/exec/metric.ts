/**
 * Executes a LogQL metric query by the strategy planned for it (plan/metric-strategy.ts): the
 * origin's answer for a query it computes whole, or the metric evaluator's, which asks for the
 * samples of each range aggregation; this module fetches the rows from the origin (selector and
 * line filters pushed down, sub-windows in parallel) and extracts samples as they stream, never
 * holding the rows. The one decision left to run time is the guards': an origin answer or projected
 * samples a guard voids give way to the strategy's fallback, as a value the executor returns.
 */
import type { PipelineStage, RangeAggregationExpr, SampleExpr } from "../logql/ast";
import type { ExtractedSample, MetricResult, Series } from "../engine/types";
import { compileSampleExtractor, type ParserHints } from "../engine/pipeline";
import {
  QueryLimitError,
  SeriesLimit,
  alignToStep,
  evaluateMetric,
  partialSeriesWarning,
  type MetricOptions,
  type MetricQuery,
  type SampleSource,
} from "../engine/metric";
import { astKey } from "../logql/ast-key";
import { planLogRows } from "../plan/parsed-filter";
import type { OriginClient } from "../origin/client";
import type { CachedOrigin } from "../cache/cached-origin";
import type { ScanStats } from "./logs";
import { splitWindows } from "./windows";
import type { LocalRows } from "./local-rows";
import { printExpr } from "../logql/printer";
import { lineLength } from "../engine/literal-row";
import { mergeConcurrent } from "./merge";
import { metricNeedsDerived } from "../plan/derived-use";
import { derivedNames } from "../engine/derived-fields";
import { runBucketPlan } from "./metric-pushdown";
import type { BucketPlan } from "../plan/metric-pushdown";
import type { UnwrapBucketPlan } from "../plan/unwrap-pushdown";
import { restrictToGroups } from "./breakdown-groups";
import { breakdownPart } from "../plan/breakdown";
import { runUnwrapPlan } from "./unwrap-pushdown";
import { runParserPlan } from "./parser-pushdown";
import { countedSeries, mergedSamples, seriesOf, type ReadBackCounts } from "./guarded-rows";
import { readBackQuery, type GuardedRows, type ReadBack } from "../plan/guarded-rows";
import type { ParserBucketPlan } from "../plan/parser-pushdown";
import { runLevelPlan } from "./level-pushdown";
import type { LevelBucketPlan } from "../plan/level-pushdown";
import { runSeriesPlan } from "./series-pushdown";
import { cheaperEquivalent } from "../plan/series-set";
import { compareLabels } from "../engine/metric/labels";
import type { SeriesBucketPlan } from "../plan/series-pushdown";
import { type ProjectionGuard, projectedRangeSamples } from "./unwrap-projection";
import {
  planMetricStrategy,
  planPart,
  type LocalStrategy,
  type MetricStrategy,
  type PartPlan,
} from "../plan/metric-strategy";

export interface MetricQueryOptions {
  splitInterval: bigint;
  maxConcurrency: number;
  maxSeries: number;
  /**
   * Past `maxSeries`, a partial answer with Loki's warning instead of the 400: Loki grants it to
   * Logs Drilldown (`X-Query-Tags: Source=grafana-lokiexplore-app`).
   */
  partialSeries?: boolean;
  /** How many points one evaluation may hold (`MAX_METRIC_POINTS`). */
  maxPoints?: number;
  /** Let VictoriaLogs compute the subtrees it computes exactly (default on). */
  pushdown?: boolean;
  /** The rows the request may evaluate from whole lines (MAX_LOCAL_ROWS); unbounded without it. */
  localRows?: LocalRows;
}

export async function executeMetricQuery(
  client: CachedOrigin,
  expr: SampleExpr,
  q: MetricQuery,
  opts: MetricQueryOptions,
): Promise<{ result: MetricResult; stats: ScanStats }> {
  // Without push-down the query is evaluated as written: the reference the push-downs are tested against.
  const evaluated = opts.pushdown === true ? cheaperEquivalent(expr) : expr;
  const run = new MetricRun(client, evaluated, q, opts);
  const strategy = planMetricStrategy(evaluated, run.aligned, {
    pushdown: opts.pushdown === true,
    derived: client.derivedFields,
  });
  const result = (await run.breakdown()) ?? (await run.execute(strategy));
  // The origin computed only some of the answer's groups: the answer is partial, as Loki says it.
  if (run.cutGroups && !result.warnings) result.warnings = [partialSeriesWarning(opts.maxSeries)];
  return { result, stats: run.stats };
}

/** What a Worker evaluation gave: an answer, or a guard's word that its samples are void. */
type Attempt =
  { outcome: "answered"; result: MetricResult } | { outcome: "declined"; reason: string; fallback: LocalStrategy };

/** What the origin made of a subtree: its series, or why they would not be Loki's. */
type PartOutcome =
  | { outcome: "answered"; series: Series[] }
  | {
      outcome: "declined";
      reason: "guarded" | "incomplete" | "tied" | "parser-guarded" | "levels-unsettled" | "series-declined";
    };

/** A Worker evaluation's strategy (see plan/metric-strategy.ts). */
type WorkerStrategy = Extract<MetricStrategy, { kind: "projected" | "local" }>;

/** One metric query's execution: its strategy, then what the origin's answers decide. */
class MetricRun {
  readonly stats: ScanStats = { rowsScanned: 0, bytesScanned: 0, subqueries: 0 };
  /** Whether a pushed-down answer holds only `maxSeries` of its groups (see restrictToGroups). */
  cutGroups = false;
  /**
   * Whether a parser push-down's guard found a row Loki may read differently: the query's other
   * chunks hold the same kind of lines, so they are not asked again.
   */
  private parserGuarded = false;
  /** Whether a level push-down met a group its inputs do not settle: the other chunks are alike. */
  private levelsUnsettled = false;
  /** Whether a series push-down declined (a level not settled, too many groups): the other chunks are alike. */
  private seriesDeclined = false;
  /** The query's grid as the evaluator aligns it. */
  readonly aligned: MetricQuery;
  private readonly strict: MetricOptions;
  private readonly asked: MetricOptions;
  /** Rows get the derived fields only when the answer can depend on them. */
  private readonly derive: boolean;

  constructor(
    private readonly client: CachedOrigin,
    private readonly expr: SampleExpr,
    private readonly q: MetricQuery,
    private readonly opts: MetricQueryOptions,
  ) {
    this.aligned = alignToStep(q);
    this.strict = { maxSeries: opts.maxSeries, maxPoints: opts.maxPoints };
    this.asked = { ...this.strict, partialSeries: opts.partialSeries === true };
    this.derive = metricNeedsDerived(expr, derivedNames(client.derivedFields));
  }

  /**
   * A Logs Drilldown breakdown past the series limit, computed from `maxSeries` of its groups only
   * (plan/breakdown.ts, exec/breakdown-groups.ts), so that its cost does not grow with the number
   * of groups. Undefined when the answer has no more groups than that, when the origin cannot
   * compute the part exactly, or when its guard found a row Loki may read differently: the query
   * then runs by its strategy.
   */
  async breakdown(): Promise<MetricResult | undefined> {
    const { client, opts, stats, aligned } = this;
    if (!opts.partialSeries || opts.pushdown !== true) return undefined;
    const part = breakdownPart(this.expr);
    const plan = planPart(part, aligned, client.derivedFields);
    // A series push-down's groups are not its answer's series: nothing to restrict them by.
    if (!plan || plan.kind === "series") return undefined;
    const restriction = await restrictToGroups<Exclude<PartPlan, { kind: "series" }>["plan"]>(
      client,
      plan.plan,
      opts.maxSeries,
      stats,
    );
    // Without a way to count the guard's rows apart, the strategy's own push-down would find them too.
    if (restriction.kind === "guarded" && plan.kind === "parsed" && !plan.plan.guarded) this.parserGuarded = true;
    if (restriction.kind !== "cut") return undefined;
    const outcome = await this.runPart({ kind: plan.kind, plan: runsAsCut(restriction.plan) } as PartPlan, aligned);
    if (outcome.outcome !== "answered") return undefined;
    const source: SampleSource = {
      samples: (agg, from, to, hints) => this.lineSamples(agg, from, to, hints),
      pushdown: (sub, grid) => Promise.resolve(sub === part && sameGrid(grid, aligned) ? outcome.series : undefined),
    };
    const result = await evaluateMetric(this.expr, this.q, source, this.asked);
    // A kept group may have no sample on the grid (its rows between windows when the step is
    // longer than the range): Loki's partial answer would still hold the limit's series.
    const size = result.type === "matrix" ? result.series.length : result.type === "vector" ? result.samples.length : 0;
    if (size < opts.maxSeries) return undefined;
    this.cutGroups = true;
    return result;
  }

  async execute(strategy: MetricStrategy): Promise<MetricResult> {
    switch (strategy.kind) {
      case "pushed":
        return this.answeredBy(await this.runBuckets(strategy.plan, this.aligned));
      case "guarded": {
        const outcome = await this.runGuarded(strategy.plan, this.aligned);
        return outcome.outcome === "answered" ? this.answeredBy(outcome.series) : this.execute(strategy.fallback);
      }
      case "projected":
      case "local":
        return this.evaluateInWorker(strategy);
    }
  }

  /** The answer whose series the origin computed whole: the evaluator shapes it as Loki does. */
  private answeredBy(series: Series[]): Promise<MetricResult> {
    const source: SampleSource = {
      samples: (agg, from, to, hints) => this.lineSamples(agg, from, to, hints),
      pushdown: (sub) => Promise.resolve(sub === this.expr ? series : undefined),
    };
    return evaluateMetric(this.expr, this.q, source, this.asked);
  }

  private async evaluateInWorker(strategy: WorkerStrategy): Promise<MetricResult> {
    // The strategy in force: a projection a guard refused gives way to its fallback for the rest.
    let current = strategy;
    const evaluate = async (sub: MetricQuery, limits: MetricOptions) => {
      // What the origin made of each part on this grid: an evaluation run again by the fallback
      // asks it nothing twice.
      const parts = new Map<SampleExpr, Promise<PartOutcome>>();
      for (;;) {
        const attempt = await this.attempt(current, sub, limits, parts, (next) => (current = next));
        if (attempt.outcome === "answered") return attempt.result;
        current = attempt.fallback;
      }
    };
    if (strategy.seriesCache) {
      const limit = new SeriesLimit(this.opts.maxSeries, this.opts.partialSeries === true);
      try {
        // Chunks are evaluated whole (strict limit) so that none is stored cut; the join may cut.
        const series = await this.client.metricChunks.matrix(astKey(this.expr), this.aligned, limit, async (sub) => {
          const r = await evaluate(sub, this.strict);
          return r.type === "matrix" ? r.series : [];
        });
        if (series) {
          const warnings = limit.reached ? { warnings: [partialSeriesWarning(limit.max)] } : {};
          return { type: "matrix", series, ...warnings };
        }
      } catch (err) {
        // A chunk past the limit: a partial answer is evaluated once more, cut as it is read, and
        // not stored (a chunk cut to some series would be wrong for every other request).
        if (!(err instanceof QueryLimitError) || !this.opts.partialSeries) throw err;
      }
    }
    return evaluate(this.q, this.asked);
  }

  /**
   * One evaluation by the Worker. A projected one ends "declined" when a guard found a row: what
   * its projected samples gave, answer or error alike, is then not Loki's. A part the origin
   * declines for such rows hands the projection's work to `giveUp` from then on.
   */
  private async attempt(
    strategy: WorkerStrategy,
    sub: MetricQuery,
    limits: MetricOptions,
    parts: Map<SampleExpr, Promise<PartOutcome>>,
    giveUp: (fallback: WorkerStrategy) => void,
  ): Promise<Attempt> {
    let projections = strategy.kind === "projected" ? strategy.projections : undefined;
    const guards: ProjectionGuard[] = [];
    const source: SampleSource = {
      samples: (agg, from, to, hints) => {
        const projection = projections?.get(agg);
        if (!projection) return this.lineSamples(agg, from, to, hints);
        const { samples, guard } = projectedRangeSamples(this.client, projection, from, to, this.opts, this.stats);
        guards.push(guard);
        return samples;
      },
      pushdown: async (part, grid) => {
        const plan = !strategy.pushParts
          ? undefined
          : part === this.expr && sameGrid(grid, this.aligned)
            ? strategy.whole
            : planPart(part, grid, this.client.derivedFields);
        if (!plan) return undefined;
        let asked = parts.get(part);
        if (!asked) {
          parts.set(part, (asked = this.runPart(plan, grid).then(inLabelOrder)));
          // A failure is not an answer to keep: the next evaluation asks again.
          asked.catch(() => parts.delete(part));
        }
        const outcome = await asked;
        if (outcome.outcome === "answered") return outcome.series;
        // The rows that made the origin's guard count would make the projection's guard refuse too.
        if (outcome.reason === "guarded" && strategy.kind === "projected") {
          projections = undefined;
          giveUp(strategy.fallback);
        }
        return undefined;
      },
    };
    const evaluated = await evaluateMetric(this.expr, sub, source, limits).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    if (!("error" in evaluated)) await Promise.all(guards.map((g) => g.found));
    if (strategy.kind === "projected" && guards.some((g) => g.refused)) {
      return { outcome: "declined", reason: "a row may read differently in Loki", fallback: strategy.fallback };
    }
    if ("error" in evaluated) throw evaluated.error;
    return { outcome: "answered", result: evaluated.result };
  }

  /** A subtree the origin computes on `grid`, or its reason to decline. */
  private async runPart(plan: PartPlan, grid: MetricQuery): Promise<PartOutcome> {
    switch (plan.kind) {
      case "pushed":
        return { outcome: "answered", series: await this.runBuckets(plan.plan, grid) };
      case "guarded":
        return this.runGuarded(plan.plan, grid);
      case "parsed":
        return this.runParsed(plan.plan, grid);
      case "levels":
        return this.runLevels(plan.plan, grid);
      case "series":
        return this.runSeries(plan.plan, grid);
    }
  }

  private runBuckets(plan: BucketPlan, grid: MetricQuery): Promise<Series[]> {
    return runBucketPlan(this.client, plan, grid, this.stats, this.opts.maxPoints);
  }

  /**
   * The origin's answer, unless its same-request guard count found rows Loki may read differently
   * that the plan cannot aggregate apart: where it can, the Worker aggregates those rows and merges
   * them in.
   */
  private async runGuarded(plan: UnwrapBucketPlan, grid: MetricQuery): Promise<PartOutcome> {
    const outcome = await runUnwrapPlan(this.client, plan, grid, this.stats, this.opts.maxPoints);
    if (typeof outcome === "string") return { outcome: "declined", reason: outcome };
    if (Array.isArray(outcome)) return { outcome: "answered", series: outcome };
    const { guarded, guardedRows } = outcome;
    // An average's sums and counts come from the same samples: the rows are read once.
    const read = new Map<string, readonly (readonly ExtractedSample[])[]>();
    const values = await this.guardedTotals(guarded, grid, guardedRows, read);
    const counts =
      guarded.counts && (await this.guardedTotals({ ...guarded, expr: guarded.counts }, grid, guardedRows, read));
    if (!values || (guarded.counts && !counts)) return { outcome: "declined", reason: "guarded" };
    const merged = mergedSamples(
      guarded.fn,
      { values: outcome.partial, ...(outcome.counts && { counts: outcome.counts }) },
      { values, ...(counts && { counts }) },
      outcome.seconds,
    );
    return { outcome: "answered", series: merged };
  }

  /**
   * A counting metric over a parser: the origin's counts, plus the Worker's of the rows its
   * same-request guard found (rows Loki may read differently), unless the plan cannot tell those
   * apart.
   */
  private async runParsed(plan: ParserBucketPlan, grid: MetricQuery): Promise<PartOutcome> {
    if (this.parserGuarded) return { outcome: "declined", reason: "parser-guarded" };
    const counts = await runParserPlan(this.client, plan, grid, this.stats, this.opts.maxPoints);
    if (counts !== "guarded") {
      const guarded =
        counts.guardedRows > 0 && plan.guarded ? await this.guardedTotals(plan.guarded, grid, counts.guardedRows) : [];
      if (guarded) return { outcome: "answered", series: countedSeries(counts, grid, plan, guarded) };
    }
    this.parserGuarded = true;
    return { outcome: "declined", reason: "parser-guarded" };
  }

  /**
   * The series of `guarded.expr` over the `rows` rows of `guarded.logsql` only, evaluated by the
   * Worker; undefined when they alone pass the series limit of a request that may be answered in
   * part (the whole evaluation then cuts the answer as Loki does).
   */
  private async guardedTotals(
    guarded: GuardedRows,
    grid: MetricQuery,
    rows: number,
    /** Samples read by an earlier evaluation of the same rows, by window, to replay instead of reading. */
    read?: Map<string, readonly (readonly ExtractedSample[])[]>,
  ): Promise<Series[] | undefined> {
    const source: SampleSource = {
      samples: (agg, from, to, hints) => {
        const key = `${from}:${to}`;
        const known = read?.get(key);
        if (known) return replayed(known);
        const samples = rangeSamples(this.client, agg, from, to, this.opts, this.stats, this.derive, hints, {
          logsql: guarded.logsql,
          local: agg.range.selector.pipeline,
          count: rows,
        });
        return read ? recorded(samples, (all) => read.set(key, all)) : samples;
      },
    };
    try {
      return seriesOf(await evaluateMetric(guarded.expr, grid, source, this.strict));
    } catch (err) {
      if (err instanceof QueryLimitError && this.opts.partialSeries) return undefined;
      throw err;
    }
  }

  /** A count by `detected_level` from groups of the level rules' inputs, unless one does not settle it. */
  private async runLevels(plan: LevelBucketPlan, grid: MetricQuery): Promise<PartOutcome> {
    if (this.levelsUnsettled) return { outcome: "declined", reason: "levels-unsettled" };
    const counts = await runLevelPlan(this.client, plan, grid, this.stats, this.opts.maxPoints);
    if (counts !== "declined") {
      const series = await this.withRowsReadBack(counts, grid, plan, plan.readBack);
      if (series) return { outcome: "answered", series };
    }
    this.levelsUnsettled = true;
    return { outcome: "declined", reason: "levels-unsettled" };
  }

  /** A counting metric's series from groups of rows sharing their labels' inputs, unless the groups decline it. */
  private async runSeries(plan: SeriesBucketPlan, grid: MetricQuery): Promise<PartOutcome> {
    if (this.seriesDeclined) return { outcome: "declined", reason: "series-declined" };
    const counts = await runSeriesPlan(this.client, plan, grid, this.stats, this.opts.maxPoints);
    if (counts !== "declined") {
      const window = { ...plan.buckets, perSeconds: plan.perSeconds };
      const series = await this.withRowsReadBack(counts, grid, window, plan.readBack);
      if (series) return { outcome: "answered", series };
    }
    this.seriesDeclined = true;
    return { outcome: "declined", reason: "series-declined" };
  }

  /**
   * The series of counts from groups, with the rows `counts.filter` picks out of `readBack`'s
   * counted by the Worker and added in; undefined where those rows alone pass the series limit of
   * a request answered in part.
   */
  private async withRowsReadBack(
    counts: ReadBackCounts,
    grid: MetricQuery,
    plan: Parameters<typeof countedSeries>[2],
    { rows, cleanup, expr }: ReadBack,
  ): Promise<Series[] | undefined> {
    if (counts.guardedRows === 0) return countedSeries(counts, grid, plan);
    const logsql = readBackQuery(rows, counts.filter, cleanup);
    const read = await this.guardedTotals({ logsql, expr }, grid, counts.guardedRows);
    return read && countedSeries(counts, grid, plan, read);
  }

  private lineSamples(agg: RangeAggregationExpr, from: bigint, to: bigint, hints?: ParserHints) {
    return rangeSamples(this.client, agg, from, to, this.opts, this.stats, this.derive, hints);
  }
}

async function* replayed(batches: readonly (readonly ExtractedSample[])[]): AsyncGenerator<readonly ExtractedSample[]> {
  yield* batches;
}

/** `samples` passed through, and kept: handed to `done` once read to the end (a cut read is not kept). */
async function* recorded(
  samples: AsyncIterable<readonly ExtractedSample[]>,
  done: (all: readonly (readonly ExtractedSample[])[]) => void,
): AsyncGenerator<readonly ExtractedSample[]> {
  const all: (readonly ExtractedSample[])[] = [];
  for await (const batch of samples) {
    all.push(batch);
    yield batch;
  }
  done(all);
}

function sameGrid(a: MetricQuery, b: MetricQuery): boolean {
  return a.start === b.start && a.end === b.end && a.step === b.step && a.instant === b.instant;
}

/**
 * Rows of a range aggregation read by other LogsQL than its selector's (GuardedRows): `local` is
 * the pipeline the Worker runs over them, and `count` how many the origin counted.
 */
export interface CountedRows {
  logsql: string;
  local: PipelineStage[];
  count: number;
}

/**
 * Samples with ts in (from, to] read from whole lines: the origin window is [from + 1ns, to + 1ns).
 * The rows are the selector's (its filters the origin applies), or `counted`'s.
 */
export function rangeSamples(
  client: OriginClient,
  agg: RangeAggregationExpr,
  from: bigint,
  to: bigint,
  opts: MetricQueryOptions,
  stats: ScanStats,
  derive: boolean,
  hints?: ParserHints,
  counted?: CountedRows,
): AsyncIterable<readonly ExtractedSample[]> {
  const range = { start: from + 1n, end: to + 1n };
  const plan = counted ?? planLogRows(agg.range.selector, { prefilter: opts.pushdown, derived: client.derivedFields });
  const extractor = compileSampleExtractor(
    { ...agg.range, selector: { ...agg.range.selector, pipeline: plan.local } },
    agg.op,
    agg.grouping && !agg.grouping.without ? agg.grouping.labels : undefined,
    hints,
  );
  const local = opts.localRows;
  const shape = local ? printExpr(agg) : "";
  const read = () => {
    // Within the request's share of origin requests: a wider window gives the same samples.
    const windows = splitWindows(range, opts.splitInterval, false, client.budget.windowShare());
    const perWindow = windows.map(
      (w) =>
        async function* (signal: AbortSignal): AsyncGenerator<ExtractedSample[]> {
          stats.subqueries++;
          for await (const batch of client.withSignal(signal).logRows(plan.logsql, w, { derive })) {
            local?.count(batch.length, shape);
            const samples: ExtractedSample[] = [];
            for (const row of batch) {
              stats.rowsScanned++;
              stats.bytesScanned += lineLength(row);
              const sample = extractor.process(row);
              if (sample) samples.push(sample);
            }
            if (samples.length > 0) yield samples;
          }
        },
    );
    return mergeConcurrent(perWindow, opts.maxConcurrency);
  };
  if (!local) return read();
  // Every row of the range is read: the origin counts them first, and too many are refused unread.
  return (async function* () {
    if (counted) local.plan(counted.count, shape);
    else await local.admit(client, plan.logsql, range, shape);
    yield* read();
  })();
}

/**
 * A plan restricted to some groups, to be run as restricted: an unwrap plan's shortcut to its plan
 * grouped by Loki's values (exec/unwrap-pushdown.ts) would leave the restriction, which names the
 * first plan's groups, behind.
 */
function runsAsCut<P extends object>(plan: P): P {
  // The guard's rows counted apart would add groups the restriction left out: a guard row found
  // since the groups were asked declines the cut instead.
  const { streams: _streams, guarded: _guarded, ...rest } = plan as P & { streams?: unknown; guarded?: unknown };
  return rest as P;
}

/**
 * A part's series in label order. The origin's groups come in no fixed order (chunks are read in
 * parallel), and where values tie the evaluator keeps the earlier series (`topk`'s choice among
 * equal values, which series a limit meets first): in one order, the same data gives the same
 * answer on every request, and the cache never holds one of several.
 */
function inLabelOrder(outcome: PartOutcome): PartOutcome {
  if (outcome.outcome === "answered") outcome.series.sort((a, b) => compareLabels(a.labels, b.labels));
  return outcome;
}
