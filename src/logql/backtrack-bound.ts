/**
 * Whether a Go regexp is provably cheap on a backtracking engine (V8's RegExp).
 *
 * A backtracking engine explores, at each start position, every way the pattern can match; with
 * nested or adjacent unbounded repetitions that is exponential or polynomial in the input
 * (`(a+)+$`), while Go's RE2 is linear. A pattern is accepted only when the work of one attempt at
 * one start position has a bound that does not depend on the input: no unbounded repetition, and
 * at most BUDGET steps counting every alternative and every repetition count. Then the whole
 * search is at most BUDGET steps per input character, i.e. linear.
 *
 * One unbounded form is allowed: a repetition of a single character or class in tail position
 * (`foo.*`, `level=\w+`). Once reached, nothing follows it: unanchored it always completes the
 * match; anchored (`^(?:...)$`, one start position) a failure backtracks over it once per way of
 * reaching it, which the budget bounds. Patterns the structural parser does not model are not safe.
 *
 * Optional repetitions of a sub-pattern that can match empty (`(a?){1,2}`, `(|a)?`) are also left
 * to RE2: JavaScript rejects an iteration that matched empty, Go's program takes it, and the two
 * then report different matches or captures.
 */
import { type Node, parseRegexTree } from "./regex-tree";

/** Steps one attempt may take; a 100 KB line then costs at most ~10^8 simple steps. */
const BUDGET = 1000;

/** Work of one attempt (`cost`) and how many ways it can complete (`paths`, each re-running what follows). */
interface Bound {
  cost: number;
  paths: number;
}

const UNSAFE: Bound = { cost: Number.POSITIVE_INFINITY, paths: Number.POSITIVE_INFINITY };
const STEP: Bound = { cost: 1, paths: 1 };

const then = (a: Bound, b: Bound): Bound => ({ cost: a.cost + a.paths * b.cost, paths: a.paths * b.paths });
const either = (a: Bound, b: Bound): Bound => ({ cost: a.cost + b.cost, paths: a.paths + b.paths });
const tooBig = (b: Bound): boolean => !(b.cost <= BUDGET && b.paths <= BUDGET);

/** Whether the node can match the empty string. */
function nullable(n: Node): boolean {
  switch (n.k) {
    case "lit":
    case "class":
    case "any":
    case "anynl":
      return false;
    case "assert":
    case "empty":
      return true;
    case "cap":
      return nullable(n.sub);
    case "cat":
      return n.items.every(nullable);
    case "alt":
      return n.legs.some(nullable);
    default:
      return n.min === 0 || nullable(n.sub);
  }
}

const singleChar = (n: Node): boolean =>
  (n.k === "lit" && [...n.s].length === 1) || n.k === "class" || n.k === "any" || n.k === "anynl";

/** `sub{min,max}` unrolled as a backtracker runs it: min copies, then up to max-min optional ones. */
function repetition(sub: Bound, min: number, max: number): Bound {
  let optional = STEP;
  for (let i = min; i < max && !tooBig(optional); i++) optional = either(then(sub, optional), STEP);
  let out = optional;
  for (let i = 0; i < min && !tooBig(out); i++) out = then(sub, out);
  return out;
}

function bound(n: Node, tail: boolean): Bound {
  switch (n.k) {
    case "lit":
      return { cost: [...n.s].length, paths: 1 };
    case "class":
    case "any":
    case "anynl":
    case "assert":
    case "empty":
      return STEP;
    case "cap":
      return bound(n.sub, tail);
    case "cat": {
      let out = STEP;
      for (let i = 0; i < n.items.length && !tooBig(out); i++) {
        out = then(out, bound(n.items[i]!, tail && i === n.items.length - 1));
      }
      return out;
    }
    case "alt": {
      let out: Bound = { cost: 0, paths: 0 };
      for (const leg of n.legs) out = either(out, bound(leg, tail));
      return out;
    }
    case "star":
    case "plus":
    case "quest":
    case "rep": {
      if (n.max === undefined) return tail && singleChar(n.sub) ? { cost: n.min + 1, paths: 1 } : UNSAFE;
      if (n.max > n.min && nullable(n.sub)) return UNSAFE;
      const sub = bound(n.sub, false);
      return tooBig(sub) ? UNSAFE : repetition(sub, n.min, n.max);
    }
  }
}

/** True when matching `src` with a backtracking engine is linear in the input (see above). */
export function backtrackingIsBounded(src: string): boolean {
  const tree = parseRegexTree(src);
  return tree !== undefined && !tooBig(bound(tree, true));
}
