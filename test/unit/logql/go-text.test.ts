/**
 * Canonical query text that comes out of Go's formatting verbs: `%f` for vector(), go-humanize's
 * Bytes for byte filters. Both round ties to even on the exact binary value, as Loki prints them.
 */
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import { printExpr } from "../../../src/logql/printer";

const canonical = (q: string): string => printExpr(parseExpr(q));

describe("Go formatting in the canonical form", () => {
  it("vector() prints with %f: 0.0078125 is a tie and rounds to even", () => {
    expect(canonical("vector(0.0078125)")).toBe("vector(0.007812)");
    expect(canonical("vector(1e21)")).toBe("vector(1000000000000000000000.000000)");
  });

  it("byte filters print with go-humanize's %.0f: 12.5 kB is 12kB", () => {
    expect(canonical('{app="x"} | logfmt | size > 12.5KB')).toBe('{app="x"} | logfmt | size>12kB');
    expect(canonical('{app="x"} | logfmt | size > 13.5KB')).toBe('{app="x"} | logfmt | size>14kB');
  });
});
