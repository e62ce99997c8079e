/**
 * Which metric subtrees VictoriaLogs computes exactly, and the LogsQL that does it.
 *
 * Pushed: `sum [by (labels)] (count_over_time | bytes_over_time | rate | bytes_rate (selector
 * |line filters [range] [offset]))` (the functions with `origin.lines` in RANGE_FUNCTIONS) when
 * every pipeline stage runs in the origin (or only drops labels that are neither grouped by nor
 * filtered on). Without parsers a sample's labels are its stream labels plus structured metadata —
 * exactly the fields VictoriaLogs groups by — so `stats by (labels)` sees the same groups Loki
 * does, and a label filter `=` / `!=` on them (Logs Drilldown's `| trace_id!=""` on a metadata
 * field), alone or joined by `and` / `or`, is the same filter on those fields: a missing label is
 * "" in Loki, and `field:=""` matches a missing field in VictoriaLogs.
 *
 * Loki's value at t covers (t − offset − range, t − offset]. VictoriaLogs buckets are [b, b + w);
 * shifting every boundary by +1 ns makes them (b − 1ns, b + w − 1ns], so with a bucket width that
 * divides both range and step, each Loki window is an exact union of buckets.
 */
import type { LabelFilterExpr, PipelineStage, SampleExpr } from "../logql/ast";
import { rangeFunction } from "../logql/functions";
import { fieldName, isSpecialField } from "./logsql";
import { planLogQuery } from "./logquery";
import { ownFieldCondition } from "./prefilter";
import { derivedNames, type DerivedFieldRules } from "../engine/derived-fields";

export interface MetricGrid {
  /** First evaluation time, ns (already aligned by the evaluator). */
  start: bigint;
  end: bigint;
  step: bigint;
  instant: boolean;
}

/** A stats query grouped by `_time` buckets and labels, and how its buckets make evaluation windows. */
export interface BucketGrid {
  /** LogsQL including the stats pipe (no time filter: the client adds the window). */
  logsql: string;
  /** Origin window [start, end) covering every evaluation window. */
  window: { start: bigint; end: bigint };
  /** Bucket width, ns. */
  width: bigint;
  /** Bucket starts are `shift + k·width` (the `offset` of the `_time` grouping). */
  shift: bigint;
  /** How many consecutive buckets make one evaluation window. */
  bucketsPerWindow: number;
  /** Evaluation time t's window ends at bucket end t − offset; bucket end = bucket start + width − 1ns. */
  offset: bigint;
  groupBy: string[];
  /** How the answer's groups can be named apart from its buckets, for a breakdown restricted to some of them. */
  groups?: GroupSource;
}

/**
 * The rows of a bucket grid's stats query as groups (exec/breakdown-groups.ts): `logsql` is
 * `rows` followed by pipes that only count, so a filter inserted after `rows` keeps the counts of
 * the groups it lets through as they are.
 */
export interface GroupSource {
  /** The LogsQL before the counting pipes, with every field `fields`, `counted` and `bad` read computed. */
  rows: string;
  /** The row fields (as the origin names them in its answer) whose values name one of the answer's series. */
  fields: string[];
  /** The rows that give the answer a sample, when not all do (a LogsQL filter). */
  counted?: string;
  /** The rows whose presence voids the origin's answer (its guard), when it has one. */
  bad?: string;
}

export interface BucketPlan extends BucketGrid {
  /** The LogsQL before the stats pipe: the rows whose buckets are counted. */
  rows: string;
  value: "count" | "bytes";
  /** Divide the window's total by this many seconds (rate, bytes_rate), or 0 for none. */
  perSeconds: number;
}

/** Above this many buckets the origin's answer would outgrow local evaluation's. */
const MAX_BUCKETS = 20_000n;

export function planMetricPushdown(
  expr: SampleExpr,
  grid: MetricGrid,
  derived?: DerivedFieldRules,
): BucketPlan | undefined {
  if (expr.kind !== "VectorAggregation" || expr.grouping?.without) return undefined;
  const inner = expr.expr;
  if (inner.kind !== "RangeAggregation" || inner.grouping || inner.range.unwrap) return undefined;
  // The origin totals each bucket's lines; summing the buckets' totals over a window and then the
  // windows' values over the series is the outer aggregation only when it is the one that merges them.
  const facts = rangeFunction(inner.op);
  const lines = facts.origin.lines;
  if (!lines || facts.mergedBy !== "sum" || expr.op !== "sum") return undefined;
  // Every label filter is sent below, exactly: no prefilter of its own beside it.
  const plan = planLogQuery(inner.range.selector, { derived, prefilter: false });
  const groupBy = expr.grouping?.labels ?? [];
  // A Loki label named like a VictoriaLogs field (`_stream`, …), or one the Worker derives
  // (`detected_level`, `service_name`), is grouped by in the Worker.
  const derivedNow = derivedNames(derived);
  if (groupBy.some((name) => isSpecialField(name) || derivedNow.has(name))) return undefined;
  const filtered: string[] = [];
  const filters: string[] = [];
  for (const stage of plan.local) {
    if (stage.kind !== "LabelFilter") continue;
    const filter = fieldFilter(stage.filter, (name) => {
      if (isSpecialField(name) || derivedNow.has(name) || name.startsWith("__")) return false;
      filtered.push(name);
      return true;
    });
    if (filter === undefined) return undefined;
    filters.push(filter);
  }
  const kept = [...groupBy, ...filtered];
  if (!plan.local.every((stage) => stage.kind === "LabelFilter" || dropsNoneOf(stage, kept))) return undefined;
  const buckets = bucketsOf(inner.range, grid);
  if (!buckets) return undefined;
  // The label filters are row filters, so they go before the pipes that drop the gaps' rows.
  const rows = [plan.logsql, ...filters].join(" ") + buckets.inWindows;
  const value = lines.total;
  // sum_len adds the lengths as it reads the column: no per-row length field for a sum to parse back.
  const stats = value === "count" ? "count() as __v" : "sum_len(_msg) as __v";
  const by = [buckets.timeGrouping, ...groupBy.map(fieldName)].join(", ");
  return {
    logsql: `${rows} | stats by (${by}) ${stats}`,
    rows,
    ...buckets.grid,
    groupBy,
    groups: { rows, fields: groupBy },
    value,
    perSeconds: lines.perSecond ? Number(buckets.range) / 1e9 : 0,
  };
}

/**
 * The time buckets a range aggregation's windows are made of on `grid`: width the largest that
 * divides both the range and the step, so that every window is a whole number of buckets; none
 * past MAX_BUCKETS, where the origin's answer would outgrow local evaluation's. `inWindows` is the
 * pipe to put right after the row filters (see inWindowsFilter).
 */
export function bucketsOf(
  spec: { range: number | bigint; offset: number | bigint },
  grid: MetricGrid,
):
  { grid: Omit<BucketGrid, "logsql" | "groupBy">; range: bigint; timeGrouping: string; inWindows: string } | undefined {
  const range = BigInt(spec.range);
  const offset = BigInt(spec.offset);
  if (range <= 0n) return undefined;
  const width = grid.instant ? range : gcd(range, grid.step);
  if ((grid.end - grid.start + range) / width > MAX_BUCKETS) return undefined;
  const shift = mod(grid.start - offset + 1n, width);
  return {
    grid: {
      window: { start: grid.start - offset - range + 1n, end: grid.end - offset + 1n },
      width,
      shift,
      bucketsPerWindow: Number(range / width),
      offset,
    },
    range,
    timeGrouping: `_time:${width}ns offset ${shift}ns`,
    inWindows: grid.instant ? "" : inWindowsFilter(range, offset, grid),
  };
}

/**
 * How far (ns) VictoriaLogs' `math` may place a row from its true time: it computes in float64,
 * whose unit in the last place is 256 ns for today's times in nanoseconds (a few such errors add
 * up in `(_time - anchor) % step`). A row this close to a window's edge is kept whichever side it
 * lies: the filter keeps a superset of the rows the windows hold.
 */
const PHASE_MARGIN_NS = 1_000_000n;

/**
 * When the step is longer than the range, the windows (t − offset − range, t − offset] leave gaps
 * between them, and the rows in the gaps count in no evaluation: ` | math … | filter …` drops them
 * before the origin parses, unpacks or guards them (with a 10 min step and a 5 min range, half the
 * rows). A row's phase is its time past the last window end at or before it; it lies in a window
 * when that phase is 0 or more than step − range. The buckets are still grouped by the row's own
 * `_time`, so a row the margin keeps lands in a bucket no window adds up: the answer is unchanged.
 * Empty when the windows leave no gap wider than twice the margin.
 */
function inWindowsFilter(range: bigint, offset: bigint, grid: MetricGrid): string {
  const step = grid.step;
  const gap = step - range;
  if (gap <= 2n * PHASE_MARGIN_NS) return "";
  // Window ends are anchor + k·step; a small anchor keeps the filter's text (and the cache key of
  // every chunk asked with it) the same for every query on the same step and phase.
  const anchor = mod(grid.start - offset, step);
  const phase = "__window_phase";
  return (
    ` | math ((_time - ${anchor}) % ${step}) as ${phase}` +
    ` | filter ${phase}:>${gap - PHASE_MARGIN_NS} or ${phase}:<${PHASE_MARGIN_NS}` +
    ` | delete ${phase}`
  );
}

/**
 * A string label filter, or several joined by `and` / `or`, as the LogsQL filter on the fields
 * holding those labels (ownFieldCondition); undefined for anything else, or a name `usable` refuses.
 */
function fieldFilter(f: LabelFilterExpr, usable: (name: string) => boolean): string | undefined {
  switch (f.type) {
    case "string":
      return usable(f.name) ? ownFieldCondition(f) : undefined;
    case "paren":
      return fieldFilter(f.expr, usable);
    case "binary": {
      const left = fieldFilter(f.left, usable);
      const right = fieldFilter(f.right, usable);
      if (left === undefined || right === undefined) return undefined;
      return f.op === "or" ? `(${left} or ${right})` : `(${left} ${right})`;
    }
    default:
      return undefined;
  }
}

/**
 * Without a parser, `| drop x` only removes labels; when none of them is grouped by, the sums are
 * unchanged. (Grafana's log-volume histogram sends `... | drop __error__` with every log query.)
 */
function dropsNoneOf(stage: PipelineStage, groupBy: readonly string[]): boolean {
  return stage.kind === "Drop" && stage.items.every((item) => !item.matcher && !groupBy.includes(item.name));
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function mod(a: bigint, m: bigint): bigint {
  const r = a % m;
  return r < 0n ? r + m : r;
}
