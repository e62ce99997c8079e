/**
 * The syntax-tree walk: every node kind is reached, in pre-order and source order; SKIP prunes a
 * subtree only; `some` stops at the first match; `fold` combines children before their parent.
 */
import { describe, expect, it } from "vitest";
import type { LabelFilterExpr } from "../../../src/logql/ast";
import { parseUncached } from "../../../src/logql/parser";
import { children, fold, kindOf, some, SKIP, walk, type NodeKind, type SyntaxNode } from "../../../src/logql/walk";

function S(name: string): LabelFilterExpr {
  return { type: "string", name, op: "=", value: "1" };
}

/** A short text per node, so an order can be written down and compared. */
function tag(node: SyntaxNode): string {
  if (!("kind" in node)) return `LabelFilterExpr:${node.type}`;
  switch (node.kind) {
    case "BinaryOp":
    case "VectorAggregation":
    case "RangeAggregation":
      return `${node.kind}:${node.op}`;
    default:
      return node.kind;
  }
}

/** Every kind, as a record so that a kind added to the tree must be added here too. */
const EVERY_KIND: Record<NodeKind, true> = {
  LogSelector: true,
  LogRange: true,
  RangeAggregation: true,
  VectorAggregation: true,
  BinaryOp: true,
  Literal: true,
  Vector: true,
  LabelReplace: true,
  LineFilter: true,
  JsonParser: true,
  LogfmtParser: true,
  RegexpParser: true,
  PatternParser: true,
  UnpackParser: true,
  LabelFilter: true,
  LineFormat: true,
  LabelFormat: true,
  Decolorize: true,
  Drop: true,
  Keep: true,
  LabelFilterExpr: true,
};
const kinds = Object.keys(EVERY_KIND) as NodeKind[];

function preorder(root: SyntaxNode): string[] {
  const seen: string[] = [];
  // A visitor for every kind, which also checks the walker hands each function its own kind.
  const visitor = Object.fromEntries(
    kinds.map((k) => [
      k,
      (node: SyntaxNode) => {
        expect(kindOf(node)).toBe(k);
        seen.push(tag(node));
      },
    ]),
  );
  walk(root, visitor);
  return seen;
}

const EVERY_STAGE =
  '{app="a"} |= "x" | json | logfmt | regexp "(?P<r>.)" | pattern "<p> <_>" | unpack' +
  ' | (a="1" or b>2) and c>1s, d>1KB, e=ip("10.0.0.0/8") | line_format "{{.a}}" | label_format x=a' +
  " | decolorize | drop d | keep a";

const EVERY_SAMPLE_NODE =
  'sum by (a) (rate({app="a"} | logfmt | unwrap n | __error__="" [1m])) + ' +
  'label_replace(sort(count_over_time({app="b"}[1m])), "d", "$1", "s", "(.*)") / vector(2) * 3';

describe("walk", () => {
  it("reaches every stage and label filter of a log query, in pipeline order", () => {
    expect(preorder(parseUncached(EVERY_STAGE))).toEqual([
      "LogSelector",
      "LineFilter",
      "JsonParser",
      "LogfmtParser",
      "RegexpParser",
      "PatternParser",
      "UnpackParser",
      "LabelFilter",
      // ((((a or b) and c) and d) and e): the leaves in the order written.
      "LabelFilterExpr:binary",
      "LabelFilterExpr:binary",
      "LabelFilterExpr:string",
      "LabelFilterExpr:number",
      "LabelFilterExpr:binary",
      "LabelFilterExpr:duration",
      "LabelFilterExpr:binary",
      "LabelFilterExpr:bytes",
      "LabelFilterExpr:ip",
      "LineFormat",
      "LabelFormat",
      "Decolorize",
      "Drop",
      "Keep",
    ]);
  });

  it("reaches every sample node, a node before its children and lhs before rhs", () => {
    expect(preorder(parseUncached(EVERY_SAMPLE_NODE))).toEqual([
      "BinaryOp:+",
      "VectorAggregation:sum",
      "RangeAggregation:rate",
      "LogRange",
      "LogSelector",
      "LogfmtParser",
      // The unwrap's filters come after the selector's pipeline, as written.
      "LabelFilterExpr:string",
      "BinaryOp:*",
      "BinaryOp:/",
      "LabelReplace",
      "VectorAggregation:sort",
      "RangeAggregation:count_over_time",
      "LogRange",
      "LogSelector",
      "Vector",
      "Literal",
    ]);
  });

  it("visits every node kind", () => {
    const seen = new Set<NodeKind>();
    for (const root of [parseUncached(EVERY_STAGE), parseUncached(EVERY_SAMPLE_NODE)]) {
      walk(root, Object.fromEntries(kinds.map((k) => [k, () => void seen.add(k)])));
    }
    expect([...seen].sort()).toEqual([...kinds].sort());
  });

  it("SKIP prunes the node's children and goes on with its siblings", () => {
    const seen: string[] = [];
    walk(parseUncached('count_over_time({a="1"} | json [1m]) + count_over_time({b="2"} | logfmt [1m])'), {
      LogSelector: (s) => {
        seen.push(s.matchers[0]!.name);
        return s.matchers[0]!.name === "a" ? SKIP : undefined;
      },
      JsonParser: () => void seen.push("json"),
      LogfmtParser: () => void seen.push("logfmt"),
    });
    expect(seen).toEqual(["a", "b", "logfmt"]);
  });

  it("reaches a parenthesised label filter and what it holds", () => {
    // The builder folds parentheses away; a tree built by hand still holds them.
    const filter: LabelFilterExpr = {
      type: "paren",
      expr: { type: "binary", op: "or", left: S("x"), right: S("y") },
    };
    expect(preorder(filter)).toEqual([
      "LabelFilterExpr:paren",
      "LabelFilterExpr:binary",
      "LabelFilterExpr:string",
      "LabelFilterExpr:string",
    ]);
  });

  it("hands each function the ancestors from the root to the parent", () => {
    const paths: string[][] = [];
    walk(parseUncached('sum(count_over_time({a="1"} | x="y" [1m]))'), {
      LabelFilterExpr: (_f, ancestors) => void paths.push(ancestors.map(tag)),
    });
    expect(paths).toEqual([
      ["VectorAggregation:sum", "RangeAggregation:count_over_time", "LogRange", "LogSelector", "LabelFilter"],
    ]);
  });
});

describe("some", () => {
  it("stops at the first node that matches, in walk order", () => {
    const tested: string[] = [];
    const found = some(parseUncached('vector(1) + count_over_time({a="1"}[1m]) + vector(2)'), (node) => {
      tested.push(tag(node));
      return kindOf(node) === "RangeAggregation";
    });
    expect(found).toBe(true);
    expect(tested).toEqual(["BinaryOp:+", "BinaryOp:+", "Vector", "RangeAggregation:count_over_time"]);
  });

  it("is false when nothing matches", () => {
    expect(some(parseUncached("vector(1) * 2"), (node) => kindOf(node) === "RangeAggregation")).toBe(false);
  });
});

describe("fold", () => {
  it("combines children (in order) before their parent; kinds without a function take the default", () => {
    const text = fold<string>(
      {
        kind: "LogSelector",
        matchers: [{ name: "a", op: "=", value: "1" }],
        pipeline: [
          {
            kind: "LabelFilter",
            filter: {
              type: "binary",
              op: "or",
              left: S("x"),
              right: { type: "paren", expr: { type: "binary", op: "and", left: S("y"), right: S("z") } },
            },
          },
        ],
      },
      {
        LogSelector: (_s, kids) => kids.join(" | "),
        LabelFilter: (_s, [f]) => f!,
        LabelFilterExpr: (f, kids) => {
          switch (f.type) {
            case "binary":
              return `[${kids[0]} ${f.op} ${kids[1]}]`;
            case "paren":
              return `(${kids[0]})`;
            case "string":
              return f.name;
            default:
              return "?";
          }
        },
      },
      "-",
    );
    expect(text).toBe("[x or ([y and z])]");
  });
});

describe("children", () => {
  it("lists a binary operation's sides and a leaf's none", () => {
    const expr = parseUncached("vector(1) + 2");
    expect(children(expr).map(tag)).toEqual(["Vector", "Literal"]);
    expect(children(children(expr)[1]!)).toEqual([]);
  });
});
