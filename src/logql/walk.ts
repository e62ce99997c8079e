/**
 * One walk over the syntax tree for the analyses that read it (validation, internal-stream
 * detection, derived-field use, prefilters, planning questions such as "does it read logs").
 *
 * Each analysis used to carry its own recursion, each with a `default:` that silently ignored a
 * node it had not heard of. Here the children of every node kind are listed once, in a switch
 * the compiler checks for exhaustiveness: a node kind added to ast.ts fails the typecheck in
 * `children` until its children are listed, and every analysis then reaches it.
 *
 * Transformations that build a new tree (the builder, the printer, the evaluator) keep their own
 * recursion: they produce a value per node kind, which a visitor would only obscure.
 *
 * Order: depth-first, a node before its children (pre-order), children in source order
 * (`lhs` before `rhs`, the selector before the unwrap's filters, stages in pipeline order).
 */
import type { Expr, LabelFilterExpr, LogRangeExpr, PipelineStage } from "./ast";

/** Every node an analysis can meet. Label filter expressions are nodes as well (`a="b" or c>1`). */
export type SyntaxNode = Expr | LogRangeExpr | PipelineStage | LabelFilterExpr;

/**
 * A node's kind: its `kind` field, or `LabelFilterExpr` for a label filter expression (which is
 * discriminated by `type` among its own variants).
 */
export type NodeKind = Exclude<SyntaxNode, LabelFilterExpr>["kind"] | "LabelFilterExpr";

export type NodeOf<K extends NodeKind> = K extends "LabelFilterExpr"
  ? LabelFilterExpr
  : Extract<Exclude<SyntaxNode, LabelFilterExpr>, { kind: K }>;

export function kindOf(node: SyntaxNode): NodeKind {
  return "kind" in node ? node.kind : "LabelFilterExpr";
}

export function isKind<K extends NodeKind>(node: SyntaxNode, kind: K): node is NodeOf<K> {
  return kindOf(node) === kind;
}

/** The node's children in source order. */
export function children(node: SyntaxNode): readonly SyntaxNode[] {
  if (!("kind" in node)) {
    switch (node.type) {
      case "binary":
        return [node.left, node.right];
      case "paren":
        return [node.expr];
      case "string":
      case "number":
      case "duration":
      case "bytes":
      case "ip":
        return [];
      default:
        return unreachable(node);
    }
  }
  switch (node.kind) {
    case "LogSelector":
      return node.pipeline;
    case "LogRange":
      return node.unwrap ? [node.selector, ...node.unwrap.postFilters] : [node.selector];
    case "RangeAggregation":
      return [node.range];
    case "VectorAggregation":
    case "LabelReplace":
      return [node.expr];
    case "BinaryOp":
      return [node.lhs, node.rhs];
    case "LabelFilter":
      return [node.filter];
    case "Literal":
    case "Vector":
    case "LineFilter":
    case "JsonParser":
    case "LogfmtParser":
    case "RegexpParser":
    case "PatternParser":
    case "UnpackParser":
    case "LineFormat":
    case "LabelFormat":
    case "Decolorize":
    case "Drop":
    case "Keep":
      return [];
    default:
      return unreachable(node);
  }
}

function unreachable(node: never): never {
  throw new Error(`syntax tree node of unknown kind: ${JSON.stringify(node)}`);
}

/** Returned by a visitor: do not descend into this node's children (its siblings are still visited). */
export const SKIP = Symbol("skip children");

/**
 * Called per node kind. `ancestors` runs from the root to the node's parent; it is the walk's own
 * stack, valid only during the call.
 */
export type Visitor = {
  [K in NodeKind]?: (node: NodeOf<K>, ancestors: readonly SyntaxNode[]) => void | typeof SKIP;
};

/** Visits `root` and everything below it, pre-order, calling the visitor's function for each node's kind. */
export function walk(root: SyntaxNode, visitor: Visitor): void {
  const ancestors: SyntaxNode[] = [];
  const visit = (node: SyntaxNode): void => {
    const fn = visitor[kindOf(node)] as
      ((node: SyntaxNode, ancestors: readonly SyntaxNode[]) => void | typeof SKIP) | undefined;
    if (fn?.(node, ancestors) === SKIP) return;
    ancestors.push(node);
    for (const child of children(node)) visit(child);
    ancestors.pop();
  };
  visit(root);
}

/** Whether any node at or below `root` satisfies `test`; stops at the first that does, in walk order. */
export function some(root: SyntaxNode, test: (node: SyntaxNode, ancestors: readonly SyntaxNode[]) => boolean): boolean {
  const ancestors: SyntaxNode[] = [];
  const search = (node: SyntaxNode): boolean => {
    if (test(node, ancestors)) return true;
    ancestors.push(node);
    for (const child of children(node)) {
      if (search(child)) return true;
    }
    ancestors.pop();
    return false;
  };
  return search(root);
}

/**
 * Folds the tree bottom-up: every node's value is computed from its children's values (in source
 * order), children first. A kind without a function takes `otherwise`.
 */
export function fold<R>(
  root: SyntaxNode,
  combine: { [K in NodeKind]?: (node: NodeOf<K>, children: readonly R[]) => R },
  otherwise: R,
): R {
  const value = (node: SyntaxNode): R => {
    const below = children(node).map(value);
    const fn = combine[kindOf(node)] as ((node: SyntaxNode, children: readonly R[]) => R) | undefined;
    return fn ? fn(node, below) : otherwise;
  };
  return value(root);
}
