/** Go's url.QueryEscape and url.QueryUnescape (the template functions urlencode, urldecode, urlquery). */

import { FuncError } from "./funcs";
import { quote as goQuote } from "../../core/go/strconv";
import { fromUtf8, utf8Bytes } from "./values";

const HEX = "0123456789ABCDEF";

function unreserved(b: number): boolean {
  return (
    (b >= 0x41 && b <= 0x5a) ||
    (b >= 0x61 && b <= 0x7a) ||
    (b >= 0x30 && b <= 0x39) ||
    b === 0x2d ||
    b === 0x5f ||
    b === 0x2e ||
    b === 0x7e
  );
}

export function queryEscape(s: string): string {
  let out = "";
  for (const b of utf8Bytes(s)) {
    if (unreserved(b)) out += String.fromCharCode(b);
    else if (b === 0x20) out += "+";
    else out += "%" + HEX[b >> 4] + HEX[b & 15];
  }
  return out;
}

const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** Throws FuncError with Go's `invalid URL escape "%zz"` on a malformed escape. */
export function queryUnescape(s: string): string {
  if (!s.includes("%") && !s.includes("+")) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length;) {
    const c = s[i]!;
    if (c === "%") {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        throw new FuncError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
    } else if (c === "+") {
      bytes.push(0x20);
      i++;
    } else {
      const cp = s.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      for (const b of utf8Bytes(ch)) bytes.push(b);
      i += ch.length;
    }
  }
  return fromUtf8(new Uint8Array(bytes));
}
