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

/** The line is the last `line_format`'s, rendered into a label of its own when a filter reads it. */
const RENDERED = "\u0000rendered";

/**
 * The stages with each line filter after a `line_format` read as the label filter it is:
 * - after `line_format "{{ .name }}"`, `|=` / `!=` of strings: the line is then the label's value
 *   (Loki's `missingkey=zero` makes a missing label ""), so it holds a string exactly when the
 *   value matches `(?s:.*)(?:string)(?s:.*)`, a newline before or after it too (the origin tests
 *   such a regex as a substring search, logsql.ts `stringMatch`);
 * - otherwise, `|=`, `!=`, `|~` and `!~` of strings and regexes: the template is written as a
 *   `label_format` of a label standing for the line (FORMATTED_LINE), where the `line_format`
 *   stands, and each filter as a string filter on it, which a push-down that renders templates from
 *   the labels they read (ParsedCounting.templateFilters) applies to each group's rendered line.
 *   A template it cannot render (one reading the line or the time, or one that may fail) declines
 *   it there.
 * Undefined for other line filters, and for any after a `decolorize` that follows a `line_format`:
 * they read a line the origin does not have.
 */
export function formattedLineFilters(stages: readonly PipelineStage[]): PipelineStage[] | undefined {
  // A query naming such a label itself (in a filter, a template, a drop…) reads another label.
  if (JSON.stringify(stages).includes(FORMATTED_LINE)) return undefined;
  const out: PipelineStage[] = [];
  // The label the line now is, RENDERED for the last `line_format`'s line, "" for a line the
  // origin cannot have (decolorized after a `line_format`), undefined for the stored line.
  let line: string | undefined;
  // The last `line_format`: its template, where it stands in `out`, and the label standing for
  // its line once written.
  let format: { template: string; at: number; label?: string } | undefined;
  let formatted = 0;
  /** The label standing for the last `line_format`'s line, written before it on first use. */
  const formattedLine = (): string => {
    if (!format!.label) {
      format!.label = `${FORMATTED_LINE}${formatted++}`;
      const op = { dst: format!.label, src: format!.template, isTemplate: true };
      out.splice(format!.at, 0, { kind: "LabelFormat", ops: [op] });
    }
    return format!.label;
  };
  for (const stage of stages) {
    if (stage.kind === "LineFormat") {
      format = { template: stage.template, at: out.length };
      line = LABEL_LINE.exec(stage.template)?.[1] ?? RENDERED;
    } else if (stage.kind === "Decolorize") line = "";
    // Other stages leave the line as it is, but may change the label it was made of.
    else if (stage.kind !== "LineFilter" && line !== undefined && line !== "") line = RENDERED;
    if (stage.kind !== "LineFilter" || line === undefined) {
      out.push(stage);
      continue;
    }
    const filter =
      line === ""
        ? undefined
        : line === RENDERED
          ? lineFilter(formattedLine(), stage)
          : (containsFilter(line, stage) ?? lineFilter(formattedLine(), stage));
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
  const value = `(?s:.*)(?:${needles.join("|")})(?s:.*)`;
  return { type: "string", name, op: stage.op === "|=" ? "=~" : "!~", value };
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
