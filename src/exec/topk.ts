/**
 * Keeps the `limit` newest (backward) or oldest (forward) entries seen, in O(log limit) per entry.
 * A binary heap whose root is the entry that would be evicted first.
 */
import type { Direction, Labels, LogEntry } from "../engine/types";
import { lineLength } from "../engine/literal-row";
import { BadRequestError } from "../core/errors";
import { jsonTextLength } from "../encode/labels";

/**
 * The most entry text one query may hold (all of its top-K heaps together), in UTF-16 units: 16 Mi
 * (32 MB). `limit` bounds the entries, not their size; a `line_format` can make every line large
 * and a `label_format` every entry's labels, and an isolate's 128 MB is shared by all its requests.
 * Loki reports its byte limits as 400s.
 */
export const ENTRY_TEXT_BUDGET = 16 * 1024 * 1024;

/**
 * The text an entry holds of its own, in UTF-16 units as an answer writes it (JSON escapes
 * counted): its line, and the names and values of its structured metadata and parsed labels. Its
 * stream labels are not counted: every row of a stream shares one object (src/origin/rows.ts), and
 * no stage can give a stream label a value of its own. An answer writes each entry's own labels
 * once (in its stream's label set, or as its categorized labels), so the budget bounds the answer
 * too: at most three UTF-8 bytes a unit.
 */
export function entryTextLength(e: LogEntry): number {
  const line = e.rawLine !== undefined ? lineLength(e) : jsonTextLength(e.line);
  return line + labelsLength(e.metadata) + labelsLength(e.parsed);
}

function labelsLength(labels: Labels): number {
  let n = 0;
  for (const name in labels) n += jsonTextLength(name) + jsonTextLength(labels[name]!);
  return n;
}

/**
 * What one query's heaps hold together, against ENTRY_TEXT_BUDGET: a window's heap charges its
 * entries while the window is read, and its answer keeps the charge until the query's own heap
 * takes the entries over (`release` then `push`), so an entry in transit counts once.
 */
export class EntryTextBudget {
  private held = 0;

  /**
   * `limit`: the query's entry limit, named in the refusal. `memory`: the query's share of the
   * isolate's admission, told what the entries hold as it grows.
   */
  constructor(
    readonly limit: number,
    private readonly memory?: { cover(chars: number): void },
  ) {}

  get chars(): number {
    return this.held;
  }

  charge(chars: number): void {
    this.held += chars;
    if (this.held > ENTRY_TEXT_BUDGET) {
      throw new BadRequestError(
        `the query would return more than ${ENTRY_TEXT_BUDGET / (1024 * 1024)}Mi characters of log lines and labels (limit ${this.limit} entries); reduce the limit or the size of the lines and labels`,
      );
    }
    if (chars > 0) this.memory?.cover(this.held);
  }

  release(chars: number): void {
    this.held -= chars;
  }
}

export class EntryTopK {
  /**
   * While entries arrive in direction order (as the origin sends them when it sorts), they are
   * kept in that order, best first, and neither a heap nor a final sort is needed. The first entry
   * out of order turns the list into the heap (reversed, a sorted list is one).
   */
  private inOrder = true;
  private heap: LogEntry[] = [];
  /** Characters of entry text held (entryTextLength), charged to `budget`. */
  private held = 0;
  /** True when `a` should be evicted before `b`. */
  private readonly worse: (a: LogEntry, b: LogEntry) => boolean;

  constructor(
    readonly limit: number,
    readonly direction: Direction,
    private readonly budget = new EntryTextBudget(limit),
  ) {
    this.worse = direction === "backward" ? (a, b) => a.ts < b.ts : (a, b) => a.ts > b.ts;
  }

  get size(): number {
    return this.heap.length;
  }

  /** Characters of entry text this heap has charged to its budget. */
  get heldChars(): number {
    return this.held;
  }

  get full(): boolean {
    return this.heap.length >= this.limit;
  }

  /** Whether an entry at `ts` could still enter the result. */
  admits(ts: bigint): boolean {
    if (!this.full) return true;
    const worst = this.inOrder ? this.heap[this.heap.length - 1]! : this.heap[0]!;
    return this.direction === "backward" ? ts > worst.ts : ts < worst.ts;
  }

  push(e: LogEntry): void {
    if (this.inOrder) {
      const list = this.heap;
      const last = list[list.length - 1];
      if (last === undefined || !this.worse(last, e)) {
        // No better than any kept entry: appended, or (when full) it would be evicted first.
        if (list.length < this.limit) {
          list.push(e);
          this.hold(entryTextLength(e));
        }
        return;
      }
      this.heap = list.reverse();
      this.inOrder = false;
    }
    const h = this.heap;
    if (h.length < this.limit) {
      h.push(e);
      this.up(h.length - 1);
      this.hold(entryTextLength(e));
    } else if (this.worse(h[0]!, e)) {
      const evicted = h[0]!;
      h[0] = e;
      this.down(0);
      this.hold(entryTextLength(e) - entryTextLength(evicted));
    }
  }

  private hold(delta: number): void {
    this.held += delta;
    this.budget.charge(delta);
  }

  /** The kept entries ordered by direction (newest first for backward). */
  sorted(): LogEntry[] {
    if (this.inOrder) return this.heap.slice();
    const out = this.heap.slice();
    out.sort(this.direction === "backward" ? (a, b) => cmp(b.ts, a.ts) : (a, b) => cmp(a.ts, b.ts));
    return out;
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.worse(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.worse(h[r]!, h[m]!)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

function cmp(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
