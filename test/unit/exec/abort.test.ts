/**
 * A client that goes away must stop every origin request it caused. A tiny slow origin (a local HTTP
 * server that drips NDJSON rows and never finishes) records when each request's connection closes.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OriginClient } from "../../../src/origin/client";
import type { TimeWindow } from "../../../src/core/time-window";
import { runWindows, splitWindows } from "../../../src/exec/windows";
import { mergeConcurrent } from "../../../src/exec/merge";

interface SeenRequest {
  query: string;
  closed: Promise<void>;
  isClosed: () => boolean;
}

let server: Server;
let baseUrl: string;
const seen: SeenRequest[] = [];

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let s = "";
    req
      .setEncoding("utf8")
      .on("data", (c) => (s += c))
      .on("end", () => resolve(s));
  });
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const form = new URLSearchParams(await readBody(req));
    let closed = false;
    let markClosed!: () => void;
    const closedP = new Promise<void>((r) => (markClosed = r));
    res.on("close", () => {
      closed = true;
      clearInterval(timer);
      markClosed();
    });
    seen.push({ query: form.get("query") ?? "", closed: closedP, isClosed: () => closed });
    res.writeHead(200, { "Content-Type": "application/stream+json" });
    let i = 0;
    const timer = setInterval(() => {
      res.write(`{"_msg":"row ${i}","_time":"2026-02-01T00:00:0${i % 10}Z","_stream":"{app=\\"slow\\"}"}\n`);
      i++;
    }, 20);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const HOUR = 3_600_000_000_000n;
const T0 = 1_769_904_000_000_000_000n;

function client(signal?: AbortSignal): OriginClient {
  return new OriginClient({ baseUrl, timeoutMs: 30_000 }, { accountId: 0, projectId: 0 }, signal);
}

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Reads `n` rows of one window, then keeps reading until aborted. */
async function drain(c: OriginClient, w: TimeWindow, rowsSeen: { n: number }): Promise<void> {
  for await (const _ of c.query("*", w)) rowsSeen.n++;
}

describe("client disconnect aborts origin requests", () => {
  it("aborting the request signal closes a streaming origin response", async () => {
    const before = seen.length;
    const ac = new AbortController();
    const rows = { n: 0 };
    const run = drain(client(ac.signal), { start: T0, end: T0 + HOUR }, rows);
    await waitFor(() => rows.n >= 2);
    ac.abort();
    // Aborted before the response: a 499 ClientCanceledError; while streaming the body: the fetch's AbortError.
    await expect(run).rejects.toBeDefined();
    await seen[before]!.closed;
  });

  it("a consumer that stops reading early closes the origin response", async () => {
    const before = seen.length;
    let n = 0;
    for await (const _ of client().query("*", { start: T0, end: T0 + HOUR })) if (++n === 3) break;
    await seen[before]!.closed;
  });

  it("runWindows: aborting the parent closes every in-flight window request", async () => {
    const before = seen.length;
    const ac = new AbortController();
    const c = client(ac.signal);
    const windows = splitWindows({ start: T0, end: T0 + 12n * HOUR }, HOUR, true);
    let firstDone = false;
    const run = runWindows(
      windows,
      6,
      ac.signal,
      async (w, signal) => {
        // The first window answers quickly so that concurrency ramps up; the rest never end.
        let n = 0;
        for await (const _ of c.withSignal(signal).query("*", w)) if (w === windows[0] && ++n === 2) break;
        firstDone = true;
        return 0;
      },
      () => true,
    );
    await waitFor(() => firstDone && seen.length - before >= 3);
    const started = seen.slice(before);
    ac.abort(new Error("client went away"));
    await expect(run).rejects.toBeDefined();
    await Promise.all(started.map((s) => s.closed));
    expect(started.every((s) => s.isClosed())).toBe(true);
    // No window is started after the abort.
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.length - before).toBe(started.length);
    // Newest window first for backward queries: the first request is for 11:00..12:00.
    expect(started[0]!.query).toContain("2026-02-01T11:00:00.000000000Z");
  });

  it("mergeConcurrent: stopping the consumer closes every running window request", async () => {
    const before = seen.length;
    const c = client();
    const windows = splitWindows({ start: T0, end: T0 + 12n * HOUR }, HOUR, false);
    const sources = windows.map((w) => (signal: AbortSignal) => c.withSignal(signal).query("*", w));
    let n = 0;
    for await (const _ of mergeConcurrent(sources, 6)) if (++n === 20) break;
    const started = seen.slice(before);
    expect(started).toHaveLength(6);
    await Promise.all(started.map((s) => s.closed));
  });

  // Metric queries fan out through mergeConcurrent with no parent signal of their own: the client's
  // signal must survive client.withSignal(windowSignal) for a disconnect to reach every window.
  it("mergeConcurrent under a request signal: the client's disconnect closes every window request", async () => {
    // Metric queries fan out through mergeConcurrent with client.withSignal(windowSignal): the
    // request's own signal must still reach each window's fetch.
    const before = seen.length;
    const ac = new AbortController();
    const c = client(ac.signal);
    const windows = splitWindows({ start: T0, end: T0 + 12n * HOUR }, HOUR, false);
    const sources = windows.map((w) => (signal: AbortSignal) => c.withSignal(signal).query("*", w));
    const consume = (async () => {
      for await (const _ of mergeConcurrent(sources, 6));
    })();
    consume.catch(() => {});
    await waitFor(() => seen.length - before >= 6);
    ac.abort();
    const started = seen.slice(before);
    const allClosed = Promise.all(started.map((s) => s.closed)).then(() => true);
    const timeout = new Promise<boolean>((r) => setTimeout(() => r(false), 1000));
    const closedInTime = await Promise.race([allClosed, timeout]);
    if (!closedInTime) {
      // Unblock the dripping responses so the test leaves nothing running.
      server.closeAllConnections();
    }
    expect(closedInTime).toBe(true);
  });
});
