/**
 * Parse + validate cost. "cold" parses from text every time (lexer, PEG, build, validation);
 * "cached" goes through parseExpr's LRU as the query handlers do for repeated dashboard queries.
 * Target: median <= 10 µs per typical dashboard query.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bench, describe } from "vitest";
import { parseExpr, parseUncached } from "../../src/logql/parser";

// Long enough for the JIT to settle; the first thousands of parses are mostly compilation.
const OPTS = { time: 3000, warmupTime: 1000, warmupIterations: 5000 };

const DASHBOARD = [
  '{app="api", namespace="prod"} |= "error"',
  'sum by (level) (count_over_time({app="api"} | logfmt [5m]))',
  'sum by (status) (rate({job="nginx"} | json | status >= 500 [1m]))',
  'topk(10, sum by (path) (rate({job="nginx"} |~ "GET|POST" [5m])))',
  'quantile_over_time(0.99, {app="api"} | json | unwrap duration(latency) | __error__="" [5m]) by (route)',
  'sum(rate({app="api"} |= "error" [1m])) / sum(rate({app="api"}[1m]))',
  'sum by (level, detected_level) (count_over_time({service_name="checkout"} | drop __error__[1m]))',
];

const corpusFile = join(dirname(fileURLToPath(import.meta.url)), "../../../shared/logql/valid.json");
const corpus: string[] = existsSync(corpusFile)
  ? (JSON.parse(readFileSync(corpusFile, "utf8")) as Array<{ query: string }>).map((c) => c.query)
  : [];

describe("typical dashboard queries (one query per iteration)", () => {
  let i = 0;
  bench(
    "cold: parseUncached",
    () => {
      parseUncached(DASHBOARD[i++ % DASHBOARD.length]!);
    },
    OPTS,
  );
  let j = 0;
  bench(
    "cached: parseExpr (LRU hit)",
    () => {
      parseExpr(DASHBOARD[j++ % DASHBOARD.length]!);
    },
    OPTS,
  );
});

if (corpus.length > 0) {
  describe(`Loki corpus (${corpus.length} valid queries per iteration)`, () => {
    bench("cold: parseUncached over the corpus", () => {
      for (const q of corpus) parseUncached(q);
    });
    bench("cached: parseExpr over the corpus", () => {
      for (const q of corpus) parseExpr(q);
    });
  });
}
