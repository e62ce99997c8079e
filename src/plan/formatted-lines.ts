/**
 * Line filters that read a line `line_format` made, as the label filters they amount to: the
 * counting push-downs (parser-pushdown.ts, level-pushdown.ts) compute labels, not reshaped lines.
 */
import type { LabelFilterExpr, LineFilterStage, PipelineStage } from "../logql/ast";
import { escapeRegex } from "./logsql";

/** `{{ .name }}` alone (trim markers as Go writes them): the line becomes the label's value. */
const LABEL_LINE = /^\{\{(?:- )? *\.([A-Za-z_][A-Za-z0-9_]*) *(?: -)?\}\}$/;

/**
 * The label a line made by a template of several labels stands as (`__formatted_line_<n>`): a
 * name starting with `__`, which the counting push-downs take for no label of the row or the
 * answer (they read only names starting with a letter), so it is set by the `label_format` this
 * module writes and nothing else.
 */
const FORMATTED_LINE = "__formatted_line_";

/** Whether `name` is a label standing for a formatted line. */
function isFormattedLine(name: string): boolean {
  return name.startsWith(FORMATTED_LINE);
}

/**
 * The stages with each line filter after a `line_format` read as the label filter it is:
 * - after `line_format "{{ .name }}"`, `|=` / `!=` of strings: the line is then the label's value
 *   (Loki's `missingkey=zero` makes a missing label ""), so it holds a string exactly when the
 *   value matches `.*string.*` (the guard sends rows whose relevant values hold a control
 *   character, a newline among them, to the Worker, so `.` needs no flag);
 * - after any other template, `|=`, `!=`, `|~` and `!~` of strings and regexes: the template is
 *   written as a `label_format` of a label standing for the line (FORMATTED_LINE) and each filter
 *   as a string filter on it, which a push-down that renders templates from the labels they read
 *   (ParsedCounting.templateFilters) applies to each group's rendered line. A template it cannot
 *   render (one reading the line or the time, or one that may fail) declines it there.
 * Undefined for other line filters after a `line_format` or `decolorize`, which read a line the
 * origin does not have.
 */
export function formattedLineFilters(stages: readonly PipelineStage[]): PipelineStage[] | undefined {
  // A query naming such a label itself (in a filter, a template, a drop…) reads another label.
  if (JSON.stringify(stages).includes(FORMATTED_LINE)) return undefined;
  const out: PipelineStage[] = [];
  // The label the line now is, "" for a line no longer the stored one nor a label's value.
  let line: string | undefined;
  let formatted = 0;
  for (const stage of stages) {
    if (stage.kind === "LineFormat") {
      line = LABEL_LINE.exec(stage.template)?.[1];
      if (line === undefined) {
        line = `${FORMATTED_LINE}${formatted++}`;
        out.push({ kind: "LabelFormat", ops: [{ dst: line, src: stage.template, isTemplate: true }] });
      }
    } else if (stage.kind === "Decolorize") line = "";
    else if (stage.kind !== "LineFilter") line = line === undefined ? undefined : "";
    if (stage.kind !== "LineFilter" || line === undefined) {
      out.push(stage);
      continue;
    }
    const filter =
      line === "" ? undefined : isFormattedLine(line) ? lineFilter(line, stage) : containsFilter(line, stage);
    if (!filter) return undefined;
    out.push({ kind: "LabelFilter", filter });
  }
  return out;
}

/** `|= "a" or "b"` / `!= "a" or "b"` on a line that is `name`'s value, as a label filter on `name`. */
function containsFilter(name: string, stage: LineFilterStage): LabelFilterExpr | undefined {
  if (stage.op !== "|=" && stage.op !== "!=") return undefined;
  const needles: string[] = [];
  for (const v of stage.values) {
    if (v.type !== "string") return undefined;
    needles.push(escapeRegex(v.value));
  }
  return { type: "string", name, op: stage.op === "|=" ? "=~" : "!~", value: `.*(?:${needles.join("|")}).*` };
}

/**
 * A line filter of strings or regexes on a line rendered into `name`, as a label regex on it: the
 * label filter's regex matches the whole value, the line filter's anywhere in it, so the needles
 * are wrapped in `(?s:.*)`, which also spans a newline the template itself writes.
 */
function lineFilter(name: string, stage: LineFilterStage): LabelFilterExpr | undefined {
  const regex = stage.op === "|~" || stage.op === "!~";
  if (!regex && stage.op !== "|=" && stage.op !== "!=") return undefined;
  const needles: string[] = [];
  for (const v of stage.values) {
    if (v.type !== "string") return undefined;
    needles.push(`(?:${regex ? v.value : escapeRegex(v.value)})`);
  }
  const keep = stage.op === "|=" || stage.op === "|~";
  return { type: "string", name, op: keep ? "=~" : "!~", value: `(?s:.*)(?:${needles.join("|")})(?s:.*)` };
}
