// Replays the line_format / label_format templates of the compat corpus against what real Loki
// answered (test/fixtures/compat/golden). Entries carry their full label set in the golden streams;
// the original line (for __line__) and the logfmt fields (for label_format) come from the dataset.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { compileTemplate } from "../../../../src/engine/template/index";

// Part of every clone: a missing file fails the test (readFileSync throws), never skips it.
const COMPAT = resolve(__dirname, "../../../fixtures/compat");

interface Case {
  id: string;
  params: { query: string };
}
interface Golden {
  status: number;
  json: { data: { result: { stream: Record<string, string>; values: [string, string][] }[] } };
}

function load(id: string): { query: string; golden: Golden } {
  const cases = JSON.parse(readFileSync(resolve(COMPAT, "cases.json"), "utf8")) as Case[];
  const c = cases.find((x) => x.id === id)!;
  const golden = JSON.parse(readFileSync(resolve(COMPAT, "golden", `${id}.json`), "utf8")) as Golden;
  return { query: c.params.query, golden };
}

/** The template of the first `line_format "..."` or `name="..."` in a LogQL query. */
function templateOf(query: string, prefix: RegExp): string {
  const m = new RegExp(prefix.source + /"((?:[^"\\]|\\.)*)"/.source).exec(query);
  if (!m) throw new Error(`no template in ${query}`);
  return JSON.parse(`"${m[1]}"`) as string;
}

function entries(g: Golden): { labels: Record<string, string>; ts: string; line: string }[] {
  return g.json.data.result.flatMap((s) => s.values.map(([ts, line]) => ({ labels: s.stream, ts, line })));
}

let dataset: Map<string, { stream: Record<string, string>; line: string }> | null = null;
/** Dataset entries keyed by timestamp and pod (timestamps alone may repeat across streams). */
function datasetIndex(): Map<string, { stream: Record<string, string>; line: string }> {
  if (dataset) return dataset;
  dataset = new Map();
  const text = gunzipSync(readFileSync(resolve(COMPAT, "dataset-seed7.ndjson.gz"))).toString("utf8");
  for (const row of text.split("\n")) {
    if (!row) continue;
    const body = JSON.parse(row) as { streams: { stream: Record<string, string>; values: [string, string][] }[] };
    for (const s of body.streams)
      for (const [ts, line] of s.values) dataset.set(`${ts}/${s.stream.pod}`, { stream: s.stream, line });
  }
  return dataset;
}

describe("compat goldens", () => {
  it.each(["log-line-format", "log-line-format-if", "log-line-format-funcs", "log-line-filter-after-format"])(
    "%s: every line equals Loki's",
    (id) => {
      const { query, golden } = load(id);
      const t = compileTemplate(templateOf(query, /line_format /));
      const rows = entries(golden);
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(t.execute({ labels: r.labels, line: "unused", ts: BigInt(r.ts) })).toBe(r.line);
    },
  );

  it("log-line-format-line: __line__ | trunc 20", () => {
    const { query, golden } = load("log-line-format-line");
    const t = compileTemplate(templateOf(query, /line_format /));
    const data = datasetIndex();
    const rows = entries(golden);
    expect(rows.length).toBe(20);
    for (const r of rows) {
      const original = data.get(`${r.ts}/${r.labels.pod}`)!;
      expect(t.execute({ labels: r.labels, line: original.line, ts: BigInt(r.ts) })).toBe(r.line);
    }
    // spot check, written out: the first nginx line of pod nginx-3d9c17-0
    expect(rows[0]!.line).toBe("10.2.250.63 - - [01/");
  });

  it('log-line-format-timestamp: __timestamp__ | date "15:04:05"', () => {
    const { query, golden } = load("log-line-format-timestamp");
    const t = compileTemplate(templateOf(query, /line_format /));
    for (const r of entries(golden)) expect(t.execute({ labels: r.labels, line: "", ts: BigInt(r.ts) })).toBe(r.line);
    // 1769914766 s = 2026-02-01 00:00:00Z + 2h59m26s
    expect(t.execute({ labels: {}, line: "", ts: 1769914766190536839n })).toBe("02:59:26");
  });

  it("log-label-format-template: summary={{.job}}/{{.ok}}", () => {
    const { query, golden } = load("log-label-format-template");
    const t = compileTemplate(templateOf(query, /summary=/), "label");
    const data = datasetIndex();
    const byTs = new Map<string, { stream: Record<string, string>; line: string }>();
    for (const [k, v] of data) byTs.set(k.slice(0, k.indexOf("/")), v);
    const rows = entries(golden);
    expect(rows.length).toBe(20);
    for (const r of rows) {
      const original = byTs.get(r.ts)!;
      expect(original.line).toBe(r.line);
      // the logfmt `job=` field loses to the stream label (it becomes job_extracted)
      const ok = /\bok=(\S+)/.exec(original.line)?.[1] ?? "";
      const labels = { ...original.stream, ok };
      expect(t.execute({ labels, line: original.line, ts: BigInt(r.ts) })).toBe(r.labels.summary);
    }
  });
});
