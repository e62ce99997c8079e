/**
 * The dynamic values a template computes with, modelled on the Go types Loki's template engine
 * sees: strings, bools, float64, the integer kinds (int, int64, uint8), time.Time, the label map
 * (map[string]string), and what fromJson yields (map[string]interface{}, []interface{}).
 *
 * Go distinguishes `int` from `int64` when a value is passed to a typed parameter (`trunc` wants
 * an int and refuses the int64 that `add` returns), so integers carry their Go type name.
 * `undefined` is Go's invalid reflect.Value ("<no value>"); `null` is a nil interface inside a
 * decoded JSON document ("<nil>").
 */

import type { Labels } from "../types";
import { formatFloat } from "../../core/go/strconv";
import { GoTime } from "./gotime";

export type IntType = "int" | "int64" | "uint8";

export class GoInt {
  constructor(
    readonly type: IntType,
    readonly v: bigint,
  ) {}
}

/** map[string]interface{} from fromJson. */
export class GoMap {
  constructor(readonly entries: Map<string, GoValue>) {}
}

/** []interface{} from fromJson. */
export class GoSlice {
  constructor(readonly items: GoValue[]) {}
}

/** The template's data: Loki hands the engine the entry's labels as a map[string]string. */
export class LabelMap {
  constructor(readonly labels: Labels) {}
}

export type GoValue = string | boolean | number | GoInt | GoTime | GoMap | GoSlice | LabelMap | null | undefined;

export function goInt(n: number | bigint): GoInt {
  return new GoInt("int", BigInt(n));
}

export function goInt64(n: bigint): GoInt {
  return new GoInt("int64", BigInt.asIntN(64, n));
}

/** The Go type name, as text/template's error messages spell it. */
export function typeName(v: GoValue): string {
  switch (typeof v) {
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "number":
      return "float64";
    case "undefined":
      return "<nil>";
  }
  if (v === null) return "interface {}";
  if (v instanceof GoInt) return v.type;
  if (v instanceof GoTime) return "time.Time";
  if (v instanceof LabelMap) return "map[string]string";
  if (v instanceof GoMap) return "map[string]interface {}";
  return "[]interface {}";
}

/** Go's reflect kind families, as the comparison builtins group them. */
export type BasicKind = "bool" | "int" | "uint" | "float" | "string" | "invalid" | "other";

export function basicKind(v: GoValue): BasicKind {
  switch (typeof v) {
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "number":
      return "float";
    case "undefined":
      return "invalid";
  }
  if (v === null) return "invalid";
  if (v instanceof GoInt) return v.type === "uint8" ? "uint" : "int";
  return "other";
}

/** text/template's notion of truth (if, with, and, or, not). */
export function isTrue(v: GoValue): boolean {
  switch (typeof v) {
    case "string":
      return v.length > 0;
    case "boolean":
      return v;
    case "number":
      return v !== 0;
    case "undefined":
      return false;
  }
  if (v === null) return false;
  if (v instanceof GoInt) return v.v !== 0n;
  if (v instanceof GoTime) return true; // a struct is always true
  if (v instanceof LabelMap) return Object.keys(v.labels).length > 0;
  if (v instanceof GoMap) return v.entries.size > 0;
  return v.items.length > 0;
}

/** fmt's %v rendering, which is what `{{ pipeline }}` prints. */
export function formatValue(v: GoValue): string {
  switch (typeof v) {
    case "string":
      return v;
    case "boolean":
      return v ? "true" : "false";
    case "number":
      return formatFloat(v, "g", -1);
    case "undefined":
      return "<nil>";
  }
  if (v === null) return "<nil>";
  if (v instanceof GoInt) return v.v.toString();
  if (v instanceof GoTime) return v.toString();
  if (v instanceof LabelMap) {
    const keys = Object.keys(v.labels).sort(compareGoStrings);
    return "map[" + keys.map((k) => `${k}:${v.labels[k]}`).join(" ") + "]";
  }
  if (v instanceof GoMap) {
    const keys = [...v.entries.keys()].sort(compareGoStrings);
    return "map[" + keys.map((k) => `${k}:${formatValue(v.entries.get(k))}`).join(" ") + "]";
  }
  return "[" + v.items.map(formatValue).join(" ") + "]";
}

/** What the action `{{ x }}` writes: an invalid value prints as "<no value>". */
export function printValue(v: GoValue): string {
  if (typeof v === "string") return v;
  if (v === undefined || v === null) return "<no value>";
  return formatValue(v);
}

/**
 * Go compares strings bytewise in UTF-8, which orders supplementary characters after U+E000..U+FFFF;
 * UTF-16 code-unit order does not. Only surrogates need the correction.
 */
export function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    // a supplementary character (a surrogate here) sorts after every BMP character
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Go's len() of a string counts UTF-8 bytes. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function utf8Bytes(s: string): Uint8Array {
  return encoder.encode(s);
}

/** Bytes back to text; like Go's output encoders, invalid sequences become U+FFFD. */
export function fromUtf8(b: Uint8Array): string {
  return decoder.decode(b);
}
