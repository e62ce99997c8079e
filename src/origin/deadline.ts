/**
 * Time limits on one origin request: the answer's headers must arrive within the timeout, and after
 * that every chunk of a streamed body must arrive within the same timeout of being asked for. An
 * idle limit rather than a total one: a large answer that keeps flowing is fine, an origin that
 * stops in the middle of its answer is not. The clock runs only while we wait on the origin, so a
 * consumer that is slow to read (back-pressure) is never mistaken for a stalled origin.
 */
import { ClientCanceledError, OriginError, RequestError } from "../core/errors";
import type { ChunkReader } from "./ndjson";
import { bodyReader } from "./body-reader";

export class OriginDeadline {
  private readonly controller = new AbortController();
  /**
   * One timer per request, not one per chunk: when it fires it looks at how long the current wait
   * has lasted and re-arms for the rest, so a chunk only records when its wait began.
   */
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the current wait on the origin began; undefined while we are not waiting. */
  private waitingSince: number | undefined;
  /** Whether the abort listener is in place (one per request, added by the first wait). */
  private listening = false;
  /** Rejects the read in flight; undefined when none is. */
  private rejectWait: ((reason: unknown) => void) | undefined;
  /** Aborts the fetch and its body when the deadline passes or the client goes away. */
  readonly signal: AbortSignal;

  constructor(
    readonly timeoutMs: number,
    /** The client's own signal: its abort is a cancellation (499), not an origin failure. */
    private readonly clientSignal?: AbortSignal,
  ) {
    this.signal = clientSignal ? AbortSignal.any([clientSignal, this.controller.signal]) : this.controller.signal;
    this.restart();
  }

  get expired(): boolean {
    return this.controller.signal.aborted;
  }

  /** We wait on the origin again: it has `timeoutMs` for this step. */
  restart(): void {
    if (this.expired) return;
    this.waitingSince = Date.now();
    if (this.timer === undefined) this.arm(this.timeoutMs);
  }

  /** The origin delivered: the clock stops until we wait again. */
  clear(): void {
    this.waitingSince = undefined;
  }

  /** The request is over: no clock any more. */
  end(): void {
    this.waitingSince = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.waitingSince === undefined) return;
      const waited = Date.now() - this.waitingSince;
      if (waited >= this.timeoutMs) this.controller.abort(new Error("origin deadline passed"));
      else this.arm(this.timeoutMs - waited);
    }, ms);
  }

  /**
   * The Loki-facing error for a request that failed before its headers arrived. `err` is the fetch
   * failure: its message names the transport problem (refused, reset), never credentials or a body.
   */
  connectError(err: unknown): RequestError {
    if (this.expired) return new OriginError("origin-timeout", `origin did not answer within ${this.timeoutMs} ms`);
    if (this.clientSignal?.aborted) return clientCanceled();
    const reason = err instanceof Error ? err.message : String(err);
    return new OriginError("origin-unavailable", `origin unreachable: ${reason}`);
  }

  /** The Loki-facing error for a streamed body that failed after its headers arrived. */
  bodyError(err: unknown): RequestError {
    if (err instanceof RequestError) return err;
    if (this.expired) {
      return new OriginError(
        "origin-timeout",
        `origin stalled: no data for ${this.timeoutMs} ms in the middle of its answer`,
      );
    }
    if (this.clientSignal?.aborted) return clientCanceled();
    return invalidAnswer("the connection broke in the middle of the answer");
  }

  /**
   * The body as a reader, timing every wait for a chunk and failing with Loki-shaped errors.
   * Cancelling (a consumer that stops early) cancels the origin's body. A reader rather than another
   * stream: each chunk then costs no extra stream pull.
   */
  guard(body: ReadableStream<Uint8Array>): ChunkReader {
    const reader = bodyReader(body);
    return {
      read: async () => {
        this.restart();
        try {
          const chunk = await this.race(reader.read());
          if (chunk.done) this.end();
          else this.clear();
          return chunk;
        } catch (err) {
          this.end();
          await reader.cancel().catch(() => {});
          throw this.bodyError(err);
        }
      },
      cancel: async (reason) => {
        this.end();
        await reader.cancel(reason).catch(() => {});
      },
    };
  }

  /** `p`, or a rejection as soon as the deadline passes or the client goes away, whichever is first. */
  private race<T>(p: Promise<T>): Promise<T> {
    const signal = this.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    if (!this.listening) {
      // One listener for the whole request, rejecting whichever read is in flight (one at a time).
      // Not Promise.race against one long-lived promise: every race would stay subscribed to it,
      // and hold its chunk, until the request ends.
      this.listening = true;
      signal.addEventListener("abort", () => this.rejectWait?.(signal.reason), { once: true });
    }
    return new Promise<T>((resolve, reject) => {
      this.rejectWait = reject;
      p.then(
        (value) => {
          this.rejectWait = undefined;
          resolve(value);
        },
        (err: unknown) => {
          this.rejectWait = undefined;
          reject(err);
        },
      );
    });
  }
}

/** A 2xx whose body is not what the endpoint promises: the origin (or a proxy before it) is at fault. */
export function invalidAnswer(problem: string): OriginError {
  return new OriginError("origin-unavailable", `origin sent an invalid answer: ${problem}`);
}

export function clientCanceled(): ClientCanceledError {
  return new ClientCanceledError();
}
