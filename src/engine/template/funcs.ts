/**
 * How template functions are described to the executor: Go-typed parameters (so argument checks
 * and conversions behave like reflect-based calls in text/template) and an implementation.
 */

import type { GoValue } from "./values";

/**
 * Parameter types as Go declares them. "any" is interface{} (nil allowed), "value" is
 * reflect.Value (the builtins that see raw values), "time" is time.Time.
 */
export type ParamType = "string" | "int" | "float64" | "bool" | "any" | "value" | "time";

export interface CallEnv {
  /** The log line the template is formatting (`__line__`). */
  line: string;
  /** The entry timestamp in nanoseconds (`__timestamp__`). */
  ts: bigint;
}

export interface GoFunc {
  params: readonly ParamType[];
  /** Element type of a trailing variadic parameter. */
  variadic?: ParamType;
  /** Throws FuncError for Go's (value, error) returns and for panics. */
  fn: (args: GoValue[], env: CallEnv) => GoValue;
  /** Whether the result reads the current line or timestamp (for planning). */
  readsLine?: boolean;
  readsTimestamp?: boolean;
}

/** An error returned (or a panic raised) by a function: "error calling <name>: <message>". */
export class FuncError extends Error {}

export const GO_TYPE_NAMES: Record<ParamType, string> = {
  string: "string",
  int: "int",
  float64: "float64",
  bool: "bool",
  any: "interface {}",
  value: "reflect.Value",
  time: "time.Time",
};

/**
 * The most a template may produce for one line, and the longest string any function inside it may
 * return, in UTF-16 units (1 MiB). Loki has no such bound, but a Worker shares 128 MB between every
 * request of its isolate: `{{ repeat 20000000 "x" }}` or a `range` that prints the line once per
 * character would take it all. Past the bound the line gets Loki's template error (TemplateFormatErr)
 * and keeps its text, as for any template that fails on a line.
 */
export const TEMPLATE_OUTPUT_LIMIT = 1 << 20;
