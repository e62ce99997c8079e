/**
 * Pattern line filters (`|> "<_> msg=\"user authenticated\" <_>"`, `!>`; Logs Drilldown adds one
 * for each pattern a user includes or excludes) as LogsQL pipes VictoriaLogs evaluates exactly.
 *
 * Loki's test (engine/pipeline/pattern.ts `testPattern`): each literal is found at its FIRST
 * occurrence at or after the end of the previous one (the first literal anywhere in the line); a
 * literal right there, with nothing for the capture before it, fails; a pattern ending in a capture
 * needs text left for it, one ending in a literal needs none. An RE2 regex cannot say "first
 * occurrence", but VictoriaLogs' `extract` reads patterns exactly that way: it finds its first
 * literal anywhere and each capture runs to the first occurrence (Go's strings.Index) of the literal
 * after it; where a literal is missing it stops, leaving the capture before it and every later one
 * empty. So with every capture named, `<plain:…>` (which turns off its unquoting of captures that
 * start with a quoted string), and the rest of the line after a final literal captured too, Loki's
 * test holds exactly where every capture is non-empty and that rest is empty. Literals holding `&`
 * (which `extract` reads as HTML entities) or `<` (which starts a capture for it) keep the filter
 * in the Worker, as do patterns without a capture.
 */
import type { LineFilterStage } from "../logql/ast";
import { compilePattern } from "../engine/pipeline/pattern";
import { quote } from "./logsql";

/**
 * The pipes (without leading ` | `) that keep the lines passing `stage`, a `|>` / `!>` filter, or
 * undefined when it stays in the Worker. `index` tells the fields of one filter from another's. The
 * last pipe is a `filter`, so that filters appended to the query with a space join it.
 */
export function patternFilterPipes(stage: LineFilterStage, index: number): string[] | undefined {
  if (stage.op !== "|>" && stage.op !== "!>") return undefined;
  const pipes: string[] = [];
  const matches: string[] = [];
  for (const [a, value] of stage.values.entries()) {
    if (value.type !== "string") return undefined;
    const read = extraction(value.value, `__lpf${index}_${a}_`);
    if (!read) return undefined;
    pipes.push(`extract ${quote(read.pattern)}`);
    matches.push(read.matched);
  }
  const any = matches.length === 1 ? matches[0]! : `(${matches.join(" or ")})`;
  pipes.push(`filter ${stage.op === "!>" ? `!${any}` : any}`);
  return pipes;
}

/** The `extract` pattern reading `pattern` as Loki's test does, and the filter saying it passed. */
function extraction(pattern: string, prefix: string): { pattern: string; matched: string } | undefined {
  let nodes;
  try {
    nodes = compilePattern(pattern, false).nodes;
  } catch {
    return undefined;
  }
  if (!nodes.some((node) => "capture" in node)) return undefined;
  const fields: string[] = [];
  let text = "";
  for (const node of nodes) {
    if ("literal" in node) {
      if (/[&<]/.test(node.literal)) return undefined;
      text += node.literal;
    } else {
      const field = `${prefix}${fields.length}`;
      fields.push(field);
      text += `<plain:${field}>`;
    }
  }
  const terms = fields.map((field) => `${field}:*`);
  if ("literal" in nodes[nodes.length - 1]!) {
    const rest = `${prefix}rest`;
    text += `<plain:${rest}>`;
    terms.push(`${rest}:""`);
  }
  return { pattern: text, matched: `(${terms.join(" ")})` };
}
