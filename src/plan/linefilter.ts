/**
 * Line filters → LogsQL filters on `_msg`, where the translation is exact:
 * - `|=`/`!=` are substring matches: a regex of the escaped literal (LogsQL word filters are
 *   token-based and would not match inside words);
 * - `|~`/`!~` are Go RE2 on both sides, unanchored on both sides;
 * - `or` chains become a disjunction; the negative forms match none of the alternatives;
 * - an empty literal is in every line, an empty line's too.
 * Pattern filters (`|>`) need pipes (pattern-filter.ts); `ip()` filters have no exact LogsQL
 * equivalent and stay in the Worker.
 */
import type { LineFilterStage } from "../logql/ast";
import { escapeRegex, quote } from "./logsql";

export function lineFilterToLogsQL(stage: LineFilterStage): string | undefined {
  const alternatives: string[] = [];
  for (const v of stage.values) {
    if (v.type !== "string") return undefined;
    switch (stage.op) {
      case "|=":
      case "!=":
        // Every line holds "": with it among the alternatives `|=` keeps every row and `!=` none
        // (Grafana's query builder starts a query with `|= ""`).
        if (v.value === "") return stage.op === "|=" ? "*" : "!*";
        alternatives.push(`_msg:~${quote(escapeRegex(v.value))}`);
        break;
      case "|~":
      case "!~":
        alternatives.push(`_msg:~${quote(v.value)}`);
        break;
      default:
        return undefined;
    }
  }
  const positive = alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(" or ")})`;
  const negative = stage.op === "!=" || stage.op === "!~";
  return negative ? `!${positive.startsWith("(") ? positive : `(${positive})`}` : positive;
}
