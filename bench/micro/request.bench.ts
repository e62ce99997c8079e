/**
 * The Worker's own work per request, without a network: `createApp().fetch` for a log query whose
 * origin is a stub answering 100 NDJSON rows from memory (global fetch replaced), and for a labels
 * request. Every request has a query text never seen before (the "cold" case: no parse or plan
 * cache hit) or the same text each time ("warm"). Mean time reads as the request path's own cost.
 */
import { afterAll, beforeAll, bench, describe } from "vitest";
import { createApp } from "../../src/app";
import type { Env } from "../../src/config";
import { rowSource } from "../lib/synthetic";

const src = rowSource(7);
const rows = new TextEncoder().encode(Array.from({ length: 100 }, () => src.next()).join("\n") + "\n");
const labels = new TextEncoder().encode('{"values":[{"value":"app","hits":1},{"value":"pod","hits":1}]}');

const realFetch = globalThis.fetch;
beforeAll(() => {
  globalThis.fetch = (async (input: RequestInfo | URL) => {
    const url = String(input instanceof Request ? input.url : input);
    return new Response(url.includes("field_names") || url.includes("stream_field") ? labels : rows, {
      headers: { "Content-Type": "application/stream+json" },
    });
  }) as typeof fetch;
});
afterAll(() => {
  globalThis.fetch = realFetch;
});

const env: Env = { ORIGIN_URL: "http://origin.invalid:9428", CACHE: "off" };
const app = createApp();
let n = 0;
let sink = 0;

async function ask(query: string): Promise<void> {
  const params = new URLSearchParams({ query, start: "1769904000", end: "1769907600", limit: "100" });
  const res = await app.fetch(new Request(`http://worker.local/loki/api/v1/query_range?${params}`), env);
  sink += (await res.arrayBuffer()).byteLength;
  if (res.status !== 200) throw new Error(`status ${res.status}`);
}

describe("request path, stub origin (mean ms per request)", () => {
  bench("log query, cold (new query text each time)", async () => {
    await ask(`{app="api"} |= "GET /${n++}"`);
  });
  bench("log query, warm (same query text)", async () => {
    await ask('{app="api"} |= "GET /"');
  });
  bench("labels", async () => {
    const res = await app.fetch(
      new Request("http://worker.local/loki/api/v1/labels?start=1769904000&end=1769907600"),
      env,
    );
    sink += (await res.arrayBuffer()).byteLength;
  });
});

afterAll(() => {
  if (sink < 0) console.log(sink);
});
