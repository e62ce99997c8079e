/**
 * LogQL parsing entry points: text → immutable AST, or a LogQLParseError carrying Loki's exact
 * 400 message.
 *
 * Pipeline: lexer.ts (Loki's token stream) → generated PEG parser over those tokens → build.ts
 * (construction checks) → validate.ts (Loki's validateExpr). Results are kept in a bounded LRU
 * keyed by the query text; returned ASTs are deep-frozen and shared, so callers must not mutate
 * them (copy first if a rewrite is needed).
 */

import type { Expr, Matcher } from "./ast";
import { buildExpr, type CNode } from "./build";
import { LogQLParseError } from "./errors";
import { parse as peggyParse, SyntaxError as PeggySyntaxError } from "./generated/parser.js";
import { ERROR_CHAR, lex, lineCol, tokenChar, tokenDisplay, tokenOrder, type Token, type TokenKind } from "./lexer";
import { validateExpr } from "./validate";
import { BoundedMap } from "../util/bounded-map";

/** Loki refuses queries this long (in bytes). */
export const MAX_QUERY_BYTES = 128 * 1024;

// ---------------------------------------------------------------------------------------------
// Cache

type CacheEntry = { expr: Expr } | { error: LogQLParseError };
/**
 * Bounded in bytes as well as entries: queries may be 128 KiB each. A tree holds several times its
 * query's text; an error, its message.
 */
const cache = new BoundedMap<CacheEntry>(2048, 8 * 1024 * 1024, (entry, query) =>
  "error" in entry ? 2 * entry.error.message.length : 8 * query.length,
);

function remember(query: string, entry: CacheEntry): void {
  cache.set(query, entry);
}

/** Drops every cached parse (tests and benchmarks use it to measure cold parsing). */
export function clearParseCache(): void {
  cache.clear();
}

// ---------------------------------------------------------------------------------------------

/**
 * Parses and validates a LogQL query as Loki's `ParseExpr` does. The result is deep-frozen and
 * may be shared between callers. Throws LogQLParseError with Loki's exact message.
 */
export function parseExpr(query: string): Expr {
  const hit = cache.get(query);
  if (hit !== undefined) {
    if ("error" in hit) throw hit.error;
    return hit.expr;
  }
  try {
    const expr = deepFreeze(parseUncached(query));
    remember(query, { expr });
    return expr;
  } catch (e) {
    if (e instanceof LogQLParseError) remember(query, { error: e });
    throw e;
  }
}

/** Parses without the cache and without freezing (a fresh, mutable tree). */
export function parseUncached(query: string): Expr {
  const bytes = utf8Length(query);
  if (bytes >= MAX_QUERY_BYTES) {
    throw new LogQLParseError(`input size too long (${bytes} > ${MAX_QUERY_BYTES})`);
  }
  const cst = parseTokens(query);
  const expr = buildExpr(cst);
  validateExpr(expr);
  return expr;
}

/**
 * Parses the `match[]` selector of the series API: a bare stream selector. A pipeline or metric
 * query is rejected with Loki's message.
 */
export function parseMatchers(query: string): Matcher[] {
  const e = parseExpr(query);
  if (e.kind !== "LogSelector" || e.pipeline.length > 0) {
    throw new LogQLParseError("only label matchers are supported", 0, 0, true);
  }
  return e.matchers;
}

/**
 * The deepest nesting of parentheses (and braces) a query may have. Loki's parser has no such limit,
 * but the generated parser, the tree builder and the evaluator recurse once per level: far deeper
 * queries would overflow the stack. No real query comes near it.
 */
export const MAX_NESTING = 256;

function checkNesting(tokens: readonly Token[]): void {
  let depth = 0;
  for (const t of tokens) {
    if (t.kind === "OPEN_PARENTHESIS" || t.kind === "OPEN_BRACE") {
      depth++;
      if (depth > MAX_NESTING) {
        throw new LogQLParseError(`query is nested deeper than the limit (${MAX_NESTING} levels of parentheses)`);
      }
    } else if (t.kind === "CLOSE_PARENTHESIS" || t.kind === "CLOSE_BRACE") depth--;
  }
}

/**
 * The most operators a query may hold: binary operations (`+`, `and`, `==`, ...) and comparisons
 * of matchers and label filters. Loki's parser has no such limit, but a chain of them
 * (`vector(1) + vector(1) + …`, `| a="1" or a="1" or …`) nests one level per operator in the
 * generated parser, the tree builder and the evaluator, which recurse per level: thousands would
 * overflow the stack. No real query comes near it.
 */
export const MAX_OPERATORS = 1024;

const OPERATOR_TOKENS: ReadonlySet<string> = new Set([
  "ADD",
  "SUB",
  "MUL",
  "DIV",
  "MOD",
  "POW",
  "CMP_EQ",
  "EQ",
  "NEQ",
  "RE",
  "NRE",
  "GT",
  "GTE",
  "LT",
  "LTE",
  "AND",
  "OR",
  "UNLESS",
]);

function checkOperators(tokens: readonly Token[]): void {
  let count = 0;
  for (const t of tokens) {
    if (OPERATOR_TOKENS.has(t.kind) && ++count > MAX_OPERATORS) {
      throw new LogQLParseError(`query has more operators than the limit (${MAX_OPERATORS})`);
    }
  }
}

function parseTokens(query: string): CNode {
  const { tokens, error: lexError } = lex(query);
  checkNesting(tokens);
  checkOperators(tokens);
  let text = "";
  for (const t of tokens) text += tokenChar(t.kind);
  if (lexError) text += ERROR_CHAR;
  try {
    return peggyParse(text, { tokens }) as CNode;
  } catch (e) {
    if (!(e instanceof PeggySyntaxError)) throw e;
    const at = e.location.start.offset;
    if (lexError && at >= tokens.length) {
      const { line, col } = lineCol(query, lexError.offset);
      throw new LogQLParseError(lexError.message, lexError.lineIsZero ? 0 : line, col);
    }
    throw syntaxError(query, tokens, at, e.expected ?? []);
  }
}

function syntaxError(
  query: string,
  tokens: Token[],
  at: number,
  expected: Array<{ type: string; description?: string }>,
): LogQLParseError {
  const tok = tokens[at];
  let line: number;
  let col: number;
  let found: string;
  if (tok === undefined) {
    found = "$end";
    if (query.length === 0) {
      line = 0;
      col = 0;
    } else {
      ({ line, col } = lineCol(query, query.length));
    }
  } else {
    found = tokenDisplay(tok.kind);
    ({ line, col } = lineCol(query, tok.start));
    if (tok.lineIsZero) line = 0;
  }
  const kinds = [
    ...new Set(expected.filter((x) => x.type === "other" && x.description !== "$end").map((x) => x.description!)),
  ];
  kinds.sort((a, b) => tokenOrder(a) - tokenOrder(b));
  let msg = `syntax error: unexpected ${found}`;
  // goyacc names at most four expected tokens, and none when there are more.
  if (kinds.length > 0 && kinds.length <= 4) {
    msg += ", expecting " + kinds.map((k) => tokenDisplay(k as TokenKind)).join(" or ");
  }
  return new LogQLParseError(msg, line, col);
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === "object" && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o as Record<string, unknown>)) deepFreeze(v);
  }
  return o;
}
