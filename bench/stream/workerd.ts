/**
 * The stream proof's path (path.ts) in workerd, the Workers runtime, for its throughput: a Worker
 * module that `GET /setup?bytes=N` prepares (the generated input pool, not timed) and `GET /run`
 * runs to its end, answering `{"rows":…,"outputBytes":…}`. Timed from outside by run.mjs: inside
 * an isolate the clocks do not advance while code runs.
 */
import { replayedNdjsonStream } from "../lib/synthetic";
import { drain, lokiBody } from "./path";

let source: ReadableStream<Uint8Array> | undefined;

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/setup") {
      source = replayedNdjsonStream(Number(url.searchParams.get("bytes")));
      return new Response("ready");
    }
    if (url.pathname !== "/run" || !source) return new Response("set up first", { status: 400 });
    const input = source;
    source = undefined;
    let rows = 0;
    const outputBytes = await drain(lokiBody(input, (n) => (rows += n)));
    return Response.json({ rows, outputBytes });
  },
};
