import { describe, expect, it } from "vitest";
import { OriginDeadline } from "../../../src/origin/deadline";
import { RequestError } from "../../../src/core/errors";
import { statusOf } from "../../../src/http/errors";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A body that sends `chunks` chunks, `gapMs` apart, then ends (or never ends when `stallAfter` is reached). */
function slowBody(chunks: number, gapMs: number, stallAfter = Infinity): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent >= stallAfter) return new Promise<void>(() => {}); // never delivers again
      await sleep(gapMs);
      if (sent === chunks) controller.close();
      else controller.enqueue(new Uint8Array([sent++]));
    },
  });
}

async function readAll(reader: { read(): Promise<ReadableStreamReadResult<Uint8Array>> }): Promise<number> {
  let chunks = 0;
  for (;;) {
    const { done } = await reader.read();
    if (done) return chunks;
    chunks++;
  }
}

describe("OriginDeadline", () => {
  it("is an idle limit: a body that keeps flowing outlives the timeout in total", async () => {
    const deadline = new OriginDeadline(150);
    deadline.clear(); // headers arrived
    // 10 chunks 30 ms apart: 300 ms in all, twice the limit, never 150 ms without data.
    expect(await readAll(deadline.guard(slowBody(10, 30)))).toBe(10);
    expect(deadline.expired).toBe(false);
  });

  it("fails a body that stops in the middle with Loki's 504", async () => {
    const deadline = new OriginDeadline(60);
    deadline.clear();
    const reader = deadline.guard(slowBody(10, 5, 3));
    const err = await readAll(reader).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestError);
    expect(statusOf(err as RequestError)).toBe(504);
    expect((err as RequestError).message).toMatch(/origin stalled: no data for 60 ms/);
  });

  it("does not count the time the consumer takes between reads", async () => {
    const deadline = new OriginDeadline(50);
    deadline.clear();
    const reader = deadline.guard(slowBody(3, 1));
    expect((await reader.read()).done).toBe(false);
    await sleep(120); // a slow consumer (back-pressure), not a stalled origin
    expect(await readAll(reader)).toBe(2);
    expect(deadline.expired).toBe(false);
  });

  it("answers 499 when the client goes away while a chunk is awaited", async () => {
    const client = new AbortController();
    const deadline = new OriginDeadline(10_000, client.signal);
    deadline.clear();
    const reader = deadline.guard(slowBody(10, 5, 1));
    expect((await reader.read()).done).toBe(false);
    const pending = reader.read();
    setTimeout(() => client.abort(new Error("client left")), 20);
    const err = await pending.catch((e: unknown) => e);
    expect(statusOf(err as RequestError)).toBe(499);
    deadline.end();
  });

  it("aborts its signal at once for a client already gone, as a cancellation, not a timeout", () => {
    const client = new AbortController();
    client.abort(new Error("client left"));
    const deadline = new OriginDeadline(10_000, client.signal);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired).toBe(false);
    expect(statusOf(deadline.connectError(new Error("aborted")))).toBe(499);
    deadline.end();
  });

  it("tells a passed deadline (504) from a client that went away (499) before the headers", async () => {
    const client = new AbortController();
    const timedOut = new OriginDeadline(20, client.signal);
    await sleep(60);
    expect(timedOut.signal.aborted).toBe(true);
    expect(timedOut.expired).toBe(true);
    expect(statusOf(timedOut.connectError(new Error("aborted")))).toBe(504);
    timedOut.end();

    const left = new OriginDeadline(10_000, client.signal);
    client.abort(new Error("client left"));
    expect(left.signal.aborted).toBe(true);
    expect(left.expired).toBe(false);
    expect(statusOf(left.connectError(new Error("aborted")))).toBe(499);
    left.end();
  });
});
