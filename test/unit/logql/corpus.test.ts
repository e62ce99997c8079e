/**
 * Loki's own LogQL test strings (../shared/logql, harvested from Loki and classified by a real
 * Loki): every valid query must parse and print to Loki's canonical form, every invalid one must
 * fail with Loki's exact message.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Expr } from "../../../src/logql/ast";
import { LogQLParseError } from "../../../src/logql/errors";
import { formatBytes } from "../../../src/core/go/bytes";
import { parseUncached } from "../../../src/logql/parser";
import { printExpr } from "../../../src/logql/printer";

const corpusDir = join(dirname(fileURLToPath(import.meta.url)), "../../../../shared/logql");
const haveCorpus = existsSync(join(corpusDir, "valid.json")) && existsSync(join(corpusDir, "invalid.json"));

interface ValidCase {
  query: string;
  kind: "log" | "metric";
  canonical: string;
}
interface InvalidCase {
  query: string;
  error: string;
  phase: string;
}

const load = <T>(name: string): T[] =>
  haveCorpus ? (JSON.parse(readFileSync(join(corpusDir, name), "utf8")) as T[]) : [];
const valid = load<ValidCase>("valid.json");
const invalid = load<InvalidCase>("invalid.json");

/**
 * Drops fields that only remember how something was written (not part of Loki's tree), and the
 * two things Loki's canonical form itself loses: byte sizes are printed rounded (`2.5KiB` →
 * `2.6kB`), and `ignoring ()` with no labels is not printed at all.
 */
function semanticShape(e: unknown): unknown {
  if (Array.isArray(e)) return e.map(semanticShape);
  if (e === null || typeof e !== "object") return e;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(e)) {
    if (k === "text" || k === "rangeText" || k === "offsetText" || k === "sep") continue;
    out[k] = semanticShape(v);
  }
  if (out["type"] === "bytes") out["value"] = formatBytes(out["value"] as number).replace(" ", "");
  const m = out["matching"] as { on: boolean; labels: string[] } | undefined;
  if (m && !m.on && m.labels.length === 0) delete out["matching"];
  // A bare extraction name means the expression equal to the name.
  if ("label" in out && !("kind" in out) && !("conversion" in out) && out["expression"] === undefined)
    out["expression"] = out["label"];
  return out;
}

/**
 * The corpus lives beside the checkout (../shared/logql), not in it: a bare clone has none. Only
 * then are these tests skipped, and their names say why (the test summary prints skipped names).
 */
const ABSENT = "skipped: no LogQL corpus in ../shared/logql beside the checkout";
const describeCorpus = (name: string, body: () => void) =>
  haveCorpus ? describe(name, body) : describe.skip(`${name} (${ABSENT})`, body);
if (!haveCorpus) console.warn(`LogQL corpus tests ${ABSENT}`);

describeCorpus("LogQL corpus: valid queries", () => {
  it("has the expected size", () => {
    expect(valid.length).toBe(1801);
  });

  it("parses every valid query and prints Loki's canonical form", () => {
    const failures: string[] = [];
    for (const c of valid) {
      try {
        const printed = printExpr(parseUncached(c.query));
        if (printed !== c.canonical)
          failures.push(`${JSON.stringify(c.query)}\n  got  ${printed}\n  want ${c.canonical}`);
      } catch (e) {
        failures.push(`${JSON.stringify(c.query)}\n  threw ${(e as Error).message}`);
      }
    }
    const rate = (valid.length - failures.length) / valid.length;
    console.info(
      `valid.json canonical pass rate: ${valid.length - failures.length}/${valid.length} (${(rate * 100).toFixed(2)}%)`,
    );
    expect(failures.slice(0, 20)).toEqual([]);
  });

  it("classifies log and metric queries as Loki does", () => {
    const wrong = valid.filter((c) => (parseUncached(c.query).kind === "LogSelector" ? "log" : "metric") !== c.kind);
    expect(wrong.map((c) => c.query)).toEqual([]);
  });

  it("round-trips: parse(print(ast)) equals ast, and the canonical form is a fixed point", () => {
    const failures: string[] = [];
    for (const c of valid) {
      const ast: Expr = parseUncached(c.query);
      const printed = printExpr(ast);
      const again = parseUncached(printed);
      if (JSON.stringify(semanticShape(again)) !== JSON.stringify(semanticShape(ast)))
        failures.push(`AST differs: ${c.query}`);
      if (printExpr(again) !== printed) failures.push(`print not idempotent: ${c.query}`);
    }
    expect(failures).toEqual([]);
  });
});

describeCorpus("LogQL corpus: invalid queries", () => {
  it("has the expected size", () => {
    expect(invalid.length).toBe(193);
  });

  it("rejects every invalid query with Loki's exact message", () => {
    const accepted: string[] = [];
    const mismatched: string[] = [];
    for (const c of invalid) {
      try {
        parseUncached(c.query);
        accepted.push(c.query);
      } catch (e) {
        expect(e).toBeInstanceOf(LogQLParseError);
        if ((e as Error).message !== c.error)
          mismatched.push(`${JSON.stringify(c.query)}\n  got  ${(e as Error).message}\n  want ${c.error}`);
      }
    }
    console.info(
      `invalid.json: rejected ${invalid.length - accepted.length}/${invalid.length}, exact message ${invalid.length - accepted.length - mismatched.length}/${invalid.length}`,
    );
    expect(accepted).toEqual([]);
    expect(mismatched).toEqual([]);
  });
});
