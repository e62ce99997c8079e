/**
 * scripts/grafana/dashboard.json: valid JSON for Grafana, every panel queries the dataset chosen in
 * the dashboard, and its SQL reads only the columns the Worker writes (src/http/metrics.ts), so a
 * renamed or dropped column breaks this test rather than a panel.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { METRIC_BLOBS, METRIC_DOUBLES } from "../../../src/http/metrics";

const dashboard = JSON.parse(readFileSync(new URL("../../../scripts/grafana/dashboard.json", import.meta.url), "utf8"));

interface Target {
  query: string;
}
interface Panel {
  title: string;
  targets: Target[];
}

const panels = dashboard.panels as Panel[];

/** The columns Analytics Engine keeps for every point, beside the blobs, doubles and index. */
const TABLE_COLUMNS = new Set(["timestamp", "_sample_interval", "dataset"]);

describe("Grafana dashboard", () => {
  it("has the panels an operator needs", () => {
    expect(panels.map((p) => p.title)).toEqual(
      expect.arrayContaining([
        "Cache hit ratio",
        "Origin savings",
        "Latency percentiles",
        "Errors by route",
        "Top tenants",
      ]),
    );
  });

  it("reads only the columns the Worker writes, from the chosen dataset, weighted by sampling", () => {
    for (const panel of panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const { query } of panel.targets) {
        expect(query, panel.title).toMatch(/\bFROM \$dataset\b/);
        expect(query, panel.title).toContain("_sample_interval");
        for (const [, kind, n] of query.matchAll(/\b(blob|double|index)(\d+)\b/g)) {
          const written = kind === "blob" ? METRIC_BLOBS.length : kind === "double" ? METRIC_DOUBLES.length : 1;
          expect(Number(n), `${panel.title}: ${kind}${n}`).toBeGreaterThanOrEqual(1);
          expect(Number(n), `${panel.title}: ${kind}${n}`).toBeLessThanOrEqual(written);
        }
        // Any other bare column would be one the Worker does not write.
        const unquoted = query.replace(/'[^']*'/g, "''");
        for (const [word] of unquoted.matchAll(/\b_[a-z_]+\b/g)) expect(TABLE_COLUMNS, word).toContain(word);
      }
    }
  });

  it("offers the datasets wrangler.toml binds", () => {
    const toml = readFileSync(new URL("../../../wrangler.toml", import.meta.url), "utf8");
    const bound = [...toml.matchAll(/dataset = "([^"]+)"/g)].map((m) => m[1]);
    const dataset = dashboard.templating.list.find((v: { name: string }) => v.name === "dataset");
    for (const option of dataset.options as { value: string }[]) expect(bound).toContain(option.value);
  });
});
