// A VictoriaLogs holding the Drilldown dataset, loaded once into the cache directory (outside the
// source tree) under a name that carries everything the rows depend on, as the scale benchmark's is.

import { join } from "node:path";
import { cacheDir, VICTORIA_METRICS_VERSION } from "../../scripts/lib/victorialogs.mjs";
import { loadedOrigin } from "../scale/origin.mjs";
import { drilldownDataset, STREAM_FIELDS } from "./generate.mjs";

/** Bumped whenever the generator's rows change: a cached load of other rows is not reused. */
const GENERATOR_VERSION = 1;

/** @param {{ hours: number, rowsPerHour: number, endMs: number, say: (m: string) => void }} options */
export async function drilldownOrigin({ hours, rowsPerHour, endMs, say }) {
  const dataset = drilldownDataset({ hours, rowsPerHour, endMs });
  const origin = await loadedOrigin({
    dataDir: join(
      cacheDir(),
      `drilldown-g${GENERATOR_VERSION}-${hours}h-${rowsPerHour}ph-${endMs}-${VICTORIA_METRICS_VERSION}`,
    ),
    dataset,
    streamFields: STREAM_FIELDS,
    what: `about ${(hours * rowsPerHour).toLocaleString("en")} rows over ${hours} hours`,
    say,
  });
  return { ...origin, tracePoolPerHour: dataset.tracePoolPerHour };
}
