/** Planning cost per query: selector and line filters → LogsQL, and sub-window splitting. */
import { bench, describe } from "vitest";
import type { LogSelectorExpr } from "../../src/logql/ast";
import { planLogQuery } from "../../src/plan/logquery";
import { splitWindows } from "../../src/exec/windows";

// Hand-built trees (no parser dependency): what `{app="nginx", namespace=~"prod|staging"} |= "GET"
// != "healthz" |~ "5\\d\\d" | pattern "<ip> <_>" | ip = ip("10.0.0.0/8")` parses to.
const heavy: LogSelectorExpr = {
  kind: "LogSelector",
  matchers: [
    { name: "app", op: "=", value: "nginx" },
    { name: "namespace", op: "=~", value: "prod|staging" },
  ],
  pipeline: [
    { kind: "LineFilter", op: "|=", values: [{ type: "string", value: "GET" }] },
    { kind: "LineFilter", op: "!=", values: [{ type: "string", value: "healthz" }] },
    { kind: "LineFilter", op: "|~", values: [{ type: "string", value: "5\\d\\d" }] },
    { kind: "PatternParser", pattern: "<ip> <_>" },
    { kind: "LabelFilter", filter: { type: "ip", name: "ip", op: "=", cidr: "10.0.0.0/8" } },
  ],
};
const simple: LogSelectorExpr = {
  kind: "LogSelector",
  matchers: [{ name: "app", op: "=", value: "nginx" }],
  pipeline: [],
};

const HOUR = 3_600_000_000_000n;
const T0 = 1_769_904_000_000_000_000n;

describe("planning", () => {
  bench("planLogQuery: bare selector", () => {
    planLogQuery(simple);
  });
  bench("planLogQuery: selector + 3 line filters + parser + label filter", () => {
    planLogQuery(heavy);
  });
  bench("splitWindows: 72 h into 1 h windows", () => {
    splitWindows({ start: T0 + 123n, end: T0 + 72n * HOUR }, HOUR, true);
  });
  bench("splitWindows: 30 d into 5 m windows", () => {
    splitWindows({ start: T0, end: T0 + 720n * HOUR }, 300_000_000_000n, true);
  });
});
