/**
 * What the origin needs of a label's values for its comparisons of them (a typed label filter's,
 * an `ip()` filter's) to keep the rows Loki keeps: the shapes every set value must have, and the
 * constants a value must not lie too close to. A row whose value breaks either is a guard row: the
 * Worker reads it and decides it as Loki does.
 */
import { quote } from "./logsql";

export class TypedValues {
  /** Regexes every set value must match (VictoriaLogs and Go read the values of these alike). */
  readonly shapes = new Set<string>();
  /**
   * Constants of duration filters, in nanoseconds. VictoriaLogs reads a duration with a fraction
   * (`12.3ms`) through a float and truncates it, one nanosecond short of Go's exact reading at
   * most (parser-pushdown.ts, VALUE_SHAPES): only a value read within a nanosecond of a constant
   * can compare otherwise.
   */
  readonly near = new Set<number>();
}

/** The typed labels of a push-down, by name. */
export type TypedLabels = Map<string, TypedValues>;

/** The entry of `name`, made if new. */
export function typedLabel(typed: TypedLabels, name: string): TypedValues {
  let values = typed.get(name);
  if (!values) typed.set(name, (values = new TypedValues()));
  return values;
}

/** Guard terms over `field`, the origin's field holding the label's value, for what `values` needs. */
function typedGuardTerms(field: string, values: TypedValues | undefined): string[] {
  if (!values) return [];
  const terms = [...values.shapes].map((shape) => `(${field}:* -${field}:~${quote(shape)})`);
  for (const c of values.near)
    terms.push(`(${field}:~${quote(String.raw`\.`)} ${field}:>=${c - 1} ${field}:<=${c + 1})`);
  return terms;
}

/** A control character: a used value holding one is a guard row (valueGuardTerms). */
export const CONTROL = String.raw`[\x00-\x1f]`;

/**
 * Every guard term over a used label's value `field`: a control character anywhere (the
 * push-downs' reasons are in their headers; `control` says where one applies), then
 * typedGuardTerms. Where a shape applies, the control-character test is left out: every shape is
 * anchored at both ends and admits none (digits, `.`, `-`, unit letters), so a value holding one
 * is set and of no shape, and the shape's term counts it already. Each test is a regex run on
 * every row's value: one fewer is a few milliseconds per 100,000 rows the origin saves on every
 * typed filter.
 */
export function valueGuardTerms(
  field: string,
  values: TypedValues | undefined,
  /** Whether the control-character test applies: always, never, or on the rows a filter matches. */
  control: boolean | string = true,
): string[] {
  const typed = typedGuardTerms(field, values);
  if (control === false || (values && values.shapes.size > 0)) return typed;
  const test = `${field}:~${quote(CONTROL)}`;
  return [control === true ? test : `(${control} ${test})`, ...typed];
}
