/**
 * Label filters on fields a parser extracts (`| json` / `| logfmt` without parameters or flags,
 * `| regexp`, `| pattern`), sent to VictoriaLogs as a condition every row the Worker keeps
 * satisfies, so that the origin sends only rows that can match. The filters still run in the
 * Worker with Loki's semantics (the answer carries Loki's parsed labels): the origin's condition
 * only has to hold a SUPERSET of the rows they keep.
 *
 * The condition is `(exact) or (bad)`, built by the counting push-downs (parser-pushdown.ts for
 * json/logfmt, extract-pushdown.ts for regexp/pattern): `exact` is the filters over the values
 * VictoriaLogs computes (the row's own field first, as Loki keeps a stream label over a parsed
 * key), `bad` their guard, true on every row where VictoriaLogs' value of a label the filters read
 * could differ from Loki's (the differences are listed there). On a row where `bad` is false,
 * both sides read the same values, plain numbers, durations, byte sizes and dotted quads both
 * parse alike, so `exact` is Loki's answer; where `bad` is true the row is sent anyway. The row
 * itself reaches the Worker unchanged: the values live in fields the Worker ignores, deleted
 * after, and the fields `extract_regexp` writes under the user's group names are put back.
 *
 * Which filters: the label filters right after the parser, through `drop`s without matchers and
 * line filters, up to the first other stage (which could change labels). A filter it cannot push
 * (or one reading a dropped label) is passed over: every row the Worker keeps passes the others,
 * so their conjunction still holds a superset. After the parser chains Logs Drilldown writes
 * (`| json | logfmt`, `| json name="…" [| logfmt]`), the filters and `drop`s right after the chain
 * are pushed all together or not at all (chainFilterPipes).
 *
 * Errors: the Worker's typed filters (as Loki's) keep a row by its value alone: missing fails,
 * a value that does not parse passes (marked LabelFilterErr), so a row's fate under the pushed
 * typed filters depends only on the values, whatever error a parser left on it. A line Loki reads
 * only up to a syntax error keeps the labels read so far; VictoriaLogs extracts nothing from it,
 * and the guard's "named in the line but not extracted" term sends it. `__error__=""` only removes
 * rows, so it is passed over like every filter that is not pushed. `ip()` filters (ip-filter.ts)
 * keep every row that carries an error, whatever its value: the errors a row may carry when one
 * runs are the parser's (`| json` is then read wrapped, as the counting push-down does where
 * errors matter, and every line it rejects is sent; `| logfmt` without `--strict`, `| regexp` and
 * `| pattern` set none), a `__error__` field (guarded), and a typed filter's on a value not of a
 * shape both sides read alike (guarded when the filter is pushed; after one passed over, the
 * `ip()` filters are passed over too).
 */
import type {
  LabelFilterExpr,
  LogSelectorExpr,
  PatternParserStage,
  PipelineStage,
  RegexpParserStage,
} from "../logql/ast";
import type { DerivedFieldRules } from "../engine/derived-fields";
import { isKind, some } from "../logql/walk";
import {
  COUNTING_FIELDS,
  filterLogsQL,
  regexFiltered,
  guard,
  JSON_REJECTED_LINES,
  type Parser,
  parsedCounting,
  parsedValueFields,
  parsedValuePipes,
  pushableName,
} from "./parser-pushdown";
import { extractedValues } from "./extract-pushdown";
import { hasIpFilter } from "./ip-filter";
import { ANSI_LINES } from "./lenient-lines";
import { isNoErrorFilter } from "./unwrap-pushdown";
import { RepeatCounters } from "./key-tests";
import { type LogQueryPlan, planLogQuery, type PlanOptions } from "./logquery";
import { typedValueFields, typedValuePipes, type TypedLabels } from "./typed-values";

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
  let at = local.findIndex((s) => s.kind !== "LineFilter");
  // A `decolorize` before the parser leaves a line without an escape as it is: the lines holding
  // one are sent (ANSI_LINES). Line filters beside it only remove rows, which the Worker still does.
  let decolorized = false;
  while (local[at]?.kind === "Decolorize" || (decolorized && local[at]?.kind === "LineFilter")) {
    decolorized ||= local[at]!.kind === "Decolorize";
    at++;
  }
  const sent = decolorized ? `${ANSI_LINES} or ` : "";
  const first = local[at];
  const chain = chainFilterPipes(local.slice(at), sent, derived);
  if (chain !== undefined) return chain;
  let parser: Parser | RegexpParserStage | PatternParserStage;
  if (first?.kind === "JsonParser" && first.params.length === 0) parser = "json";
  else if (first?.kind === "LogfmtParser" && first.params.length === 0 && !first.strict && !first.keepEmpty) {
    parser = "logfmt";
  } else if (first?.kind === "RegexpParser" || first?.kind === "PatternParser") parser = first;
  else return undefined;

  const filters = pushedFilters(local.slice(at + 1), pushableName(derived, true));
  if (filters.conditions.length === 0) return undefined;
  const { conditions, names, typed, ip } = filters;
  const relevant = [...names];
  let pipes: string[];
  let bad: string;
  let fields: string[];
  let restored: string[] = [];
  if (typeof parser === "string") {
    // Loki's `| json` marks the lines it rejects with an error, which ip() filters keep: read wrapped,
    // the origin tells them. A `| logfmt` without `--strict` sets no error.
    const wrapped = ip && parser === "json";
    const repeats = new RepeatCounters();
    bad = guard(parser, relevant, typed, filters.regexed, repeats, wrapped);
    if (wrapped) bad = `${bad} or ${JSON_REJECTED_LINES}`;
    pipes = [...parsedValuePipes(parser, relevant, repeats, wrapped), ...typedValuePipes(typed)];
    fields = [...parsedValueFields(parser, relevant, repeats, wrapped), ...typedValueFields(typed)];
  } else {
    const values = extractedValues(parser, relevant, typed, [], true, filters.regexed);
    if (!values) return undefined;
    ({ pipes, bad, restored } = values);
    fields = values.added;
  }
  pipes.push(`filter (${conditions.join(" ")}) or ${sent}${bad}`, ...restored);
  // The Worker ignores fields starting with `_`; deleted, they do not cross the network.
  pipes.push(`delete ${fields.join(", ")}`);
  return pipes.map((p) => ` | ${p}`).join("");
}

interface PushedFilters {
  /** One condition per filter pushed: the rows it keeps, over the origin's values of its labels. */
  conditions: string[];
  /** The labels they read, and the typed ones with the value shapes they need. */
  names: Set<string>;
  /** Those a regex filter reads. */
  regexed: Set<string>;
  typed: TypedLabels;
  /** Whether one of them is an ip() filter. */
  ip: boolean;
}

/** The label filters after the parser that can be pushed (module comment: which filters). */
function pushedFilters(stages: readonly PipelineStage[], usable: (name: string) => boolean): PushedFilters {
  const typed: TypedLabels = new Map();
  const names = new Set<string>();
  const regexed = new Set<string>();
  const conditions: string[] = [];
  const dropped = new Set<string>();
  let ip = false;
  // A typed filter left to the Worker may mark a row with an error, which a later ip() filter keeps.
  let mayErr = false;
  for (const stage of stages) {
    if (stage.kind === "LineFilter") continue;
    if (stage.kind === "Drop") {
      if (stage.items.some((item) => item.matcher)) break;
      for (const item of stage.items) dropped.add(item.name);
      continue;
    }
    if (stage.kind !== "LabelFilter") break;
    const f = stage.filter;
    // Only removes rows: passed over.
    if (isNoErrorFilter(f)) continue;
    const read = new Set<string>();
    const condition = filterLogsQL(f, typed, read, usable, !mayErr);
    if (condition === undefined || [...read].some((n) => dropped.has(n))) {
      mayErr ||= holdsTypedFilter(f);
      continue;
    }
    for (const n of read) names.add(n);
    for (const n of regexFiltered([f])) regexed.add(n);
    if (condition !== "") conditions.push(condition);
    ip ||= hasIpFilter(f);
  }
  return { conditions, names, regexed, typed, ip };
}

/** Whether `f` holds a numeric, duration or bytes filter (which marks values it cannot read). */
function holdsTypedFilter(f: LabelFilterExpr): boolean {
  return some(
    f,
    (node) =>
      isKind(node, "LabelFilterExpr") && (node.type === "number" || node.type === "duration" || node.type === "bytes"),
  );
}

/**
 * The same for the parser chains Logs Drilldown writes (`| json | logfmt`, `| json name="…"
 * [| logfmt]`) and the filters and `drop`s right after them, all of which the counting push-down
 * must read exactly (parsedCounting): its kept rows or its guard rows, a superset of Loki's for the
 * same reason as above. Undefined for a lone parser (above) or a filter it cannot read.
 */
function chainFilterPipes(
  stages: readonly PipelineStage[],
  /** Rows sent whatever their values (`<filter> or `), or "". */
  sent: string,
  derived?: DerivedFieldRules,
): string | undefined {
  const [first, second] = stages;
  if (first?.kind !== "JsonParser" || (first.params.length === 0 && second?.kind !== "LogfmtParser")) return undefined;
  let end = second?.kind === "LogfmtParser" ? 2 : 1;
  while (stages[end]?.kind === "LabelFilter" || stages[end]?.kind === "Drop") end++;
  const counting = parsedCounting(stages.slice(0, end), [], pushableName(derived, true));
  if (!counting || counting.counted === "") return undefined;
  const pipes = [
    ...counting.pipes,
    `filter (${counting.counted}) or ${sent}${counting.bad}`,
    `delete ${COUNTING_FIELDS.join(", ")}`,
  ];
  return pipes.map((p) => ` | ${p}`).join("");
}
