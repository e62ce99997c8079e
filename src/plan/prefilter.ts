/**
 * Necessary conditions of label filters, sent to VictoriaLogs so fewer rows come back. The filters
 * themselves still run in the Worker with Loki's semantics; a prefilter only removes rows the
 * Worker's filter would drop anyway, so it can never change an answer.
 *
 * Why `label="v"` (v non-empty) implies `line contains v`, `line contains a backslash`, or
 * `field label = v`, while only these stages ran before the filter: line filters, `json` and
 * `logfmt` without parameters, `regexp`, `pattern`, label filters, `drop`, `keep`.
 * - A label is a stream label or structured metadata (VictoriaLogs has it as the field of that
 *   name), or was extracted from the original line by one of those parsers.
 * - `regexp` and `pattern` capture substrings of the line.
 * - `logfmt` values are substrings of the line unless quoted with escapes; `json` string values
 *   likewise unless escaped, and numbers and booleans are their literal text. Escapes need a
 *   backslash in the line.
 * - Label names do not matter: sanitised names, `_extracted` suffixes and json key flattening
 *   change names, never values.
 * - `drop`/`keep` and label filters only remove labels or rows.
 * Stages that rewrite the line or labels (`line_format`, `label_format`, `decolorize`, `unpack`,
 * parsers with parameters) end the region: filters after them get no prefilter. Before any stage
 * but line and label filters, a string filter is sent exactly (ownFieldCondition).
 */
import type { LabelFilterExpr, PipelineStage } from "../logql/ast";
import { escapeRegex, fieldName, isSpecialField, quote, stringMatch } from "./logsql";
import { fold } from "../logql/walk";
import { DETECTED_LEVEL } from "../engine/derived-fields";
import { levelFilterCondition } from "./level-filter";

/**
 * `_msg` holds a backslash or U+FFFD: the line has an escape, or a character the json stage drops
 * from values (`{"level":"er\uFFFDr"}` yields `level="err"`), so extracted values may differ from
 * its text.
 */
const LINE_HAS_ESCAPE = `_msg:~${quote("[\\\\\uFFFD]")}`;

/** LogsQL filters implied by the pipeline's label filters (possibly none). */
export function labelFilterPrefilters(
  pipeline: readonly PipelineStage[],
  derived: ReadonlySet<string> = new Set(),
): string[] {
  const out: string[] = [];
  // Until a stage that could set, change or remove a label, a label is the row's own field.
  let ownFields = true;
  for (const stage of pipeline) {
    if (stage.kind !== "LineFilter" && stage.kind !== "LabelFilter") ownFields = false;
    switch (stage.kind) {
      case "LineFilter":
      case "RegexpParser":
      case "PatternParser":
      case "Drop":
      case "Keep":
        continue;
      case "JsonParser":
      case "LogfmtParser":
        if (stage.params.length > 0) return out;
        continue;
      case "LabelFilter": {
        const condition = necessary(stage.filter, derived, ownFields);
        if (condition !== undefined) out.push(condition);
        continue;
      }
      default:
        return out;
    }
  }
  return out;
}

/**
 * A LogsQL filter every row passing `f` satisfies, or undefined when there is none to offer. With
 * `ownFields` (no stage before `f` could set, change or remove a label), string filters on names
 * the origin holds as fields are sent exactly (ownFieldCondition).
 */
function necessary(f: LabelFilterExpr, derived: ReadonlySet<string>, ownFields: boolean): string | undefined {
  return fold<string | undefined>(
    f,
    {
      LabelFilterExpr: (node, [left, right]) => {
        switch (node.type) {
          case "paren":
            return left;
          case "binary":
            if (node.op === "and") {
              if (left !== undefined && right !== undefined) return `${left} ${right}`;
              return left ?? right;
            }
            return left !== undefined && right !== undefined ? `(${left} or ${right})` : undefined;
          case "string":
            // The level the Worker derives has conditions of its own (level-filter.ts).
            if (node.name === DETECTED_LEVEL && derived.has(DETECTED_LEVEL)) return levelFilterCondition(node);
            if (ownFields && !node.name.startsWith("_") && !derived.has(node.name)) return ownFieldCondition(node);
            // Error labels and other derived fields are set by the Worker, not read from the line or
            // the origin's fields.
            if (
              node.op !== "=" ||
              node.value === "" ||
              node.name.startsWith("__") ||
              isSpecialField(node.name) ||
              derived.has(node.name)
            )
              return undefined;
            return `(_msg:~${quote(escapeRegex(node.value))} or ${LINE_HAS_ESCAPE} or ${fieldName(node.name)}:=${quote(node.value)})`;
          default:
            return undefined;
        }
      },
    },
    undefined,
  );
}

/**
 * A string filter on a label before any parser, exactly: the label is then a stream label or
 * structured metadata, which VictoriaLogs holds as the field of that name (a field it does not
 * have reads as "", as the Worker reads a missing label), and Loki's label regex is Go's, anchored
 * at both ends, as the origin's is here. Names starting with `_` are VictoriaLogs' own fields
 * (never labels in the Worker) and derived names the Worker's: those are not sent.
 */
export function ownFieldCondition(f: Extract<LabelFilterExpr, { type: "string" }>): string {
  return stringMatch(fieldName(f.name), f.op, f.value);
}
