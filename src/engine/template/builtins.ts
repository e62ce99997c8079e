/** text/template's predefined functions, with Go's semantics and error messages. */

import { FuncError, type GoFunc } from "./funcs";
import { sprint, sprintf, sprintln } from "./gofmt";
import { isPrint } from "../../core/go/strconv";
import { queryEscape } from "./urlcodec";
import {
  GoInt,
  GoMap,
  GoSlice,
  LabelMap,
  basicKind,
  compareGoStrings,
  formatValue,
  fromUtf8,
  goInt,
  isAscii,
  isTrue,
  typeName,
  utf8Bytes,
  utf8Length,
  type BasicKind,
  type GoValue,
} from "./values";

function incompatible(a: GoValue, b: GoValue): FuncError {
  return new FuncError(`incompatible types for comparison: ${typeName(a)} and ${typeName(b)}`);
}

function eqPair(a: GoValue, b: GoValue): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 !== k2) {
    if ((k1 === "int" && k2 === "uint") || (k1 === "uint" && k2 === "int")) return (a as GoInt).v === (b as GoInt).v;
    if (k1 !== "invalid" && k2 !== "invalid") throw incompatible(a, b);
    return false;
  }
  switch (k1) {
    case "bool":
    case "string":
    case "float":
      return a === b;
    case "int":
    case "uint":
      return (a as GoInt).v === (b as GoInt).v;
    case "invalid":
      return true;
  }
  // composite values: maps and slices cannot be compared
  throw new FuncError(`non-comparable types ${formatValue(a)}: ${typeName(a)}, ${typeName(b)}: ${formatValue(b)}`);
}

function eq(args: GoValue[]): boolean {
  const [a, ...rest] = args;
  if (rest.length === 0) throw new FuncError("missing argument for comparison");
  for (const b of rest) if (eqPair(a, b)) return true;
  return false;
}

function lessThan(a: GoValue, b: GoValue): boolean {
  const k1: BasicKind = basicKind(a);
  const k2: BasicKind = basicKind(b);
  if (k1 === "invalid" || k1 === "other" || k2 === "invalid" || k2 === "other") {
    throw new FuncError("invalid type for comparison");
  }
  if (k1 !== k2) {
    if ((k1 === "int" && k2 === "uint") || (k1 === "uint" && k2 === "int")) return (a as GoInt).v < (b as GoInt).v;
    throw incompatible(a, b);
  }
  switch (k1) {
    case "bool":
      throw new FuncError("invalid type for comparison");
    case "float":
      return (a as number) < (b as number);
    case "string":
      return compareGoStrings(a as string, b as string) < 0;
    default:
      return (a as GoInt).v < (b as GoInt).v;
  }
}

function length(v: GoValue): GoValue {
  if (typeof v === "string") return goInt(utf8Length(v));
  if (v instanceof LabelMap) return goInt(Object.keys(v.labels).length);
  if (v instanceof GoMap) return goInt(v.entries.size);
  if (v instanceof GoSlice) return goInt(v.items.length);
  if (v === undefined || v === null) throw new FuncError("reflect: call of reflect.Value.Type on zero Value");
  throw new FuncError(`len of type ${typeName(v)}`);
}

function indexArg(i: GoValue, cap: number): number {
  if (!(i instanceof GoInt)) {
    if (i === undefined || i === null) throw new FuncError("cannot index slice/array with nil");
    throw new FuncError(`cannot index slice/array with type ${typeName(i)}`);
  }
  if (i.v < 0n || i.v > BigInt(cap)) throw new FuncError(`index out of range: ${i.v}`);
  return Number(i.v);
}

function index(args: GoValue[]): GoValue {
  let item = args[0];
  if (item === undefined || item === null) throw new FuncError("index of untyped nil");
  for (const key of args.slice(1)) {
    if (typeof item === "string") {
      const bytes = utf8Bytes(item);
      const x = indexArg(key, bytes.length);
      // indexArg admits x == len; reflect then panics
      if (x === bytes.length) throw new FuncError("reflect: string index out of range");
      item = new GoInt("uint8", BigInt(bytes[x]!));
    } else if (item instanceof GoSlice) {
      const x = indexArg(key, item.items.length);
      if (x === item.items.length) throw new FuncError("reflect: slice index out of range");
      item = item.items[x] ?? null;
    } else if (item instanceof LabelMap || item instanceof GoMap) {
      if (typeof key !== "string") {
        if (key === undefined || key === null) throw new FuncError("value is nil; should be of type string");
        throw new FuncError(`value has type ${typeName(key)}; should be string`);
      }
      item = item instanceof LabelMap ? (item.labels[key] ?? "") : (item.entries.get(key) ?? null);
    } else if (item === null || item === undefined) {
      throw new FuncError("index of nil pointer");
    } else {
      throw new FuncError(`can't index item of type ${typeName(item)}`);
    }
  }
  return item;
}

function slice(args: GoValue[]): GoValue {
  const item = args[0];
  const idx = args.slice(1);
  if (item === undefined || item === null) throw new FuncError("slice of untyped nil");
  if (idx.length > 3) throw new FuncError(`too many slice indexes: ${idx.length}`);
  let cap: number;
  if (typeof item === "string") {
    if (idx.length === 3) throw new FuncError("cannot 3-index slice a string");
    cap = utf8Length(item);
  } else if (item instanceof GoSlice) cap = item.items.length;
  else throw new FuncError(`can't slice item of type ${typeName(item)}`);
  const bounds = [0, cap];
  for (let i = 0; i < idx.length; i++) bounds[i] = indexArg(idx[i], cap);
  if (idx.length < 2) bounds[1] = cap;
  if (bounds[0]! > bounds[1]!) throw new FuncError(`invalid slice index: ${bounds[0]} > ${bounds[1]}`);
  if (idx.length === 3 && bounds[1]! > bounds[2]!)
    throw new FuncError(`invalid slice index: ${bounds[1]} > ${bounds[2]}`);
  if (typeof item === "string") {
    if (isAscii(item)) return item.slice(bounds[0], bounds[1]);
    return fromUtf8(utf8Bytes(item).slice(bounds[0], bounds[1]));
  }
  return new GoSlice(item.items.slice(bounds[0], bounds[1]));
}

/** Go's evalArgs for html/js/urlquery: a lone string as is, anything else through fmt.Sprint. */
function argsText(args: GoValue[]): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  return sprint(args.map((a) => (a === undefined || a === null ? "<no value>" : a)));
}

function htmlEscape(s: string): string {
  return s.replace(/[<>&'"\0]/g, (c) => {
    switch (c) {
      case "<":
        return "&lt;";
      case ">":
        return "&gt;";
      case "&":
        return "&amp;";
      case "'":
        return "&#39;";
      case '"':
        return "&#34;";
      default:
        return "\uFFFD";
    }
  });
}

function jsEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case "\\":
        out += "\\\\";
        continue;
      case "'":
        out += "\\'";
        continue;
      case '"':
        out += '\\"';
        continue;
      case "<":
        out += "\\u003C";
        continue;
      case ">":
        out += "\\u003E";
        continue;
      case "&":
        out += "\\u0026";
        continue;
      case "=":
        out += "\\u003D";
        continue;
    }
    if (cp < 0x20) out += "\\u00" + cp.toString(16).toUpperCase().padStart(2, "0");
    else if (cp < 0x80 || isPrint(cp)) out += ch;
    else out += "\\u" + cp.toString(16).toUpperCase().padStart(4, "0");
  }
  return out;
}

export const BUILTINS: ReadonlyMap<string, GoFunc> = new Map<string, GoFunc>([
  // and/or are special-cased by the executor (lazy operands)
  ["and", { params: ["value"], variadic: "value", fn: () => undefined }],
  ["or", { params: ["value"], variadic: "value", fn: () => undefined }],
  ["not", { params: ["value"], fn: (a) => !isTrue(a[0]) }],
  ["len", { params: ["value"], fn: (a) => length(a[0]) }],
  ["index", { params: ["value"], variadic: "value", fn: (a) => index(a) }],
  ["slice", { params: ["value"], variadic: "value", fn: (a) => slice(a) }],
  [
    "call",
    {
      params: ["value"],
      variadic: "value",
      fn: (a) => {
        const f = a[0];
        if (f === undefined || f === null) throw new FuncError("call of nil");
        throw new FuncError(`non-function ${formatValue(f)} of type ${typeName(f)}`);
      },
    },
  ],
  ["print", { params: [], variadic: "any", fn: (a) => sprint(a) }],
  ["println", { params: [], variadic: "any", fn: (a) => sprintln(a) }],
  ["printf", { params: ["string"], variadic: "any", fn: (a) => sprintf(a[0] as string, a.slice(1)) }],
  ["html", { params: [], variadic: "any", fn: (a) => htmlEscape(argsText(a)) }],
  ["js", { params: [], variadic: "any", fn: (a) => jsEscape(argsText(a)) }],
  ["urlquery", { params: [], variadic: "any", fn: (a) => queryEscape(argsText(a)) }],
  ["eq", { params: ["value"], variadic: "value", fn: (a) => eq(a) }],
  ["ne", { params: ["value", "value"], fn: (a) => !eq(a) }],
  ["lt", { params: ["value", "value"], fn: (a) => lessThan(a[0], a[1]) }],
  ["le", { params: ["value", "value"], fn: (a) => lessThan(a[0], a[1]) || eq(a) }],
  ["gt", { params: ["value", "value"], fn: (a) => !(lessThan(a[0], a[1]) || eq(a)) }],
  ["ge", { params: ["value", "value"], fn: (a) => !lessThan(a[0], a[1]) }],
]);
