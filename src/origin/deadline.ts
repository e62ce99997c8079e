/**
 * Time limits on one origin request: the answer's headers must arrive within the timeout, and after
 * that every chunk of a streamed body must arrive within the same timeout of being asked for. An
 * idle limit rather than a total one: a large answer that keeps flowing is fine, an origin that
 * stops in the middle of its answer is not. The clock runs only while we wait on the origin, so a
 * consumer that is slow to read (back-pressure) is never mistaken for a stalled origin.
 */
import { HttpError, OriginError } from "../http/errors";

export class OriginDeadline {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
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
    this.clear();
    this.timer = setTimeout(() => this.controller.abort(new Error("origin deadline passed")), this.timeoutMs);
  }

  /** The origin delivered (or the request is over): stop the clock until we wait again. */
  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * The Loki-facing error for a request that failed before its headers arrived. `err` is the fetch
   * failure: its message names the transport problem (refused, reset), never credentials or a body.
   */
  connectError(err: unknown): HttpError {
    if (this.expired) return new OriginError(504, `origin did not answer within ${this.timeoutMs} ms`);
    if (this.clientSignal?.aborted) return clientCanceled();
    const reason = err instanceof Error ? err.message : String(err);
    return new OriginError(502, `origin unreachable: ${reason}`);
  }

  /** The Loki-facing error for a streamed body that failed after its headers arrived. */
  bodyError(err: unknown): HttpError {
    if (err instanceof HttpError) return err;
    if (this.expired) {
      return new OriginError(504, `origin stalled: no data for ${this.timeoutMs} ms in the middle of its answer`);
    }
    if (this.clientSignal?.aborted) return clientCanceled();
    return invalidAnswer("the connection broke in the middle of the answer");
  }

  /**
   * The body, timing every wait for a chunk and failing with Loki-shaped errors. Cancelling (a
   * consumer that stops early) cancels the origin's body.
   */
  guard(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        this.restart();
        try {
          const { done, value } = await this.race(reader.read());
          this.clear();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (err) {
          this.clear();
          controller.error(this.bodyError(err));
          await reader.cancel().catch(() => {});
        }
      },
      cancel: async (reason) => {
        this.clear();
        await reader.cancel(reason).catch(() => {});
      },
    });
  }

  /** `p`, or a rejection as soon as the deadline passes or the client goes away, whichever is first. */
  private race<T>(p: Promise<T>): Promise<T> {
    const signal = this.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }
}

/** A 2xx whose body is not what the endpoint promises: the origin (or a proxy before it) is at fault. */
export function invalidAnswer(problem: string): OriginError {
  return new OriginError(502, `origin sent an invalid answer: ${problem}`);
}

export function clientCanceled(): HttpError {
  return new HttpError(499, "client canceled the request");
}
