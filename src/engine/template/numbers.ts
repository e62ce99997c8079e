/** Go numeric literal syntax, as strconv.ParseInt(s, 0, 64) and strconv.ParseFloat(s, 64) accept it. */

/** Go's rule for `_` in numeric literals (strconv's underscoreOK): only between digits or after a base prefix. */
export function underscoreOK(s: string): boolean {
  let saw = "^";
  let i = 0;
  if (s[0] === "-" || s[0] === "+") s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === "0" && /[bBoOxX]/.test(s[1]!)) {
    i = 2;
    saw = "0";
    hex = s[1] === "x" || s[1] === "X";
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= "0" && c <= "9") || (hex && /[a-fA-F]/.test(c))) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

/** strconv.ParseInt(text, 0, 64) without the range check: Go integer literal syntax. */
export function parseGoInt(text: string): bigint | null {
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/.exec(text);
  if (!m) return null;
  if (text.includes("_") && !underscoreOK(text)) return null;
  const body = m[2]!.replace(/_/g, "");
  if (/^0[xXoObB]$/.test(body)) return null;
  let v: bigint;
  if (/^0[oO]/.test(body)) v = BigInt("0o" + body.slice(2));
  else if (/^0[0-7]+$/.test(body)) v = BigInt("0o" + body.slice(1));
  else v = BigInt(body);
  return m[1] === "-" ? -v : v;
}

/** strconv.ParseFloat(text, 64) for Go float literal syntax; null when not a float. */
export function parseGoFloat(text: string): number | null {
  if (/^[+-]?(inf|infinity)$/i.test(text)) return text.startsWith("-") ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  let s = text;
  let sign = 1;
  if (s[0] === "+" || s[0] === "-") {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  if (/^0[xX]/.test(s)) {
    const m = /^0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9_]+)$/.exec(s);
    if (!m || (m[1] === "" && (m[2] ?? "") === "")) return null;
    const mant = (m[1] ?? "").replace(/_/g, "") + (m[2] ?? "").replace(/_/g, "");
    const fracDigits = (m[2] ?? "").replace(/_/g, "").length;
    const exp = Number(m[3]!.replace(/_/g, "")) - 4 * fracDigits;
    return sign * Number(BigInt("0x" + (mant || "0"))) * 2 ** exp;
  }
  if (!/^([0-9][0-9_]*)?(\.[0-9_]*)?([eE][+-]?[0-9_]+)?$/.test(s) || s === "" || s === ".") return null;
  if (/^\.?[eE]/.test(s)) return null;
  if (s.includes("_")) {
    if (!underscoreOK(s)) return null;
    s = s.replace(/_/g, "");
  }
  const v = sign * Number(s);
  // strconv reports overflow to infinity as an error
  return Number.isFinite(v) ? v : null;
}
