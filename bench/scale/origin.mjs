// A VictoriaLogs holding the scale dataset, loaded once: the data directory is kept in the cache
// directory (outside the source tree) under a name that carries everything the rows depend on, so
// a later run with the same size starts VictoriaLogs on it and skips the load.

import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  cacheDir,
  countRows,
  startVictoriaLogs,
  VICTORIA_METRICS_VERSION,
  waitForRows,
} from "../../scripts/lib/victorialogs.mjs";
import { scaleDataset, STREAM_FIELDS } from "./generate.mjs";

/** Bumped whenever the generator's rows change: a cached load of other rows is not reused. */
const GENERATOR_VERSION = 1;
/** Batches in flight at once: generating the next one while VictoriaLogs ingests the last. */
const IN_FLIGHT = 2;

/**
 * @param {{ rows: number, days: number, endMs: number, say: (m: string) => void }} options
 */
export async function scaleOrigin({ rows, days, endMs, say }) {
  return loadedOrigin({
    dataDir: join(cacheDir(), `scale-g${GENERATOR_VERSION}-${rows}-${days}d-${VICTORIA_METRICS_VERSION}`),
    dataset: scaleDataset({ rows, days, endMs }),
    streamFields: STREAM_FIELDS,
    what: `about ${rows.toLocaleString("en")} rows over ${days} days`,
    say,
  });
}

/**
 * A VictoriaLogs on `dataDir` holding `dataset`'s rows: loaded through jsonline ingestion the first
 * time, reused as it is when an earlier load finished (its marker file says how many rows).
 * @param {{ dataDir: string, dataset: { startMs: number, endMs: number, streams: Record<string, string>[], bodies: (onRow?: (si: number, bytes: number) => void) => Iterable<string> }, streamFields: string[], what: string, say: (m: string) => void }} options
 * @returns {Promise<{ vl: Awaited<ReturnType<typeof startVictoriaLogs>>, startMs: number, endMs: number, streams: Record<string, string>[], rows: number, loadSeconds: number, pushedMB: number, dataDir: string, loadedNow: boolean }>}
 */
export async function loadedOrigin({ dataDir, dataset: ds, streamFields, what, say }) {
  const marker = join(dataDir, "loaded.json");
  const fresh = !existsSync(marker);
  // A load that did not finish leaves no marker: its partial data is dropped, not added to.
  if (fresh) await rm(join(dataDir, "data"), { recursive: true, force: true });
  await mkdir(dataDir, { recursive: true });
  const vl = await startVictoriaLogs({ dataDir });
  say(`VictoriaLogs ${vl.url} (data in ${dataDir})`);
  const range = { start: new Date(ds.startMs - 1000).toISOString(), end: new Date(ds.endMs + 1000).toISOString() };
  if (!fresh) {
    const loaded = JSON.parse(await readFile(marker, "utf8"));
    const visible = await countRows(vl.url, "*", range);
    if (visible !== loaded.rows) {
      throw new Error(`${dataDir} holds ${visible} rows, ${loaded.rows} were loaded: delete it to load again`);
    }
    return { vl, ...ds, ...loaded, dataDir, loadedNow: false };
  }
  say(`generating and loading ${what}...`);
  const t0 = Date.now();
  const endpoint =
    `${vl.url}/insert/jsonline?` +
    new URLSearchParams({ _stream_fields: streamFields.join(","), _time_field: "_time", _msg_field: "_msg" });
  const perStream = ds.streams.map((labels) => ({ labels, entries: 0 }));
  let pushed = 0;
  let bytes = 0;
  /** @type {Set<Promise<void>>} */
  const inFlight = new Set();
  let lastReport = Date.now();
  for (const body of ds.bodies((si, len) => {
    perStream[si].entries++;
    pushed++;
    bytes += len + 1;
  })) {
    const post = fetch(endpoint, { method: "POST", body, headers: { "Content-Type": "application/stream+json" } }).then(
      async (res) => {
        const text = await res.text();
        if (!res.ok) throw new Error(`jsonline ingestion: HTTP ${res.status}: ${text.slice(0, 300)}`);
      },
    );
    const tracked = post.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
    if (Date.now() - lastReport > 15_000) {
      lastReport = Date.now();
      say(`  ${pushed.toLocaleString("en")} rows pushed (${Math.round((Date.now() - t0) / 1000)} s)`);
    }
  }
  await Promise.all(inFlight);
  await waitForRows(vl.url, pushed, {
    ...range,
    timeoutMs: 600_000,
    streams: new Map(perStream.map((s, i) => [String(i), s])),
  });
  // Written to disk now: a VictoriaLogs killed later (SIGKILL at an interrupted run's exit) would
  // otherwise lose the rows still held in memory, and the marker would claim rows that are gone.
  const flushed = await fetch(`${vl.url}/internal/force_flush`);
  if (!flushed.ok) throw new Error(`force_flush: HTTP ${flushed.status}`);
  await flushed.arrayBuffer();
  const loaded = {
    rows: pushed,
    loadSeconds: Math.round((Date.now() - t0) / 1000),
    pushedMB: Math.round(bytes / 1e6),
    loadedAt: new Date().toISOString(),
  };
  await writeFile(marker, JSON.stringify(loaded));
  say(`loaded ${pushed.toLocaleString("en")} rows (${loaded.pushedMB} MB of jsonline) in ${loaded.loadSeconds} s`);
  return { vl, ...ds, ...loaded, dataDir, loadedNow: true };
}
