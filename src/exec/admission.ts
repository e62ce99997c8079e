/**
 * Memory admission for log queries, per isolate. A log query holds up to `limit` entries from the
 * first origin row until its answer has been streamed out; an isolate has 128 MB for all its
 * requests, and fifty 5,000-entry queries at once would need several times that. Each query
 * reserves an estimate of what it will hold before it starts and returns it when its answer is
 * written; queries that do not fit wait their turn in arrival order, as queries queue for
 * Loki's queriers, and a query that waits too long gets Loki's 429.
 */
import { TooManyOutstandingRequests } from "../core/errors";
import type { LogSelectorExpr, PipelineStage } from "../logql/ast";
import { compileTemplate } from "../engine/template";
import { TEMPLATE_OUTPUT_LIMIT } from "../engine/template/funcs";
import { ENTRY_TEXT_BUDGET } from "./topk";

/**
 * Heap one kept entry costs while a query runs: the line (as text and as its JSON literal), its
 * labels and the entry object, plus the rows read and dropped around it (bench/results/memory.md).
 */
export const BYTES_PER_ENTRY = 2 * 1024;
/** Parsers and formats give each entry labels and a second line of its own: twice as much. */
const SHAPING_STAGES = new Set([
  "JsonParser",
  "LogfmtParser",
  "RegexpParser",
  "PatternParser",
  "UnpackParser",
  "LineFormat",
  "LabelFormat",
]);
/** What all log queries of one isolate may reserve together: a quarter of the isolate's heap. */
export const ISOLATE_LOG_QUERY_BYTES = 32 * 1024 * 1024;
/** How long a query may wait for room before it is refused. */
export const ADMISSION_WAIT_MS = 30_000;

interface Waiter {
  bytes: number;
  grant: () => void;
}

export class MemoryAdmission {
  private used = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly capacity: number,
    private readonly waitMs = ADMISSION_WAIT_MS,
  ) {}

  get reserved(): number {
    return this.used;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Reserves `bytes` (at most the whole capacity, so any one query can run alone), waiting in
   * arrival order. Resolves to the release function, to be called exactly once.
   */
  async acquire(bytes: number, signal?: AbortSignal): Promise<() => void> {
    const want = Math.min(Math.max(bytes, 0), this.capacity);
    if (this.waiting.length === 0 && this.used + want <= this.capacity) {
      this.used += want;
      return this.releaser(want);
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        bytes: want,
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const leave = (err: unknown) => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        signal?.removeEventListener("abort", onAbort);
        clearTimeout(timer);
        reject(err);
        // Whoever queued behind this one may fit now.
        this.grantWaiting();
      };
      const onAbort = () => leave(signal?.reason ?? new Error("aborted"));
      const timer = setTimeout(() => leave(new TooManyOutstandingRequests()), this.waitMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
    return this.releaser(want);
  }

  /**
   * Reserves as `acquire` does, as a running query's share that can grow with what it holds
   * (QueryMemory.cover).
   */
  async admit(bytes: number, signal?: AbortSignal): Promise<QueryMemory> {
    const want = Math.min(Math.max(bytes, 0), this.capacity);
    return new QueryMemory(this, want, await this.acquire(want, signal));
  }

  /**
   * Takes `bytes` more at once if they fit, never waiting: for a running query, which holds
   * entries and so must not wait behind queries that hold nothing yet.
   */
  tryTake(bytes: number): boolean {
    if (this.used + bytes > this.capacity) return false;
    this.used += bytes;
    return true;
  }

  /** Returns room taken by tryTake. */
  give(bytes: number): void {
    this.used -= bytes;
    this.grantWaiting();
  }

  private releaser(bytes: number): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= bytes;
      this.grantWaiting();
    };
  }

  private grantWaiting(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0]!.bytes <= this.capacity) {
      const next = this.waiting.shift()!;
      this.used += next.bytes;
      next.grant();
    }
  }
}

/** Room a growing query takes at once beyond its reservation, so that it asks rarely. */
const GROWTH_STEP = 1024 * 1024;

/**
 * A running log query's share of the admission. The reservation is an estimate per entry; entries
 * can be far larger (lines of 100 KB in the data, a template copying them), so as the query's
 * entries hold more text (two bytes a character) than its share covers, the share grows from
 * the room left. When there is none, the query is refused with Loki's 429 rather than holding
 * memory no one admitted.
 */
export class QueryMemory {
  private grown = 0;
  private released = false;

  constructor(
    private readonly admission: MemoryAdmission,
    private readonly reserved: number,
    private readonly releaseReserved: () => void,
  ) {}

  /** The query's entries now hold `chars` of text. */
  cover(chars: number): void {
    const need = 2 * chars - this.reserved - this.grown;
    if (need <= 0 || this.released) return;
    const step = Math.max(need, GROWTH_STEP);
    if (!this.admission.tryTake(step)) throw new TooManyOutstandingRequests();
    this.grown += step;
  }

  /** Returns the whole share; to be called once the answer is written (later calls do nothing). */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.releaseReserved();
    if (this.grown > 0) this.admission.give(this.grown);
    this.grown = 0;
  }
}

/** The isolate's log-query admission (module state lives as long as the isolate). */
export const logQueryAdmission = new MemoryAdmission(ISOLATE_LOG_QUERY_BYTES);

/**
 * What a log query with this limit reserves. A template that can make long text of little
 * (`repeat`, a wide printf, a loop: CompiledTemplate.amplifies) may give every entry up to
 * TEMPLATE_OUTPUT_LIMIT characters per template, until the query's entries hold the whole text
 * budget: its query reserves that worst case, two bytes a character, on top of the estimate.
 */
export function logQueryReservation(expr: LogSelectorExpr, limit: number): number {
  const shaping = expr.pipeline.some((stage) => SHAPING_STAGES.has(stage.kind));
  const estimate = limit * BYTES_PER_ENTRY * (shaping ? 2 : 1);
  const growing = expr.pipeline.reduce((n, stage) => n + amplifyingTemplates(stage), 0);
  if (growing === 0) return estimate;
  return estimate + 2 * Math.min(limit * growing * TEMPLATE_OUTPUT_LIMIT, ENTRY_TEXT_BUDGET);
}

/** How many of the stage's templates can amplify. */
function amplifyingTemplates(stage: PipelineStage): number {
  if (stage.kind === "LineFormat") return amplifies(stage.template) ? 1 : 0;
  if (stage.kind !== "LabelFormat") return 0;
  return stage.ops.filter((op) => op.isTemplate && amplifies(op.src)).length;
}

function amplifies(template: string): boolean {
  try {
    return compileTemplate(template).amplifies;
  } catch {
    // A template that does not compile reads nothing: planning answers Loki's 400 for it.
    return false;
  }
}
