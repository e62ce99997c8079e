/**
 * Label filters on fields `| json` / `| logfmt` extract, sent to VictoriaLogs as a condition every
 * row the Worker keeps satisfies, so that the origin sends only rows that can match. The filters
 * still run in the Worker with Loki's semantics (the answer carries Loki's parsed labels): the
 * origin's condition only has to hold a SUPERSET of the rows they keep.
 *
 * The condition is `(exact) or (bad)`, built by parser-pushdown.ts: `exact` is the filters over
 * the values VictoriaLogs unpacks (the row's own field first, as Loki keeps a stream label over a
 * parsed key), `bad` its guard, true on every row where VictoriaLogs' value of a label the filters
 * read could differ from Loki's (the differences are listed there). On a row where `bad` is false,
 * both sides read the same values, plain numbers, durations and byte sizes both parse alike, so
 * `exact` is Loki's answer; where `bad` is true the row is sent anyway.
 *
 * Which filters: the label filters right after one parameterless parser, through `drop`s without
 * matchers and line filters, up to the first other stage (which could change labels). A filter it
 * cannot push (or one reading a dropped label) is passed over: every row the Worker keeps passes
 * the others, so their conjunction still holds a superset. After the parser chains Logs Drilldown
 * writes (`| json | logfmt`, `| json name="…" [| logfmt]`), the filters and `drop`s right after
 * the chain are pushed all together or not at all (chainFilterPipes).
 *
 * Errors: the Worker's typed filters (as Loki's) keep a row by its value alone: missing fails,
 * a value that does not parse passes (marked LabelFilterErr), so a row's fate under the pushed
 * filters depends only on the values, whatever error a parser left on it. A line Loki reads only
 * up to a syntax error keeps the labels read so far; VictoriaLogs extracts nothing from it, and
 * the guard's "named in the line but not extracted" term sends it. `__error__=""` only removes
 * rows, so it is passed over like every filter that is not pushed (`ip()` filters, which keep
 * rows that carry an error, among them).
 */
import type { LogSelectorExpr, PipelineStage } from "../logql/ast";
import type { DerivedFieldRules } from "../engine/derived-fields";
import {
  COUNTING_FIELDS,
  filterLogsQL,
  guard,
  type Parser,
  parsedCounting,
  parsedValueFields,
  parsedValuePipes,
  pushableName,
} from "./parser-pushdown";
import { RepeatCounters } from "./unwrap-pushdown";
import { type LogQueryPlan, planLogQuery, type PlanOptions } from "./logquery";

const ERROR = "__error__";

/**
 * The log query's plan for reading its rows as they are (log queries, metrics evaluated in the
 * Worker): planLogQuery's, with the parsed fields' filter after it when prefilters are on.
 */
export function planLogRows(expr: LogSelectorExpr, opts: PlanOptions = {}): LogRowsPlan {
  const plan = planLogQuery(expr, opts);
  const pipes = opts.prefilter === false ? undefined : parsedFilterPipes(plan.local, opts.derived);
  return pipes === undefined
    ? { ...plan, parsedFilter: false }
    : { ...plan, logsql: plan.logsql + pipes, parsedFilter: true };
}

export interface LogRowsPlan extends LogQueryPlan {
  /** The origin keeps only rows the parsed fields' filters may keep (few besides those the answer holds). */
  parsedFilter: boolean;
}

/**
 * The LogsQL pipes (starting with ` | `) that keep only rows the stages in `local` could keep,
 * or undefined when nothing can be pushed. `local` is the log query's pipeline as the Worker runs it.
 */
export function parsedFilterPipes(local: readonly PipelineStage[], derived?: DerivedFieldRules): string | undefined {
  const at = local.findIndex((s) => s.kind !== "LineFilter");
  const first = local[at];
  const chain = chainFilterPipes(local.slice(at), derived);
  if (chain !== undefined) return chain;
  let parser: Parser;
  if (first?.kind === "JsonParser" && first.params.length === 0) parser = "json";
  else if (first?.kind === "LogfmtParser" && first.params.length === 0 && !first.strict && !first.keepEmpty) {
    parser = "logfmt";
  } else return undefined;

  const usable = pushableName(derived);
  const typed = new Map<string, Set<string>>();
  const names = new Set<string>();
  const conditions: string[] = [];
  const dropped = new Set<string>();
  for (const stage of local.slice(at + 1)) {
    if (stage.kind === "LineFilter") continue;
    if (stage.kind === "Drop") {
      if (stage.items.some((item) => item.matcher)) break;
      for (const item of stage.items) dropped.add(item.name);
      continue;
    }
    if (stage.kind !== "LabelFilter") break;
    const f = stage.filter;
    // Only removes rows: passed over.
    if (f.type === "string" && f.name === ERROR && f.op === "=" && f.value === "") continue;
    const read = new Set<string>();
    const condition = filterLogsQL(f, typed, read, usable);
    if (condition === undefined || [...read].some((n) => dropped.has(n))) continue;
    for (const n of read) names.add(n);
    if (condition !== "") conditions.push(condition);
  }
  if (conditions.length === 0) return undefined;

  const relevant = [...names];
  const repeats = new RepeatCounters();
  const bad = guard(parser, relevant, typed, repeats);
  const pipes = parsedValuePipes(parser, relevant, repeats);
  const fields = parsedValueFields(parser, relevant, repeats);
  pipes.push(`filter (${conditions.join(" ")}) or ${bad}`);
  // The Worker ignores fields starting with `_`; deleted, they do not cross the network.
  pipes.push(`delete ${fields.join(", ")}`);
  return pipes.map((p) => ` | ${p}`).join("");
}

/**
 * The same for the parser chains Logs Drilldown writes (`| json | logfmt`, `| json name="…"
 * [| logfmt]`) and the filters and `drop`s right after them, all of which the counting push-down
 * must read exactly (parsedCounting): its kept rows or its guard rows, a superset of Loki's for the
 * same reason as above. Undefined for a lone parser (above) or a filter it cannot read.
 */
function chainFilterPipes(stages: readonly PipelineStage[], derived?: DerivedFieldRules): string | undefined {
  const [first, second] = stages;
  if (first?.kind !== "JsonParser" || (first.params.length === 0 && second?.kind !== "LogfmtParser")) return undefined;
  const parsers = second?.kind === "LogfmtParser" ? 2 : 1;
  let end = parsers;
  while (stages[end]?.kind === "LabelFilter" || stages[end]?.kind === "Drop") end++;
  const counting = parsedCounting(stages.slice(0, end), [], pushableName(derived));
  if (!counting || counting.counted === "") return undefined;
  const pipes = [
    ...counting.pipes,
    `filter (${counting.counted}) or ${counting.bad}`,
    `delete ${COUNTING_FIELDS.join(", ")}`,
  ];
  return pipes.map((p) => ` | ${p}`).join("");
}
