/**
 * Synthetic VictoriaLogs query output (NDJSON rows as `/select/logsql/query` returns them to a log
 * query: in its field order, without the `_stream_id` log queries ask it to leave out), shaped like
 * real traffic: a few hundred streams, logfmt and JSON messages, trace ids as structured metadata.
 * Deterministic, so runs compare.
 */
import { prng } from "../../scripts/lib/prng.mjs";

const APPS = ["api", "checkout", "payments", "worker", "auth", "nginx"];
const NAMESPACES = ["prod", "staging"];
const LEVELS = ["info", "info", "info", "debug", "warn", "error"];
const PATHS = ["/api/v1/users", "/api/v1/cart", "/api/v1/orders", "/healthz", "/login"];

function hex(rand: () => number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += "0123456789abcdef"[Math.floor(rand() * 16)];
  return s;
}

/** A generator of rows; `next()` returns one NDJSON line (no newline), about 290 bytes long. */
export function rowSource(seed = 1, startNs = 1_769_904_000_000_000_000n): { next(): string } {
  const rand = prng(seed);
  let ts = startNs;
  return {
    next(): string {
      ts += BigInt(1 + Math.floor(rand() * 2_000_000));
      const app = APPS[Math.floor(rand() * APPS.length)]!;
      const ns = NAMESPACES[Math.floor(rand() * 2)]!;
      const pod = `${app}-${Math.floor(rand() * 20)}`;
      const level = LEVELS[Math.floor(rand() * LEVELS.length)]!;
      const path = PATHS[Math.floor(rand() * PATHS.length)]!;
      const ms = Math.floor(rand() * 900);
      const msg =
        app === "worker" || app === "auth"
          ? `level=${level} msg="job done" path=${path} duration=${ms}ms attempt=${Math.floor(rand() * 5)}`
          : `{"level":"${level}","method":"GET","path":"${path}","status":${rand() < 0.9 ? 200 : 502},"latency_ms":${ms}}`;
      const stream = `{app="${app}",namespace="${ns}",pod="${pod}"}`;
      // VictoriaLogs' order: `_time`, `_stream`, `_msg`, then the other fields by name.
      return JSON.stringify({
        _time: isoNanos(ts),
        _stream: stream,
        _msg: msg,
        app,
        namespace: ns,
        pod,
        trace_id: hex(rand, 16),
      });
    },
  };
}

function isoNanos(ns: bigint): string {
  const ms = Number(ns / 1_000_000n);
  const frac = (ns % 1_000_000_000n).toString().padStart(9, "0").replace(/0+$/, "");
  return new Date(ms).toISOString().slice(0, 19) + (frac ? "." + frac : "") + "Z";
}

/**
 * `totalBytes` of NDJSON in `chunkBytes` pieces cut at arbitrary positions, replayed from a pool of
 * `poolBytes` of generated rows: the consumer's throughput is measured without the generator's cost.
 * The pool is allocated when this is called (before a caller takes its heap baseline).
 */
export function replayedNdjsonStream(
  totalBytes: number,
  { chunkBytes = 64 * 1024, poolBytes = 16 * 1024 * 1024, seed = 1, onChunk = (_bytes: number) => {} } = {},
): ReadableStream<Uint8Array> {
  const rows = rowSource(seed);
  const parts: string[] = [];
  let size = 0;
  while (size < poolBytes) {
    const line = rows.next() + "\n";
    parts.push(line);
    size += line.length;
  }
  // Ends at a line end, so wrapping around joins whole rows.
  const pool = new TextEncoder().encode(parts.join(""));
  let produced = 0;
  let offset = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (produced >= totalBytes && offset === 0) {
          controller.close();
          return;
        }
        // Past the total, finish the current pass so the stream ends on a line end.
        const take = Math.min(chunkBytes, pool.length - offset);
        controller.enqueue(pool.slice(offset, offset + take));
        onChunk(take);
        offset = (offset + take) % pool.length;
        produced += take;
      },
    },
    { highWaterMark: 0 },
  );
}
