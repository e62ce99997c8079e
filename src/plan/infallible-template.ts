/**
 * `line_format` and `label_format` templates whose execution cannot fail, which the push-downs may
 * pass over or render per group: a failing template marks its row with an error.
 */
import type { LabelFormatOp } from "../logql/ast";
import { ERROR_DETAILS_LABEL, ERROR_LABEL } from "../engine/pipeline/labels";

/**
 * Functions of one string that return a string for every string (Go's strings.ToLower, ToUpper,
 * TrimSpace and their sprig spellings): called on a label's value they cannot fail.
 */
const TOTAL_STRING_FUNCTIONS = "ToLower|ToUpper|TrimSpace|lower|upper|title|trim";
const FIELD = String.raw`\.[A-Za-z_][A-Za-z0-9_]*`;
/** `.name`, `.name | f | g` or `f .name`, with f and g among TOTAL_STRING_FUNCTIONS. */
const TOTAL_ACTION = new RegExp(
  String.raw`\{\{(?:- )? *(?:${FIELD}(?: *\| *(?:${TOTAL_STRING_FUNCTIONS}))*|(?:${TOTAL_STRING_FUNCTIONS}) +${FIELD}) *(?: -)?\}\}`,
  "g",
);

/**
 * Templates whose execution cannot fail: text and actions reading a label's value, possibly through
 * TOTAL_STRING_FUNCTIONS. Loki executes them with `missingkey=zero` over the map of labels, so a
 * missing key reads as "", a string like any other value (trim markers only as Go writes them,
 * `{{- ` and ` -}}`); any other action (another function, a method) could fail on some value and
 * mark the row TemplateFormatErr, an error the metric would fail on unless dropped.
 */
export function infallibleTemplate(template: string): boolean {
  return !template.replace(TOTAL_ACTION, "").includes("{{");
}

/** The labels one `label_format` operation sets, or renames away (`dst=src`: both). */
export function labelsTouched(op: LabelFormatOp): string[] {
  return op.isTemplate ? [op.dst] : [op.dst, op.src];
}

/**
 * Whether a push-down may pass over `op` where it touches no label the answer reads: its template
 * (if any) cannot fail, and it touches neither error label.
 */
export function passableLabelFormat(op: LabelFormatOp): boolean {
  if (op.isTemplate && !infallibleTemplate(op.src)) return false;
  return !labelsTouched(op).some((n) => n === ERROR_LABEL || n === ERROR_DETAILS_LABEL);
}
