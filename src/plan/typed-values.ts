/**
 * What the origin needs of a label's values for its comparisons of them (a typed label filter's,
 * an `ip()` filter's) to keep the rows Loki keeps: the shapes every set value must have, and the
 * constants a value must not lie too close to. A row whose value breaks either is a guard row: the
 * Worker reads it and decides it as Loki does.
 */
import { quote } from "./logsql";

/** The typed filters that read a value with a unit. */
export type UnitKind = "duration" | "bytes";

/**
 * The origin's field holding the spelling of `field`'s value that a filter of `kind` compares:
 * VictoriaLogs (v1.121) reads `µs` (the micro sign) but neither `us` nor the Greek `μs`, which Go's
 * ParseDuration also takes, and byte units only in upper case with a lower-case `i` (`KiB`), where
 * go-humanize reads any case. typedValuePipes writes it, with those spellings made the ones
 * VictoriaLogs reads; the value's shape is tested on the value itself (TypedValues.shapes).
 */
export function unitField(kind: UnitKind, field: string): string {
  return `__guard_n${kind === "duration" ? "d" : "b"}${field}`;
}

export class TypedValues {
  /** Regexes every set value must match (VictoriaLogs and Go read the values of these alike). */
  readonly shapes = new Set<string>();
  /**
   * The unit filters over the label, by kind: the field holding its value, and the filters'
   * constants (nanoseconds, bytes). VictoriaLogs reads a value with a fraction (`12.3ms`, `1.2KB`)
   * through a float a unit in the last place from Go's and truncates the product, one short of Go's
   * reading at most (parser-pushdown.ts, VALUE_SHAPES): only a value read within one of a constant
   * can compare otherwise.
   */
  readonly units = new Map<UnitKind, { field: string; near: Set<number> }>();

  /** Registers a filter of `kind` over the label's value `field` with the constant `c`. */
  unit(kind: UnitKind, field: string, c: number): void {
    let entry = this.units.get(kind);
    if (!entry) this.units.set(kind, (entry = { field, near: new Set() }));
    entry.near.add(c);
  }
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
  for (const [kind, { near }] of values.units) {
    const compared = unitField(kind, field);
    for (const c of near) {
      terms.push(`(${compared}:~${quote(String.raw`\.`)} ${compared}:>=${c - 1} ${compared}:<=${c + 1})`);
    }
  }
  return terms;
}

/** Microseconds as Go's Duration.String() writes them (the micro sign), and in Greek. */
const MICRO = "\u00b5s";
const GREEK_MICRO = "\u03bcs";

/**
 * The pipes writing the unitField of each unit filter's label, after the label's value: a copy in
 * which `us` and `μs` read `µs` (a duration), or upper-cased with `i` lower-cased again (a byte
 * size: `1.5kib` reads `1.5KiB`). Only values of the filter's shape are compared as read: other
 * spellings (`1kıb`, whose dotless i upper-cases to `I`) are guard rows by that shape.
 */
export function typedValuePipes(typed: ReadonlyMap<string, TypedValues>): string[] {
  const pipes: string[] = [];
  for (const values of typed.values()) {
    for (const [kind, { field }] of values.units) {
      const compared = unitField(kind, field);
      if (kind === "duration") {
        pipes.push(
          `format ${quote(`<${field}>`)} as ${compared}`,
          `replace (${quote("us")}, ${quote(MICRO)}) at ${compared}`,
          `replace (${quote(GREEK_MICRO)}, ${quote(MICRO)}) at ${compared}`,
        );
      } else {
        pipes.push(`format ${quote(`<uc:${field}>`)} as ${compared}`, `replace ("I", "i") at ${compared}`);
      }
    }
  }
  return pipes;
}

/** The fields typedValuePipes writes. */
export function typedValueFields(typed: ReadonlyMap<string, TypedValues>): string[] {
  return [...typed.values()].flatMap((values) => [...values.units].map(([kind, { field }]) => unitField(kind, field)));
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
