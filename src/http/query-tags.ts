/**
 * `X-Query-Tags`, read as Loki reads it: the characters it does not keep become `_`, the tags are
 * `key=value` pairs separated by commas (a pair that does not split into exactly two non-empty
 * parts is ignored), keys compared in lower case. Logs Drilldown tags its requests with
 * `Source=grafana-lokiexplore-app`, and Loki answers those differently (partial results past the
 * series limit).
 */

/** Loki keeps letters, digits, `-`, `=`, `.`, `@`, `,` and spaces. */
const UNSAFE = /[^a-zA-Z0-9\-=.@, ]+/g;

const LOGS_DRILLDOWN_APP = "grafana-lokiexplore-app";

/** The tags as key (lower case) and value pairs, in order. */
export function queryTags(header: string | null): [string, string][] {
  const out: [string, string][] = [];
  if (!header) return out;
  const safe = header.replace(UNSAFE, "_");
  for (const token of safe.split(",")) {
    // Go's strings.FieldsFunc: empty fields (from `==` or a leading `=`) are dropped.
    const parts = token.split("=").filter((p) => p !== "");
    if (parts.length !== 2) continue;
    out.push([parts[0]!.toLowerCase(), parts[1]!]);
  }
  return out;
}

/** Whether the request comes from Logs Drilldown (Loki's httpreq.IsLogsDrilldownRequest). */
export function isLogsDrilldownRequest(header: string | null): boolean {
  return queryTags(header).some(([k, v]) => k === "source" && v.toLowerCase() === LOGS_DRILLDOWN_APP);
}
