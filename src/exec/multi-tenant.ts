/**
 * Multi-tenant queries (`X-Scope-OrgID: a|b`), answered as Loki's multi-tenant querier answers them:
 * each tenant is read on its own (its own origin requests, its own cache entries), every stream and
 * series it yields gets a `__tenant_id__` label with the tenant's name, and the results merge above
 * that, so a metric aggregation sums across tenants unless it groups by `__tenant_id__`.
 *
 * `__tenant_id__` matchers in a stream selector choose the tenants read and are removed from the
 * selector each tenant runs (no stored stream has that label). A stream that has a label of that
 * name already keeps its value as `original___tenant_id__`, as in Loki.
 *
 * The origin cannot label its aggregates with a tenant, but the label is added after the pipeline,
 * so a metric subtree whose tenants' answers make the whole (tenantParts) is each tenant's own
 * single-tenant query, run with its push-downs and its cache entries, then labelled or merged. What
 * that cannot make is evaluated from each tenant's rows, read with the single-tenant row paths.
 */
import type { Grouping, LogSelectorExpr, Matcher, RangeAggregationExpr, SampleExpr } from "../logql/ast";
import { rangeFunction, type MergingAggregation } from "../logql/functions";
import type { ExtractedSample, Labels, LogEntry, MetricResult, Series } from "../engine/types";
import type { TimeWindow } from "../core/time-window";
import type { CachedOrigin } from "../cache/cached-origin";
import { TENANT_LABEL } from "../core/tenant";
import { validateMatchers } from "../logql/validate";
import { RETAINED_PREFIX, selectTenants } from "../plan/tenant-selector";
import { evaluateMetric, type MetricQuery, type SampleSource } from "../engine/metric";
import { PipelineError } from "../engine/metric/errors";
import type { ParserHints } from "../engine/pipeline";
import { entryTextLength } from "./topk";
import { executeLogQuery, type LogQueryOptions, type LogQueryResult, type ScanStats } from "./logs";
import { executeMetricQuery, rangeSamples, type MetricQueryOptions } from "./metric";
import { mergedSeries, seriesOf } from "./guarded-rows";
import { mapBounded } from "./merge";
import { labelNames, labelValues, series } from "./meta";
import { metricNeedsDerived } from "../plan/derived-use";
import { derivedNames } from "../engine/derived-fields";
import { detectedLabelValues, rankDetectedLabels } from "./detected";
import { minePatterns, type PatternOptions } from "./patterns";
import type { DetectedLabel } from "../engine/detected/labels";
import type { PatternAnswer } from "../engine/patterns/miner";

export interface TenantClient {
  /** The tenant's name as the caller spelled it: its `__tenant_id__` in a multi-tenant answer. */
  name: string;
  client: CachedOrigin;
}

/** `labels` with the tenant's label, an existing label of that name moved aside. */
function withTenant(labels: Labels, name: string): Labels {
  const out: Labels = { ...labels };
  const existing = out[TENANT_LABEL];
  if (existing !== undefined) out[RETAINED_PREFIX + TENANT_LABEL] = existing;
  out[TENANT_LABEL] = name;
  return out;
}

export async function executeMultiTenantLogQuery(
  tenants: readonly TenantClient[],
  expr: LogSelectorExpr,
  opts: LogQueryOptions,
): Promise<LogQueryResult> {
  const chosen = selectTenants(tenants, expr.matchers);
  // What each tenant runs must still be a selector Loki accepts, as Loki checks it after the removal.
  validateMatchers(chosen.matchers);
  const selector: LogSelectorExpr = { ...expr, matchers: chosen.matchers };
  const stats: ScanStats = { rowsScanned: 0, bytesScanned: 0, subqueries: 0 };
  const backward = opts.direction === "backward";
  // Merged by time, as Loki's merge iterator does, ties kept in tenant order (tenants are sorted).
  const order = (a: LogEntry, b: LogEntry) => (a.ts === b.ts ? 0 : a.ts < b.ts !== backward ? -1 : 1);
  let entries: LogEntry[] = [];
  /** Text of the entries kept from the tenants read so far, which the query's memory share still holds. */
  let keptChars = 0;
  // One tenant after another: each already reads its windows concurrently, up to MAX_CONCURRENCY.
  for (const { name, client } of chosen.tenants) {
    const memory = opts.memory;
    const held = keptChars;
    const one = await executeLogQuery(client, selector, {
      ...opts,
      ...(memory ? { memory: { cover: (chars: number) => memory.cover(held + chars) } } : {}),
    });
    stats.rowsScanned += one.stats.rowsScanned;
    stats.bytesScanned += one.stats.bytesScanned;
    stats.subqueries += one.stats.subqueries;
    const streams = new Map<Labels, Labels>();
    for (const e of one.entries) {
      let stream = streams.get(e.stream);
      if (!stream) streams.set(e.stream, (stream = withTenant(e.stream, name)));
      entries.push({ ...e, stream });
    }
    // Each tenant's best `limit` entries hold the best `limit` of all: no more are kept between tenants.
    entries.sort(order);
    if (entries.length > opts.limit) entries = entries.slice(0, opts.limit);
    keptChars = entries.reduce((n, e) => n + entryTextLength(e), 0);
  }
  return { entries, stats };
}

export async function executeMultiTenantMetricQuery(
  tenants: readonly TenantClient[],
  expr: SampleExpr,
  q: MetricQuery,
  opts: MetricQueryOptions,
): Promise<{ result: MetricResult; stats: ScanStats }> {
  const stats: ScanStats = { rowsScanned: 0, bytesScanned: 0, subqueries: 0 };
  // Rows get the derived fields only when the answer can depend on them (as in executeMetricQuery).
  const derive = metricNeedsDerived(expr, derivedNames(tenants[0]?.client.derivedFields));
  // Set once a tenant's part fails with a pipeline error: the rest is evaluated from rows.
  let fromRows = false;
  const source: SampleSource = {
    samples(agg: RangeAggregationExpr, from: bigint, to: bigint, hints?: ParserHints) {
      return tenantSamples(tenants, agg, from, to, opts, stats, derive, hints);
    },
    ...(opts.pushdown === true
      ? {
          pushdown: async (sub, grid) => {
            if (fromRows) return undefined;
            // Loki's series limit holds the answer, not a part of it: a part is held to it only when it is the answer.
            const parts = await tenantParts(
              tenants,
              sub,
              grid,
              sub === expr ? opts : { ...opts, maxSeries: Infinity },
              stats,
            );
            // A pipeline error: the rows' evaluation, tenant by tenant, names the series Loki names.
            if (parts === "rows") fromRows = true;
            return parts === "rows" ? undefined : parts;
          },
        }
      : {}),
  };
  const result = await evaluateMetric(expr, q, source, { maxSeries: opts.maxSeries, maxPoints: opts.maxPoints });
  return { result, stats };
}

/**
 * A subtree answered by each tenant's own metric execution (with its push-downs), when the tenants'
 * answers make the multi-tenant one: a range aggregation, or a `sum`, `min` or `max` around one.
 * Each tenant aggregates its own series, grouped as asked but for `__tenant_id__`; where the
 * grouping keeps that label (no grouping of a range aggregation, `by` naming it, `without` not
 * naming it) each tenant's series get it, as tenantSamples labels rows, and stay apart; elsewhere the
 * tenants' groups merge by the operation (for a range aggregation, the one that merges its values:
 * a count's is a sum). Undefined for any other subtree, whose parts the evaluator asks for in turn,
 * and when a tenant's answer is partial; "rows" when a tenant's part fails with a pipeline error.
 */
async function tenantParts(
  tenants: readonly TenantClient[],
  expr: SampleExpr,
  q: MetricQuery,
  opts: MetricQueryOptions,
  stats: ScanStats,
): Promise<Series[] | "rows" | undefined> {
  const shape = tenantShape(expr);
  if (!shape) return undefined;
  const chosen = selectTenants(tenants, shape.range.range.selector.matchers);
  validateMatchers(chosen.matchers);
  const tenantExpr = shape.rewrite(chosen.matchers);
  // The request's origin concurrency is shared out: a few tenants at a time, each reading its
  // windows with its share, so a query across many tenants keeps as many requests in flight as one.
  const running = Math.max(1, Math.min(opts.maxConcurrency, chosen.tenants.length));
  const share = { ...opts, maxConcurrency: Math.max(1, Math.floor(opts.maxConcurrency / running)) };
  const settled = await mapBounded(chosen.tenants, running, async ({ name, client }) => {
    try {
      const { result, stats: own } = await executeMetricQuery(client, tenantExpr, q, share);
      stats.rowsScanned += own.rowsScanned;
      stats.bytesScanned += own.bytesScanned;
      stats.subqueries += own.subqueries;
      return { status: "fulfilled" as const, value: { name, result } };
    } catch (reason) {
      return { status: "rejected" as const, reason };
    }
  });
  // The tenants are evaluated together but fail in their order, as the rows' evaluation reads them.
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) {
    // Loki's pipeline error names the failing series with its `__tenant_id__`, which a tenant's own
    // query does not know: the rows' evaluation names it.
    if (failed.reason instanceof PipelineError) return "rows";
    throw failed.reason;
  }
  const answers = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  if (answers.some(({ result }) => result.warnings || result.type === "scalar")) return undefined;
  const perTenant = answers.map(({ name, result }) =>
    seriesOf(result).map((s) => ({
      labels: shape.merge ? retained(s.labels) : withTenant(s.labels, name),
      points: s.points,
    })),
  );
  return shape.merge ? mergedSeries(shape.merge, perTenant) : perTenant.flat();
}

interface TenantShape {
  /** The range aggregation whose selector chooses the tenants. */
  range: RangeAggregationExpr;
  /** The subtree each tenant runs, with the selector's matchers `__tenant_id__` left out. */
  rewrite: (matchers: Matcher[]) => SampleExpr;
  /** How the tenants' groups merge (the grouping drops `__tenant_id__`), or undefined: each keeps it. */
  merge?: MergingAggregation;
}

function tenantShape(expr: SampleExpr): TenantShape | undefined {
  let range: RangeAggregationExpr;
  let grouping: Grouping | undefined;
  let merge: MergingAggregation | undefined;
  if (expr.kind === "RangeAggregation") {
    range = expr;
    grouping = expr.grouping;
    merge = rangeFunction(expr.op).mergedBy;
  } else if (expr.kind === "VectorAggregation" && (expr.op === "sum" || expr.op === "min" || expr.op === "max")) {
    if (expr.expr.kind !== "RangeAggregation" || expr.expr.grouping) return undefined;
    range = expr.expr;
    // `sum(…)` is `sum by ()`.
    grouping = expr.grouping ?? { without: false, labels: [] };
    merge = expr.op;
  } else return undefined;
  // `absent_over_time` answers for all the tenants at once: one series when none has rows.
  if (range.op === "absent_over_time") return undefined;
  const named = grouping?.labels ?? [];
  // A stream's own `__tenant_id__` is answered under the retained name, which no tenant's series has.
  if (named.includes(RETAINED_PREFIX + TENANT_LABEL)) return undefined;
  const keepsTenant = !grouping || grouping.without !== named.includes(TENANT_LABEL);
  if (!keepsTenant && !merge) return undefined;
  // The grouping each tenant runs (none where none was written: `sum(…)` stays as written).
  const written = expr.kind === "VectorAggregation" ? expr.grouping : grouping;
  const own = written && { ...written, labels: named.filter((l) => l !== TENANT_LABEL) };
  const inTenant = (matchers: Matcher[]): RangeAggregationExpr => ({
    ...range,
    range: { ...range.range, selector: { ...range.range.selector, matchers } },
    ...(expr === range && own ? { grouping: own } : {}),
  });
  return {
    range,
    rewrite: (m) => (expr === range ? inTenant(m) : { ...expr, ...(own ? { grouping: own } : {}), expr: inTenant(m) }),
    ...(keepsTenant ? {} : { merge }),
  };
}

/** A series' labels with a stream's own `__tenant_id__` under the retained name, as withTenant keeps it. */
function retained(labels: Labels): Labels {
  if (labels[TENANT_LABEL] === undefined) return labels;
  const out: Labels = { ...labels, [RETAINED_PREFIX + TENANT_LABEL]: labels[TENANT_LABEL] };
  delete out[TENANT_LABEL];
  return out;
}

/** One range aggregation's samples from every tenant its selector chooses, each labelled with its tenant. */
async function* tenantSamples(
  tenants: readonly TenantClient[],
  agg: RangeAggregationExpr,
  from: bigint,
  to: bigint,
  opts: MetricQueryOptions,
  stats: ScanStats,
  derive: boolean,
  hints?: ParserHints,
): AsyncGenerator<readonly ExtractedSample[]> {
  const chosen = selectTenants(tenants, agg.range.selector.matchers);
  validateMatchers(chosen.matchers);
  const tenantAgg: RangeAggregationExpr = {
    ...agg,
    range: { ...agg.range, selector: { ...agg.range.selector, matchers: chosen.matchers } },
  };
  // `count_over_time(…) by (app)` drops every other label where samples are extracted: the tenant's
  // label is added only where the aggregation keeps it.
  const g = agg.grouping;
  const labelled = !g || g.without || g.labels.includes(TENANT_LABEL);
  for (const { name, client } of chosen.tenants) {
    const relabelled = new Map<Labels, Labels>();
    for await (const batch of rangeSamples(client, tenantAgg, from, to, opts, stats, derive, hints)) {
      if (!labelled) {
        yield batch;
        continue;
      }
      yield batch.map((s) => {
        let labels = relabelled.get(s.labels);
        if (!labels) relabelled.set(s.labels, (labels = withTenant(s.labels, name)));
        return { ts: s.ts, value: s.value, labels };
      });
    }
  }
}

export async function multiTenantLabelNames(
  tenants: readonly TenantClient[],
  window: TimeWindow,
  matchers?: Matcher[],
): Promise<string[]> {
  const chosen = selectTenants(tenants, matchers ?? []);
  const rest = matchers && chosen.matchers.length > 0 ? chosen.matchers : undefined;
  const names = new Set<string>();
  for (const { client } of chosen.tenants) for (const n of await labelNames(client, window, rest)) names.add(n);
  // Every stream of a multi-tenant answer carries its tenant's label (Loki lists it unconditionally).
  names.add(TENANT_LABEL);
  return [...names].sort();
}

export async function multiTenantLabelValues(
  tenants: readonly TenantClient[],
  name: string,
  window: TimeWindow,
  matchers?: Matcher[],
): Promise<string[]> {
  const chosen = selectTenants(tenants, matchers ?? []);
  if (name === TENANT_LABEL) return chosen.tenants.map((t) => t.name).sort();
  const rest = matchers && chosen.matchers.length > 0 ? chosen.matchers : undefined;
  const values = new Set<string>();
  for (const { client } of chosen.tenants) {
    for (const v of await labelValues(client, name, window, rest)) values.add(v);
  }
  return [...values].sort();
}

/** Each selector chooses its tenants on its own; a selector left without matchers means every stream. */
export async function multiTenantSeries(
  tenants: readonly TenantClient[],
  selectors: Matcher[][],
  window: TimeWindow,
): Promise<Labels[]> {
  const out: Labels[] = [];
  for (const t of tenants) {
    const own: Matcher[][] = [];
    let everyStream = selectors.length === 0;
    for (const selector of selectors) {
      const chosen = selectTenants([t], selector);
      if (chosen.tenants.length === 0) continue;
      if (chosen.matchers.length === 0) everyStream = true;
      else own.push(chosen.matchers);
    }
    if (!everyStream && own.length === 0) continue;
    for (const labels of await series(t.client, everyStream ? [] : own, window)) out.push(withTenant(labels, t.name));
  }
  return out;
}

/**
 * detected_labels across tenants, as Loki merges them: each tenant reports its own labels (its own
 * filter of ID-like labels), and a label several tenants report counts the distinct values of all
 * of them together (Loki unites the tenants' cardinality sketches; here the value sets are exact).
 */
export async function multiTenantDetectedLabels(
  tenants: readonly TenantClient[],
  window: TimeWindow,
  matchers: Matcher[] | undefined,
  maxConcurrency: number,
): Promise<DetectedLabel[]> {
  const chosen = selectTenants(tenants, matchers ?? []);
  const rest = matchers && chosen.matchers.length > 0 ? chosen.matchers : undefined;
  const union = new Map<string, Set<string>>();
  for (const { client } of chosen.tenants) {
    for (const [label, values] of await detectedLabelValues(client, window, rest, maxConcurrency)) {
      let all = union.get(label);
      if (!all) union.set(label, (all = new Set()));
      for (const v of values) all.add(v);
    }
  }
  return rankDetectedLabels(new Map([...union].map(([label, all]) => [label, { length: all.size }])));
}

/**
 * Patterns across tenants, as Loki's querier merges them: one series per pattern text (the first
 * tenant's level kept), its samples those of every tenant that found it. Where two tenants have a
 * sample at the same bucket they are added, so the series stays one sample per bucket with the
 * same total Loki's concatenation carries.
 */
export async function multiTenantPatterns(
  tenants: readonly TenantClient[],
  matchers: Matcher[],
  o: PatternOptions,
): Promise<PatternAnswer[]> {
  const chosen = selectTenants(tenants, matchers);
  // Each tenant runs what is left of the selector, which must still be one Loki accepts.
  validateMatchers(chosen.matchers);
  const merged = new Map<string, { level: string; counts: Map<number, number> }>();
  for (const { client } of chosen.tenants) {
    const { patterns } = await minePatterns(client, chosen.matchers, o);
    for (const p of patterns) {
      let into = merged.get(p.pattern);
      if (!into) merged.set(p.pattern, (into = { level: p.level, counts: new Map() }));
      for (const [ts, n] of p.samples) into.counts.set(ts, (into.counts.get(ts) ?? 0) + n);
    }
  }
  return [...merged].map(([pattern, { level, counts }]) => ({
    pattern,
    level,
    samples: [...counts].sort((a, b) => a[0] - b[0]),
  }));
}
