/** The lexer reproduces Loki's token decisions; the grammar's terminals must agree with it. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { lex, TOKEN_CODES, type TokenKind } from "../../../src/logql/lexer";

const kinds = (q: string): string[] => lex(q).tokens.map((t) => t.kind);

describe("lexer", () => {
  it("uses the character codes the grammar's terminals match", () => {
    const grammar = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../../../grammar/logql.peggy"), "utf8");
    const terminals = [...grammar.matchAll(/^([A-Z_]+) "\1" = "\\u([0-9A-F]{4})"/gm)];
    expect(terminals.length).toBeGreaterThan(80);
    for (const [, kind, hex] of terminals)
      expect([kind, parseInt(hex!, 16)]).toEqual([kind, TOKEN_CODES[kind as TokenKind]]);
  });

  it("makes function names keywords only before ( or by/without (", () => {
    expect(kinds("rate(")).toEqual(["RATE", "OPEN_PARENTHESIS"]);
    expect(kinds("rate =")).toEqual(["IDENTIFIER", "EQ"]);
    expect(kinds("sum by (a) (")[0]).toBe("SUM");
    expect(kinds("sum bytes")[0]).toBe("IDENTIFIER");
  });

  it("glues units to numbers as Loki does", () => {
    expect(kinds("5m 1.5h 10KB 2 5s3 -5m --strict --foo")).toEqual([
      "DURATION",
      "DURATION",
      "BYTES",
      "NUMBER",
      "NUMBER",
      "IDENTIFIER",
      "DURATION",
      "PARSER_FLAG",
      "SUB",
      "SUB",
      "IDENTIFIER",
    ]);
    expect(lex("1h0.0m0s").tokens[0]).toMatchObject({ kind: "DURATION", value: 3600e9 });
  });

  it("reads [..] as one RANGE token and keeps keywords case-insensitive", () => {
    expect(lex("[1h30m]").tokens[0]).toMatchObject({ kind: "RANGE", value: 5400e9, lineIsZero: true });
    expect(kinds("OR And UNLESS By")).toEqual(["OR", "AND", "UNLESS", "BY"]);
  });

  it("turns unknown characters into identifiers", () => {
    expect(kinds("@ _ é")).toEqual(["IDENTIFIER", "IDENTIFIER", "IDENTIFIER"]);
  });
});
