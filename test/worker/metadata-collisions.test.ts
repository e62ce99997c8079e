/**
 * A parser meeting a key named like a structured metadata field: the reference Loki keeps the
 * metadata's value and names the parsed one `…_extracted`, as for a stream label (its parser tests:
 * "structured metadata is preserved and parsed labels get _extracted suffix"). With level
 * discovery on, `detected_level` is such metadata on every entry. Expected labels are worked out
 * by hand from that rule, against the real VictoriaLogs.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { pushCounted } from "./support/metric-answers";
import { query, queryRange } from "./support/request";

const TENANT = "36:42";
const HEADERS = { "X-Scope-OrgID": TENANT };
const ENV = { DISCOVER_LOG_LEVELS: "true", CACHE: "off" };
const DATA_START = 1769904000; // 2026-02-01T00:00:00Z
const at = (s: number) => String(BigInt(DATA_START + s) * 1_000_000_000n);
const range = { start: String(DATA_START), end: String(DATA_START + 600), limit: "100", direction: "forward" };

/** Each entry's labels, in time order. */
async function labelsOf(q: string, pushdown: "on" | "off"): Promise<Record<string, string>[]> {
  const res = await queryRange({ query: q, ...range }, { headers: HEADERS, env: { ...ENV, PUSHDOWN: pushdown } });
  expect(res.status, res.body).toBe(200);
  const entries: [string, Record<string, string>][] = [];
  for (const s of res.json.data.result) for (const [ts] of s.values) entries.push([ts, s.stream]);
  return entries.sort((a, b) => (BigInt(a[0]) < BigInt(b[0]) ? -1 : 1)).map(([, labels]) => labels);
}

describe("parsed keys named like structured metadata", () => {
  beforeAll(async () => {
    const streams = [
      {
        stream: { app: "mcol" },
        values: [
          [at(1), '{"trace_id": "from-line", "msg": "a"}', { trace_id: "from-meta" }],
          [at(2), "trace_id=from-line level=warn", { trace_id: "from-meta" }],
          [at(3), '{"detected_level": "custom", "level": "error"}'],
          [at(4), '{"app": "inner", "v": 5}'],
        ],
      },
    ];
    await pushCounted(TENANT, "mcol", streams, DATA_START, ENV);
  });

  it("keep the metadata's value and are extracted as …_extracted, by every parser", async () => {
    for (const pushdown of ["on", "off"] as const) {
      expect(await labelsOf('{app="mcol"} |= "trace_id" | json', pushdown)).toEqual([
        { app: "mcol", trace_id: "from-meta", trace_id_extracted: "from-line", msg: "a", detected_level: "unknown" },
        expect.objectContaining({ trace_id: "from-meta", __error__: "JSONParserErr" }),
      ]);
      expect(await labelsOf('{app="mcol"} |= "trace_id=" | logfmt', pushdown)).toEqual([
        { app: "mcol", trace_id: "from-meta", trace_id_extracted: "from-line", level: "warn", detected_level: "warn" },
      ]);
      expect(await labelsOf('{app="mcol"} |= "trace_id=" | regexp "trace_id=(?P<trace_id>\\\\S+)"', pushdown)).toEqual([
        { app: "mcol", trace_id: "from-meta", trace_id_extracted: "from-line", detected_level: "warn" },
      ]);
    }
  });

  it("leave detected_level the derived one, the line's key as detected_level_extracted", async () => {
    for (const pushdown of ["on", "off"] as const) {
      expect(await labelsOf('{app="mcol"} |= "custom" | json', pushdown)).toEqual([
        { app: "mcol", detected_level: "error", detected_level_extracted: "custom", level: "error" },
      ]);
    }
    const res = await query(
      {
        query:
          'sum by (detected_level, detected_level_extracted) (count_over_time({app="mcol"} |= "custom" | json [1h]))',
        time: String(DATA_START + 600),
      },
      { headers: HEADERS, env: ENV },
    );
    expect(res.status, res.body).toBe(200);
    expect(res.json.data.result.map((s: { metric: Record<string, string> }) => s.metric)).toEqual([
      { detected_level: "error", detected_level_extracted: "custom" },
    ]);
  });

  it("group by the metadata value, and by the line's under …_extracted", async () => {
    for (const [q, expected] of [
      [
        'sum by (trace_id, trace_id_extracted) (count_over_time({app="mcol"} |= "trace_id=" | logfmt [1h]))',
        [{ trace_id: "from-meta", trace_id_extracted: "from-line" }],
      ],
      ['sum by (trace_id) (count_over_time({app="mcol"} |= "trace_id=" | logfmt [1h]))', [{ trace_id: "from-meta" }]],
    ] as const) {
      for (const pushdown of ["on", "off"]) {
        const res = await query(
          { query: q, time: String(DATA_START + 600) },
          { headers: HEADERS, env: { ...ENV, PUSHDOWN: pushdown } },
        );
        expect(res.status, res.body).toBe(200);
        expect(
          res.json.data.result.map((s: { metric: Record<string, string> }) => s.metric),
          q,
        ).toEqual(expected);
        expect(
          res.json.data.result.map((s: { value: [number, string] }) => s.value[1]),
          q,
        ).toEqual(["1"]);
      }
    }
  });

  it("an unwrap grouped by a parsed key's …_extracted name: the line's value", async () => {
    const q = 'max_over_time({app="mcol"} |= "inner" | json | unwrap v [1h]) by (app_extracted)';
    for (const pushdown of ["on", "off"]) {
      const res = await query(
        { query: q, time: String(DATA_START + 600) },
        { headers: HEADERS, env: { ...ENV, PUSHDOWN: pushdown } },
      );
      expect(res.status, res.body).toBe(200);
      const series = res.json.data.result.map((s: { metric: Record<string, string>; value: [number, string] }) => [
        s.metric,
        s.value[1],
      ]);
      expect(series, pushdown).toEqual([[{ app_extracted: "inner" }, "5"]]);
    }
  });
});
