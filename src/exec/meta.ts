/**
 * Label names, label values and series: answered from VictoriaLogs' stream index (stream fields
 * only, as Loki answers from its index of stream labels). Windows are widened to cache buckets so
 * nearby dashboard refreshes share one cached answer, as Loki's own index answers at chunk
 * granularity rather than to the nanosecond.
 */
import type { Matcher } from "../logql/ast";
import type { Labels } from "../engine/types";
import type { OriginClient } from "../origin/client";
import type { TimeWindow } from "../core/time-window";
import { parseStreamLabels } from "../origin/rows";
import { anyOfStreams, streamFilter } from "../plan/selector";
import { bucketWindow } from "../cache/buckets";
import { SERVICE_NAME, withServiceName } from "../engine/derived-fields";

/** The labels `service_name` is derived from, when the Worker derives it (else none). */
function serviceNamesOf(client: OriginClient): readonly string[] {
  return client.derivedFields?.serviceNameLabels ?? [];
}

export async function labelNames(client: OriginClient, window: TimeWindow, matchers?: Matcher[]): Promise<string[]> {
  const res = await client.values(
    "stream_field_names",
    matchers ? streamFilter(matchers, serviceNamesOf(client)) : "*",
    bucketWindow(window),
  );
  const names = res.values.map((v) => v.value).filter((name) => name !== "");
  // Every stream has a `service_name` once it is derived.
  if (names.length > 0 && serviceNamesOf(client).length > 0 && !names.includes(SERVICE_NAME)) names.push(SERVICE_NAME);
  return names.sort();
}

export async function labelValues(
  client: OriginClient,
  name: string,
  window: TimeWindow,
  matchers?: Matcher[],
): Promise<string[]> {
  if (name === SERVICE_NAME && serviceNamesOf(client).length > 0) {
    const streams = await series(client, matchers ? [matchers] : [], window);
    return [...new Set(streams.map((s) => s[SERVICE_NAME]!))].sort();
  }
  const res = await client.values(
    "stream_field_values",
    matchers ? streamFilter(matchers, serviceNamesOf(client)) : "*",
    bucketWindow(window),
    {
      field: name,
    },
  );
  return res.values
    .map((v) => v.value)
    .filter((value) => value !== "")
    .sort();
}

/** The distinct label sets of the streams matching any selector; no selector means every stream. */
export async function series(client: OriginClient, selectors: Matcher[][], window: TimeWindow): Promise<Labels[]> {
  const filter = selectors.length === 0 ? "*" : anyOfStreams(selectors, serviceNamesOf(client));
  const res = await client.values("streams", filter, bucketWindow(window));
  const seen = new Set<string>();
  const out: Labels[] = [];
  for (const v of res.values) {
    if (seen.has(v.value)) continue;
    seen.add(v.value);
    out.push(withServiceName(parseStreamLabels(v.value), serviceNamesOf(client)));
  }
  return out;
}
