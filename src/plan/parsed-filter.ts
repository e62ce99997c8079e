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
 * Which filters: the label filters (and `drop`s without matchers, line filters) right after one
 * parameterless parser, up to the first stage or filter that cannot be pushed. Later stages only
 * keep fewer rows, so leaving them out keeps a superset; a filter that cannot be pushed ends the
 * prefix because a typed filter sets an error that makes every later typed filter pass.
 *
 * Errors: Loki's numeric, duration and bytes filters keep a row that carries an error. A typed
 * filter's own conversion errors are caught by the guard (values outside the plain shapes, empty
 * values the line names). `| logfmt` without `--strict` never sets an error. A `| json` parser
 * error is possible on any line VictoriaLogs cannot read as one JSON object (when a typed filter
 * could see it, i.e. before any `drop __error__` or `__error__=""`), so those lines are sent too:
 * the line, inside `{"__o":<line>,"__s":1}`, must parse for VictoriaLogs to yield `__s`. If it
 * does, the line starts with a complete JSON object VictoriaLogs accepts, which Loki's scanner
 * reads without error unless it holds what the guard already looks for (escapes, control
 * characters, numbers only VictoriaLogs reads); anything after that object Loki ignores.
 */
import type { LabelFilterExpr, LogSelectorExpr, PipelineStage } from "../logql/ast";
import type { DerivedFieldRules } from "../engine/derived-fields";
import { quote } from "./logsql";
import { filterLogsQL, guard, type Parser, parsedValueFields, parsedValuePipes, pushableName } from "./parser-pushdown";
import { RepeatCounters } from "./unwrap-pushdown";
import { type LogQueryPlan, planLogQuery, type PlanOptions } from "./logquery";

const ERROR = "__error__";
/** Fields of the JSON readability check. */
const WRAPPED = "__lf_w";
const READ = "__lf__s";

/**
 * The log query's plan for reading its rows as they are (log queries, metrics evaluated in the
 * Worker): planLogQuery's, with the parsed fields' filter after it when prefilters are on.
 */
export function planLogRows(expr: LogSelectorExpr, opts: PlanOptions = {}): LogQueryPlan {
  const plan = planLogQuery(expr, opts);
  if (opts.prefilter === false) return plan;
  const pipes = parsedFilterPipes(plan.local, opts.derived);
  return pipes === undefined ? plan : { ...plan, logsql: plan.logsql + pipes };
}

/**
 * The LogsQL pipes (starting with ` | `) that keep only rows the stages in `local` could keep,
 * or undefined when nothing can be pushed. `local` is the log query's pipeline as the Worker runs it.
 */
export function parsedFilterPipes(local: readonly PipelineStage[], derived?: DerivedFieldRules): string | undefined {
  const at = local.findIndex((s) => s.kind !== "LineFilter");
  const first = local[at];
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
  // Whether a JSON parser error may still be on the row when a typed filter runs.
  let errorsVisible = parser === "json";
  let typedSeesErrors = false;
  for (const stage of local.slice(at + 1)) {
    if (stage.kind === "LineFilter") continue;
    if (stage.kind === "Drop") {
      if (stage.items.some((item) => item.matcher)) break;
      for (const item of stage.items) dropped.add(item.name);
      if (dropped.has(ERROR)) errorsVisible = false;
      continue;
    }
    if (stage.kind !== "LabelFilter") break;
    const f = stage.filter;
    if (f.type === "string" && f.name === ERROR && f.op === "=" && f.value === "") {
      // Rows with an error go; the rest reach later filters without one.
      errorsVisible = false;
      continue;
    }
    const read = new Set<string>();
    const condition = filterLogsQL(f, typed, read, usable);
    if (condition === undefined || [...read].some((n) => dropped.has(n))) break;
    for (const n of read) names.add(n);
    if (errorsVisible && hasTypedFilter(f)) typedSeesErrors = true;
    if (condition !== "") conditions.push(condition);
  }
  if (conditions.length === 0) return undefined;

  const relevant = [...names];
  const repeats = new RepeatCounters();
  const terms = [guard(parser, relevant, typed, repeats)];
  const pipes = parsedValuePipes(parser, relevant, repeats);
  const fields = parsedValueFields(parser, relevant, repeats);
  if (typedSeesErrors) {
    pipes.push(
      `format ${quote(`{"__o":<_msg>,"__s":1}`)} as ${WRAPPED}`,
      `unpack_json from ${WRAPPED} fields (__s) result_prefix ${quote("__lf")}`,
    );
    terms.push(`${READ}:""`, `-_msg:~${quote(String.raw`^[\t\n\r ]*\{`)}`);
    fields.push(WRAPPED, READ);
  }
  pipes.push(`filter (${conditions.join(" ")}) or ${terms.join(" or ")}`);
  // The Worker ignores fields starting with `_`; deleted, they do not cross the network.
  pipes.push(`delete ${fields.join(", ")}`);
  return pipes.map((p) => ` | ${p}`).join("");
}

function hasTypedFilter(f: LabelFilterExpr): boolean {
  switch (f.type) {
    case "number":
    case "duration":
    case "bytes":
    case "ip":
      return true;
    case "paren":
      return hasTypedFilter(f.expr);
    case "binary":
      return hasTypedFilter(f.left) || hasTypedFilter(f.right);
    default:
      return false;
  }
}
