/**
 * Streamed origin answers (/select/logsql/query) that go wrong after their headers: each failure
 * must end the read with Loki's 502/504 (or 499 for the client's own cancellation), never with a
 * silently shorter answer. The origin is a stubbed fetch whose body the test drives chunk by chunk.
 */
import { afterEach, describe, expect, it } from "vitest";
import { OriginClient } from "../../../src/origin/client";
import { RequestError } from "../../../src/core/errors";
import { statusOf } from "../../../src/http/errors";

const WINDOW = { start: 1714557600000000000n, end: 1714561200000000000n };
const CONFIG = { baseUrl: "http://vl:9428", authorization: "Basic c2VjcmV0", timeoutMs: 100 };
const ROW = '{"_time":"2024-05-01T10:00:00Z","_stream":"{app=\\"a\\"}","_msg":"hello"}\n';
const enc = new TextEncoder();

type Step = string | "stall" | "reset";

/** A fetch answering 200 with the given body steps: text chunks, then a stall or a reset. */
function stubOrigin(steps: Step[], status = 200, contentType = "application/stream+json") {
  const real = globalThis.fetch;
  restore = () => (globalThis.fetch = real);
  globalThis.fetch = (async (_input: RequestInfo | URL, init?: RequestInit) => {
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const step = steps[i++];
        if (step === undefined) controller.close();
        else if (step === "stall") return new Promise<void>(() => {});
        else if (step === "reset") controller.error(new TypeError("Network connection lost."));
        else controller.enqueue(enc.encode(step));
      },
    });
    init?.signal?.throwIfAborted();
    return new Response(body, { status, headers: { "Content-Type": contentType } });
  }) as typeof fetch;
}
let restore = () => {};
afterEach(() => restore());

const client = (signal?: AbortSignal) => new OriginClient(CONFIG, { accountId: 0, projectId: 0 }, signal);

async function logRowsOutcome(signal?: AbortSignal): Promise<{ rows: number; error?: RequestError }> {
  let rows = 0;
  try {
    for await (const batch of client(signal).logRows("*", WINDOW)) rows += batch.length;
    return { rows };
  } catch (err) {
    if (!(err instanceof RequestError)) throw err;
    return { rows, error: err };
  }
}

async function queryOutcome(): Promise<{ rows: number; error?: RequestError }> {
  let rows = 0;
  try {
    for await (const _row of client().query("* | stats count() c", WINDOW)) rows++;
    return { rows };
  } catch (err) {
    if (!(err instanceof RequestError)) throw err;
    return { rows, error: err };
  }
}

const statusAndMessage = (o: { error?: RequestError }) => [o.error && statusOf(o.error), o.error?.message];

describe("OriginClient on streamed answers", () => {
  it("reads a complete answer in any chunking", async () => {
    stubOrigin([ROW, ROW.slice(0, 10), ROW.slice(10), ROW]);
    expect(await logRowsOutcome()).toEqual({ rows: 3 });
  });

  it("fails a body cut in the middle of a line with 502, for both row readers", async () => {
    stubOrigin([ROW, ROW.slice(0, 30)]);
    const logs = await logRowsOutcome();
    expect(statusAndMessage(logs)).toEqual([
      502,
      "origin sent an invalid answer: a row of the streamed answer is not valid JSON",
    ]);
    stubOrigin([ROW, ROW.slice(0, 30)]);
    expect(statusAndMessage(await queryOutcome())).toEqual([
      502,
      "origin sent an invalid answer: a row of the streamed answer is not valid JSON",
    ]);
  });

  it("fails a 200 HTML page with 502 instead of rows or an empty answer", async () => {
    stubOrigin(["<html><body>502 Bad Gateway</body></html>\n"], 200, "text/html");
    expect(statusAndMessage(await logRowsOutcome())[0]).toBe(502);
    stubOrigin(["<html><body>502 Bad Gateway</body></html>\n"], 200, "text/html");
    expect(statusAndMessage(await queryOutcome())[0]).toBe(502);
  });

  it("fails JSON lines that are not objects with 502", async () => {
    stubOrigin(["[1,2]\n"]);
    expect(statusAndMessage(await logRowsOutcome())[0]).toBe(502);
    stubOrigin(['"x"\n']);
    expect(statusAndMessage(await queryOutcome())[0]).toBe(502);
  });

  it("fails a connection reset in the middle of the body with 502", async () => {
    stubOrigin([ROW, ROW, "reset"]);
    expect(statusAndMessage(await logRowsOutcome())).toEqual([
      502,
      "origin sent an invalid answer: the connection broke in the middle of the answer",
    ]);
  });

  it("fails a body that stops flowing for the timeout with 504", async () => {
    stubOrigin([ROW, "stall"]);
    const started = Date.now();
    const outcome = await logRowsOutcome();
    expect(statusAndMessage(outcome)).toEqual([504, "origin stalled: no data for 100 ms in the middle of its answer"]);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("does not count a slow consumer's pauses against the origin", async () => {
    stubOrigin([ROW, ROW, ROW]);
    let rows = 0;
    for await (const batch of client().logRows("*", WINDOW)) {
      rows += batch.length;
      // Longer than the idle limit, spent on our side between reads.
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(rows).toBe(3);
  });

  it("reports the client's own cancellation in the middle of the body as 499", async () => {
    stubOrigin([ROW, "stall"]);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    const outcome = await logRowsOutcome(ac.signal);
    expect(outcome.error && statusOf(outcome.error)).toBe(499);
  });

  it("never echoes the body of an error status", async () => {
    stubOrigin(["upstream says: secret-internal-host:9428"], 500, "text/plain");
    const outcome = await logRowsOutcome();
    expect(statusAndMessage(outcome)).toEqual([502, "origin failed (HTTP 500)"]);
  });

  it("asks for log rows without `_stream_id`, which `_stream` already spells out", async () => {
    const real = globalThis.fetch;
    restore = () => (globalThis.fetch = real);
    const sent: string[] = [];
    globalThis.fetch = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      sent.push(new URLSearchParams(String(init?.body)).get("query") ?? "");
      return new Response(ROW, { headers: { "Content-Type": "application/stream+json" } });
    }) as typeof fetch;
    let rows = 0;
    for await (const batch of client().logRows('{app="a"} | sort by (_time desc) | limit 10', WINDOW))
      rows += batch.length;
    expect(rows).toBe(1);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/ \{app="a"\} \| sort by \(_time desc\) \| limit 10 \| delete _stream_id$/);
  });
});
