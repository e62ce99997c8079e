/**
 * Line filters that read a line `line_format` made of one label's value, as the label filters they
 * amount to: the counting push-downs (parser-pushdown.ts, level-pushdown.ts) compute labels, not
 * reshaped lines.
 */
import type { LabelFilterExpr, LineFilterStage, PipelineStage } from "../logql/ast";
import { escapeRegex } from "./logsql";

/** `{{ .name }}` alone (trim markers as Go writes them): the line becomes the label's value. */
const LABEL_LINE = /^\{\{(?:- )? *\.([A-Za-z_][A-Za-z0-9_]*) *(?: -)?\}\}$/;

/**
 * The stages with each `|=` / `!=` of strings right after a `line_format "{{ .name }}"` read as
 * the label filter it is: the line is then the label's value (Loki's `missingkey=zero` makes a
 * missing label ""), so it holds a string exactly when the value matches `.*string.*` (the guard
 * sends rows whose relevant values hold a control character, a newline among them, to the Worker,
 * so `.` needs no flag). Undefined for other line filters after a `line_format` or `decolorize`,
 * which read a line the origin does not have.
 */
export function formattedLineFilters(stages: readonly PipelineStage[]): PipelineStage[] | undefined {
  const out: PipelineStage[] = [];
  // The label the line now is, "" for a line no longer the stored one nor a label's value.
  let line: string | undefined;
  for (const stage of stages) {
    if (stage.kind === "LineFormat") line = LABEL_LINE.exec(stage.template)?.[1] ?? "";
    else if (stage.kind === "Decolorize") line = "";
    else if (stage.kind !== "LineFilter") line = line === undefined ? undefined : "";
    if (stage.kind !== "LineFilter" || line === undefined) {
      out.push(stage);
      continue;
    }
    const filter = line === "" ? undefined : containsFilter(line, stage);
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
