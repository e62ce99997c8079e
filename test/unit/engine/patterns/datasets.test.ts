/**
 * The miner on the two datasets this project ships: each generator's line templates, and which of
 * them come back as patterns. The compat generator is /work/shared/compat/gen_dataset.py (its data
 * in test/fixtures/compat), the demo generator scripts/lib/datasets.mjs.
 *
 * Come back: logfmt lines (one pattern per level × message × job: those values lead the line, and
 * Drain keeps leading words constant), their colour-prefixed error variant (as text), nginx access
 * lines (one per method and user agent, everything numeric is <_>).
 * Do not come back: JSON lines whose message has fewer than 4 tokens ("request served", "cache hit",
 * "checkout failed", ...): Loki mines only the message field of JSON lines and skips short ones.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { PatternMiner, patternText } from "../../../../src/engine/patterns/miner";
import { generateDemoData } from "../../../../scripts/lib/datasets.mjs";

type Lines = Map<string, [bigint, string][]>;

function byApp(bodies: Iterable<string>): Lines {
  const out: Lines = new Map();
  for (const body of bodies) {
    if (body.trim() === "") continue;
    const push = JSON.parse(body) as { streams: { stream: { app: string }; values: [string, string][] }[] };
    for (const s of push.streams) {
      const lines = out.get(s.stream.app) ?? [];
      for (const [ts, line] of s.values) lines.push([BigInt(ts), line]);
      out.set(s.stream.app, lines);
    }
  }
  return out;
}

function mine(lines: [bigint, string][]) {
  const miner = new PatternMiner(60_000);
  const started = performance.now();
  for (const [ts, line] of lines) miner.addLine(line, ts, "unknown");
  const ms = performance.now() - started;
  const patterns = miner
    .result()
    .map((p) => ({ text: patternText(p), count: p.samples.reduce((s, [, n]) => s + n, 0) }));
  return { patterns, figures: miner.figures, msPer1000: (ms / lines.length) * 1000 };
}

const ESC = "\u001b";
const compat = byApp(gunzipSync(readFileSync("test/fixtures/compat/dataset-seed7.ndjson.gz")).toString().split("\n"));
// A fixed end: the demo data is then the same on every run.
const demo = byApp(generateDemoData({ end: Date.UTC(2026, 1, 2) }));

describe("compat dataset templates", () => {
  const MSGS = ["request served", "cache hit", "user authenticated", "order created", "payment captured"];
  const ERRS = ["upstream timeout", "connection refused", "invalid token", "database deadlock detected"];
  const LOGFMT = new RegExp(
    `^(?:${ESC}\\[31mERROR${ESC}\\[0m )?level=(debug|info|warn|error) caller=<_> msg="([^"]+)" ` +
      `job=(resize|email|invoice|sync|cleanup) duration=<_> size=<_> ok=(true|false) client_ip=<_> attempt=<_>$`,
  );

  it.each(["worker", "auth"])("logfmt (%s): every line mined, every level × message × job a pattern", (app) => {
    const { patterns, figures } = mine(compat.get(app)!);
    expect(figures.refused).toBe(0);
    const seen = new Set<string>();
    for (const p of patterns) {
      const m = LOGFMT.exec(p.text);
      expect(m, p.text).not.toBeNull();
      seen.add(m![2]!);
    }
    expect([...seen].sort()).toEqual([...MSGS, ...ERRS, "out of memory: kill process"].sort());
  });

  it("nginx: every line mined, as the combined log format with <_> for the variable parts", () => {
    const { patterns, figures } = mine(compat.get("nginx")!);
    expect(figures.refused).toBe(0);
    const shape = /^<_> - - \[<_> \+0000\] "(GET|POST|PUT|DELETE) \S+ HTTP\/1\.1" <_> <_> "-" "[^"]+"$/;
    for (const p of patterns) expect(p.text).toMatch(shape);
    expect(patterns[0]).toEqual({ text: '<_> - - [<_> +0000] "GET <_> HTTP/1.1" <_> <_> "-" "<_>"', count: 6793 });
    expect(new Set(patterns.map((p) => shape.exec(p.text)![1]))).toEqual(new Set(["GET", "POST", "PUT", "DELETE"]));
  });

  it.each(["api-gateway", "checkout", "payments"])("JSON (%s): only the one message of 4+ tokens", (app) => {
    const lines = compat.get(app)!;
    const { patterns, figures } = mine(lines);
    const oom = lines.filter(([, l]) => (JSON.parse(l) as { msg: string }).msg === "out of memory: kill process");
    expect(patterns).toEqual([{ text: "<_>out of memory: kill process<_>", count: oom.length }]);
    expect(figures.refused).toBe(lines.length - oom.length);
  });
});

describe("demo dataset templates", () => {
  it("worker (logfmt with ts): every line mined; ts is <_>, each message a pattern", () => {
    const { patterns, figures } = mine(demo.get("worker")!);
    expect(figures.refused).toBe(0);
    const msgs = new Set(patterns.map((p) => /msg="([^"]+)"/.exec(p.text)![1]));
    expect(msgs).toEqual(new Set(["job finished", "job started", "queue polled", "job retried", "job failed"]));
    // A cluster that saw a single line keeps that line's values; the rest have <_> for them.
    for (const p of patterns)
      expect(p.text).toMatch(/(^|\u001b\[0m )ts=<_> level=(debug|info|warn|error) caller=\S+ msg=/);
    expect(patterns[0]!.text).toMatch(/^ts=<_> level=info caller=<_> msg="[^"]+" job=\S+ queue=\S+ duration=<_>$/);
  });

  it("auth (logfmt): every line mined, each message a pattern", () => {
    const { patterns, figures } = mine(demo.get("auth")!);
    expect(figures.refused).toBe(0);
    const msgs = new Set(patterns.map((p) => /msg="([^"]+)"/.exec(p.text)![1]));
    expect(msgs).toEqual(
      new Set(["login succeeded", "token refreshed", "session ended", "login failed", "token signing failed"]),
    );
  });

  it("nginx: every line mined as the combined log format", () => {
    const { patterns, figures } = mine(demo.get("nginx")!);
    expect(figures.refused).toBe(0);
    // A cluster that saw a single line keeps that line's values.
    for (const p of patterns)
      expect(p.text).toMatch(/^\S+ - \S+ \[[^\]]+ \+0000\] "(GET|POST) \S+ HTTP\/1\.1" \S+ \S+ "/);
    expect(patterns[0]!.text).toBe('<_> - - [<_> +0000] "GET <_> HTTP/1.1" <_> <_> "-" "<_>"');
  });

  it.each(["api-gateway", "checkout"])("JSON (%s): no pattern, every message is under 4 tokens", (app) => {
    const lines = demo.get(app)!;
    const { patterns, figures } = mine(lines);
    expect(patterns).toEqual([]);
    expect(figures.refused).toBe(lines.length);
  });
});

describe("cost", () => {
  it("stays within the cluster cap and a few ms per 1,000 lines on the whole compat dataset", () => {
    const all = [...compat.values()].flat();
    mine(all.slice(0, 5000)); // warm up the JIT
    const { figures, msPer1000 } = mine(all);
    // Measured on the shared 2-core machine: 3.3–5.5 ms per 1,000 lines, 138 clusters.
    console.log(
      `patterns: ${all.length} lines, ${msPer1000.toFixed(2)} ms per 1,000 lines, ${figures.clusters} clusters`,
    );
    expect(figures.clusters).toBeLessThanOrEqual(300 * 3);
    expect(msPer1000).toBeLessThan(50);
  });
});
