/** Line filters: `|=`/`!=` substring, `|~`/`!~` RE2 search, `|>`/`!>` pattern, `ip(...)`. */
import type { LineFilterStage, LineFilterValue } from "../../logql/ast";
import { compileGoRegexp } from "../../logql/go-regexp";
import { compileIpMatcher, containsMatchingIp } from "../../util/ip";
import { compilePattern, testPattern } from "./pattern";

type Test = (line: string) => boolean;

function compileValue(op: LineFilterStage["op"], value: LineFilterValue): Test {
  if (value.type === "ip") {
    const matcher = compileIpMatcher(value.cidr);
    return (line) => containsMatchingIp(line, matcher);
  }
  const text = value.value;
  switch (op) {
    case "|=":
    case "!=":
      if (text === "") return () => true;
      return (line) => line.includes(text);
    case "|~":
    case "!~": {
      const re = compileGoRegexp(text);
      return (line) => re.test(line);
    }
    case "|>":
    case "!>": {
      const p = compilePattern(text, false);
      return (line) => testPattern(p, line);
    }
  }
}

/** Whether a line passes the filter: for `!=`, `!~`, `!>` it must match none of the `or` values. */
export function lineFilterPredicate(stage: LineFilterStage): (line: string) => boolean {
  const tests = stage.values.map((v) => compileValue(stage.op, v));
  const negative = stage.op[0] === "!";
  if (tests.length === 1) {
    const t = tests[0]!;
    return negative ? (line) => !t(line) : t;
  }
  if (negative) return (line) => !tests.some((t) => t(line));
  return (line) => tests.some((t) => t(line));
}
