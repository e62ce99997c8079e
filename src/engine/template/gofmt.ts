/**
 * Go's fmt.Sprint, Sprintln and Sprintf over template values (the `print`, `println` and `printf`
 * builtins), including fmt's inline error forms such as "%!d(string=abc)" and "%!s(MISSING)".
 */

import { type FloatFormat, formatFloat, quote as goQuote, quoteRune as goQuoteRune } from "../../core/go/strconv";
import { GoTime } from "./gotime";
import {
  GoInt,
  GoMap,
  GoSlice,
  LabelMap,
  compareGoStrings,
  formatValue,
  typeName,
  utf8Bytes,
  type GoValue,
} from "./values";

export function sprint(args: GoValue[]): string {
  let out = "";
  let prevString = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const isString = typeof a === "string";
    if (i > 0 && !isString && !prevString) out += " ";
    out += formatValue(a);
    prevString = isString;
  }
  return out;
}

export function sprintln(args: GoValue[]): string {
  return args.map(formatValue).join(" ") + "\n";
}

interface Flags {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  wid: number | null;
  prec: number | null;
}

function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

function pad(s: string, f: Flags, zeroOk = true): string {
  if (f.wid === null) return s;
  const n = f.wid - runeCount(s);
  if (n <= 0) return s;
  if (f.minus) return s + " ".repeat(n);
  if (f.zero && zeroOk) return "0".repeat(n) + s;
  return " ".repeat(n) + s;
}

const isNil = (v: GoValue): boolean => v === null || v === undefined;

/** fmt's "%!d(string=abc)": the operand is printed with %v under the same flags. */
function badVerb(verb: string, v: GoValue, f?: Flags): string {
  if (isNil(v)) return `%!${verb}(<nil>)`;
  const shown = f ? printArg(v, "v", f) : formatValue(v);
  return `%!${verb}(${typeName(v)}=${shown})`;
}

function fmtInteger(v: bigint, verb: string, f: Flags): string {
  const neg = v < 0n;
  const abs = neg ? -v : v;
  let digits: string;
  let prefix = "";
  switch (verb) {
    case "v":
    case "d":
      digits = abs.toString();
      break;
    case "b":
      digits = abs.toString(2);
      if (f.sharp) prefix = "0b";
      break;
    case "o":
    case "O":
      digits = abs.toString(8);
      if (verb === "O") prefix = "0o";
      else if (f.sharp && digits !== "0") digits = "0" + digits;
      break;
    case "x":
      digits = abs.toString(16);
      if (f.sharp) prefix = "0x";
      break;
    case "X":
      digits = abs.toString(16).toUpperCase();
      if (f.sharp) prefix = "0X";
      break;
    case "c":
      return pad(String.fromCodePoint(validRune(v)), f);
    case "q":
      return pad(goQuoteRune(Number(v)), f);
    case "U": {
      let s = "U+" + abs.toString(16).toUpperCase().padStart(4, "0");
      if (f.sharp && v >= 0n && v <= 0x10ffffn) s += ` '${String.fromCodePoint(Number(v))}'`;
      return pad(s, f);
    }
    default:
      return "";
  }
  if (f.prec !== null) {
    // precision 0 prints nothing for zero, not even a sign
    if (f.prec === 0 && abs === 0n) return f.wid !== null ? " ".repeat(f.wid) : "";
    digits = digits.padStart(f.prec, "0");
  } else if (f.zero && !f.minus && f.wid !== null) {
    const signLen = neg || f.plus || f.space ? 1 : 0;
    digits = digits.padStart(f.wid - signLen - prefix.length, "0");
  }
  const sign = neg ? "-" : f.plus ? "+" : f.space ? " " : "";
  return pad(sign + prefix + digits, { ...f, zero: false });
}

function validRune(v: bigint): number {
  if (v < 0n || v > 0x10ffffn || (v >= 0xd800n && v <= 0xdfffn)) return 0xfffd;
  return Number(v);
}

function fmtFloat(v: number, verb: string, f: Flags): string {
  let fv: FloatFormat;
  let prec = f.prec ?? -1;
  switch (verb) {
    case "v":
    case "g":
      fv = "g";
      break;
    case "G":
      fv = "G";
      break;
    case "e":
    case "E":
      fv = verb;
      if (f.prec === null) prec = 6;
      break;
    case "f":
    case "F":
      fv = "f";
      if (f.prec === null) prec = 6;
      break;
    case "x":
    case "X": {
      let hexNum = formatFloat(v, verb, f.prec ?? -1);
      if (hexNum[0] !== "-") hexNum = (f.plus ? "+" : f.space ? " " : "") + hexNum;
      return pad(hexNum, f, false);
    }
    default:
      return badVerb(verb, v, f);
  }
  let num = formatFloat(v, fv, prec);
  if (num[0] !== "-" && num[0] !== "+") num = (f.plus ? "+" : f.space ? " " : "") + num;
  if (num === "+Inf" && !f.plus) num = f.space ? " Inf" : "+Inf";
  if (f.zero && f.wid !== null && Number.isFinite(v) && f.wid > num.length) {
    const signed = num[0] === "-" || num[0] === "+" || num[0] === " ";
    const sign = signed ? num[0]! : "";
    const body = signed ? num.slice(1) : num;
    return sign + "0".repeat(f.wid - num.length) + body;
  }
  return pad(num, f, false);
}

function fmtString(s: string, verb: string, f: Flags): string {
  if (f.prec !== null && verb !== "x" && verb !== "X") s = [...s].slice(0, f.prec).join("");
  switch (verb) {
    case "v":
    case "s":
      return pad(s, f, true);
    case "q":
      return pad(f.sharp && !s.includes("`") && !/[\x00-\x08\x0a-\x1f\x7f]/.test(s) ? "`" + s + "`" : goQuote(s), f);
    case "x":
    case "X": {
      let bytes = utf8Bytes(s);
      if (f.prec !== null) bytes = bytes.slice(0, f.prec);
      let out = "";
      for (let i = 0; i < bytes.length; i++) {
        if (i > 0 && f.space) out += " ";
        if (f.sharp && (i === 0 || f.space)) out += verb === "x" ? "0x" : "0X";
        const h = bytes[i]!.toString(16).padStart(2, "0");
        out += verb === "X" ? h.toUpperCase() : h;
      }
      return pad(out, f);
    }
  }
  return badVerb(verb, s, f);
}

function printArg(a: GoValue, verb: string, f: Flags): string {
  if (verb === "T") return pad(isNil(a) ? "<nil>" : typeName(a), f);
  if (isNil(a)) return verb === "v" ? pad("<nil>", f) : badVerb(verb, a);
  if (typeof a === "boolean") return verb === "t" || verb === "v" ? pad(a ? "true" : "false", f) : badVerb(verb, a, f);
  if (typeof a === "number") return fmtFloat(a, verb, f);
  if (typeof a === "string") return fmtString(a, verb, f);
  if (a instanceof GoInt) {
    if ("vdboOxXcqU".includes(verb)) return fmtInteger(a.v, verb, f);
    return badVerb(verb, a, f);
  }
  if (a instanceof GoTime) {
    if ("vsxXq".includes(verb)) return fmtString(a.toString(), verb, f);
    return badVerb(verb, a);
  }
  // composite values apply the verb to each element
  if (a instanceof GoSlice) return "[" + a.items.map((x) => printArg(x, verb, f)).join(" ") + "]";
  if (a instanceof GoMap || a instanceof LabelMap) {
    const entries: [string, GoValue][] = a instanceof GoMap ? [...a.entries] : Object.entries(a.labels);
    entries.sort((x, y) => compareGoStrings(x[0], y[0]));
    return "map[" + entries.map(([k, x]) => printArg(k, verb, f) + ":" + printArg(x, verb, f)).join(" ") + "]";
  }
  return badVerb(verb, a);
}

export function sprintf(format: string, args: GoValue[]): string {
  let out = "";
  let argNum = 0;
  const end = format.length;
  let i = 0;
  while (i < end) {
    const pct = format.indexOf("%", i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    const f: Flags = { plus: false, minus: false, sharp: false, space: false, zero: false, wid: null, prec: null };
    flags: for (; i < end; i++) {
      switch (format[i]) {
        case "#":
          f.sharp = true;
          break;
        case "0":
          f.zero = !f.minus;
          break;
        case "+":
          f.plus = true;
          break;
        case "-":
          f.minus = true;
          f.zero = false;
          break;
        case " ":
          f.space = true;
          break;
        default:
          break flags;
      }
    }
    // width
    if (format[i] === "*") {
      i++;
      const a = args[argNum++];
      if (a instanceof GoInt) {
        f.wid = Number(a.v);
        if (f.wid < 0) {
          f.minus = true;
          f.zero = false;
          f.wid = -f.wid;
        }
      } else out += "%!(BADWIDTH)";
    } else {
      const start = i;
      while (i < end && format[i]! >= "0" && format[i]! <= "9") i++;
      if (i > start) f.wid = Number(format.slice(start, i));
    }
    // precision
    if (format[i] === ".") {
      i++;
      if (format[i] === "*") {
        i++;
        const a = args[argNum++];
        if (a instanceof GoInt && a.v >= 0n) f.prec = Number(a.v);
        else out += "%!(BADPREC)";
      } else {
        const start = i;
        while (i < end && format[i]! >= "0" && format[i]! <= "9") i++;
        f.prec = Number(format.slice(start, i) || "0");
      }
    }
    if (i >= end) {
      out += "%!(NOVERB)";
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    if (verb === "v") {
      // %+v and %#v select struct-field and Go-syntax forms, not a sign or alternate format
      f.plus = false;
      f.sharp = false;
    }
    out += printArg(args[argNum++], verb, f);
  }
  if (argNum < args.length) {
    out += "%!(EXTRA ";
    out += args
      .slice(argNum)
      .map((a) => (isNil(a) ? "<nil>" : `${typeName(a)}=${formatValue(a)}`))
      .join(", ");
    out += ")";
  }
  return out;
}
