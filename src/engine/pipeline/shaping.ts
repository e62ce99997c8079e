/** Stages that reshape an entry without parsing it: decolorize, drop and keep. */
import type { LabelSelectorItem } from "../../logql/ast";
import { compileGoRegexp, replaceAll } from "../../logql/go-regexp";
import { stringMatcher } from "./labelfilter";
import { ERROR_DETAILS_LABEL, ERROR_LABEL, type LabelsBuilder } from "./labels";
import type { Stage } from "./stage";

/**
 * ANSI escape sequences (CSI colour/cursor codes, OSC strings ending in BEL), as Loki's decolorize
 * strips them, in Go syntax: on V8's backtracking engine this pattern is quadratic in a run of `;`
 * after an escape character, so it runs on the linear engine like user patterns.
 */
const ANSI =
  "[\\x{1b}\\x{9b}][[\\]()#;?]*(?:(?:(?:[a-zA-Z\\d]*(?:;[a-zA-Z\\d]*)*)?\\x{07})|(?:(?:\\d{1,4}(?:;\\d{0,4})*)?[\\dA-PRZcf-ntqry=><~]))";

export function decolorizeStage(): Stage {
  const re = compileGoRegexp(ANSI);
  return (_ts, line) => (line.includes("\u001b") || line.includes("\u009b") ? replaceAll(re, line, () => "") : line);
}

interface CompiledSelector {
  name: string;
  /** Present for `name="value"` items: the label is selected only when its value matches. */
  test?: (value: string) => boolean;
}

function compileSelectors(items: LabelSelectorItem[]): CompiledSelector[] {
  return items.map((item) =>
    item.matcher
      ? { name: item.matcher.name, test: stringMatcher(item.matcher.op, item.matcher.value) }
      : { name: item.name },
  );
}

export function dropStage(items: LabelSelectorItem[]): Stage {
  const selectors = compileSelectors(items);
  return (_ts, line, b) => {
    for (const s of selectors) {
      if (s.name === ERROR_LABEL) {
        if (!s.test || s.test(b.err)) b.err = "";
        continue;
      }
      if (s.name === ERROR_DETAILS_LABEL) {
        if (!s.test || s.test(b.errDetails)) b.errDetails = "";
        continue;
      }
      const v = b.get(s.name);
      if (s.test) {
        if (s.test(v ?? "")) b.del(s.name);
      } else if (v !== undefined) {
        b.del(s.name);
      }
    }
    return line;
  };
}

function currentLabelNames(b: LabelsBuilder): [string, string][] {
  const m = b.toMap();
  return Object.entries(m);
}

/** Keeps only the selected labels; the error labels are never removed by keep. */
export function keepStage(items: LabelSelectorItem[]): Stage {
  const selectors = compileSelectors(items);
  return (_ts, line, b) => {
    if (selectors.length === 0) return line;
    for (const [name, value] of currentLabelNames(b)) {
      if (name === ERROR_LABEL || name === ERROR_DETAILS_LABEL) continue;
      let keep = false;
      for (const s of selectors) {
        if (s.name === name && (!s.test || s.test(value))) {
          keep = true;
          break;
        }
      }
      if (!keep) b.del(name);
    }
    return line;
  };
}
