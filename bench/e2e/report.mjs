// Turns k6 summaries into bench/results/e2e-<mode>.md (table with Worker / VictoriaLogs ratios and
// the targets) and e2e-<mode>.svg (p50 and p95 per workload, both targets side by side).

/**
 * @typedef {{ rps: number, p50: number, p95: number, p99: number, failed: number, requests: number }} Figures
 * @typedef {{ workload: string, describe: string, worker: Figures, vl: Figures, proxy?: Figures }} Row
 */

/** @param {any} summary k6 --summary-export JSON @returns {Figures} */
export function figuresOf(summary) {
  const d = summary.metrics.http_req_duration;
  const reqs = summary.metrics.http_reqs;
  const failed = summary.metrics.http_req_failed;
  return {
    rps: reqs?.rate ?? 0,
    p50: d?.med ?? NaN,
    p95: d?.["p(95)"] ?? NaN,
    p99: d?.["p(99)"] ?? NaN,
    requests: reqs?.count ?? 0,
    failed: failed ? Math.round((failed.value ?? 0) * (reqs?.count ?? 0)) : 0,
  };
}

const f1 = (x) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x.toFixed(1)) : "–");
const ratio = (a, b) => (b > 0 && Number.isFinite(a) ? (a / b).toFixed(2) : "–");

/**
 * @param {Row[]} rows
 * @param {{ workload: string, name: string, workerMs: number, vlMs: number }[]} probes
 * @param {{ mode: string, lines: number, days: number, durationS: number, when: string }} meta
 * @param {{ stream?: any, streamWorkerd?: any, memory: any[] }} [proofs] RESULT lines of bench/stream (Node, then workerd) and bench/memory from the same run
 * @param {{ limit: number, pairs: number, ownMs: number }[]} [ownWork] the Worker's own work on cold log queries, paired
 */
export function markdown(rows, probes, meta, proofs, ownWork = []) {
  const out = [
    `# End-to-end benchmark (${meta.mode})`,
    "",
    `${meta.when}: ${meta.lines.toLocaleString("en")} lines over ${meta.days} days in a local VictoriaLogs; the Worker in`,
    `workerd via Miniflare (as \`npm start\` serves it); k6 for ${meta.durationS} s per workload and target, all on 127.0.0.1, one machine.`,
    "Latencies in ms. Ratios are Worker ÷ VictoriaLogs direct on the equivalent LogsQL (lower is better for",
    "latency, higher is better for req/s).",
    "",
    "| workload | Worker req/s | VL req/s | req/s ratio | Worker p50 | VL p50 | p50 ratio | Worker p95 | VL p95 | p95 ratio | Worker p99 | VL p99 | p99 ratio | failed (W/VL) |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const w = r.worker;
    const v = r.vl;
    out.push(
      `| ${r.workload} | ${f1(w.rps)} | ${f1(v.rps)} | ${ratio(w.rps, v.rps)} | ${f1(w.p50)} | ${f1(v.p50)} | ${ratio(w.p50, v.p50)} | ${f1(w.p95)} | ${f1(v.p95)} | ${ratio(w.p95, v.p95)} | ${f1(w.p99)} | ${f1(v.p99)} | ${ratio(w.p99, v.p99)} | ${w.failed}/${w.requests} · ${v.failed}/${v.requests} |`,
    );
  }
  out.push("", "## Targets", "");
  const cold = rows.find((r) => r.workload === "cold");
  if (cold) {
    const overhead = (cold.worker.p50 - cold.vl.p50) / cold.vl.p50;
    out.push(
      `- Worker overhead on cold log queries ≤ 15% of VictoriaLogs-direct p50: **${(overhead * 100).toFixed(0)}%** (${f1(cold.worker.p50)} vs ${f1(cold.vl.p50)} ms) ${overhead <= 0.15 ? "✅" : "❌"}`,
    );
    if (cold.proxy) {
      const runtime = cold.proxy.p50 - cold.vl.p50;
      const own = cold.worker.p50 - cold.proxy.p50;
      out.push(
        `  - of which the local runtime alone (a bare forwarding Worker in the same Miniflare, same LogsQL requests, p50 ${f1(cold.proxy.p50)} ms): ` +
          `**${f1(runtime)} ms** (${((runtime / cold.vl.p50) * 100).toFixed(0)}%); the Worker's own work (parse, plan, decode, encode): ` +
          `**${f1(own)} ms** (${((own / cold.vl.p50) * 100).toFixed(0)}% of VictoriaLogs' p50)`,
      );
    }
  }
  const lr = rows.find((r) => r.workload === "long_range");
  if (lr) {
    out.push(
      `- long_range faster than one unsplit VictoriaLogs request: p50 ratio **${ratio(lr.worker.p50, lr.vl.p50)}** ${lr.worker.p50 < lr.vl.p50 ? "✅" : "❌"}`,
    );
  }
  out.push("- NDJSON → Loki ≤ 1 µs/line: see `npm run bench:micro` and bench/results/stream.md.", "");
  out.push(...speedTargets(rows, probes, proofs, ownWork));
  out.push(
    "## Single requests, unloaded (median of 3 in sequence, 0.4 s apart, window at the data's end, `Cache-Control: no-cache`: the Worker's results caches left out)",
    "",
  );
  out.push("| workload | request | Worker ms | VL ms | ratio |", "|---|---|---|---|---|");
  for (const p of probes)
    out.push(`| ${p.workload} | ${p.name} | ${f1(p.workerMs)} | ${f1(p.vlMs)} | ${ratio(p.workerMs, p.vlMs)} |`);
  out.push("", "## Workloads", "");
  for (const r of rows) out.push(`- **${r.workload}**: ${r.describe}`);
  out.push(
    "",
    "Caveats: local workerd is not the production edge; VictoriaLogs, workerd and k6",
    "share the same cores, so absolute figures are pessimistic and ratios are the meaningful part.",
    "",
  );
  return out.join("\n");
}

/**
 * The speed targets, each figure from this run: single-request and per-workload ratios against
 * VictoriaLogs direct, the row path, and memory under concurrency.
 * @param {Row[]} rows @param {{ workload: string, name: string, workerMs: number, vlMs: number }[]} probes
 * @param {{ stream?: any, streamWorkerd?: any, memory: any[] } | undefined} proofs
 * @param {{ limit: number, pairs: number, ownMs: number }[]} ownWork
 */
function speedTargets(rows, probes, proofs, ownWork) {
  const out = ["## Speed targets", "", "| what | this run | target | |", "|---|---|---|---|"];
  const mark = (ok) => (ok === undefined ? "–" : ok ? "✅" : "❌");
  const line = (what, figure, target, ok) => out.push(`| ${what} | ${figure} | ${target} | ${mark(ok)} |`);
  const probe = (name) => probes.find((p) => p.name === name);
  const q = probe("quantile_over_time of unwrapped json");
  if (q) {
    const r = q.workerMs / q.vlMs;
    line("`quantile_over_time(… | json | unwrap …) by (…)`, single request", `${r.toFixed(2)}× VL`, "≤ 2×", r <= 2);
  }
  for (const name of ["compute", "compute_uncached"]) {
    const row = rows.find((r) => r.workload === name);
    if (!row) continue;
    const r = row.worker.rps / row.vl.rps;
    const how =
      name === "compute" ? "results caches on, as deployed" : "`Cache-Control: no-cache`, every request evaluated";
    line(`compute workload req/s (${how})`, `${r.toFixed(2)}× VL`, "≥ 0.6×", r >= 0.6);
  }
  const big = probe("5,000-entry log answer, median of 15");
  if (big) {
    const r = big.workerMs / big.vlMs;
    line("5,000-entry log answer, Worker ÷ VL (median of 15)", `${r.toFixed(2)}×`, "≤ 1.3×", r <= 1.3);
    const plain = probe("5,000-entry log answer, uncompressed, median of 15");
    const floor = probe("5,000-entry VictoriaLogs answer via the bare forwarding Worker, uncompressed, median of 15");
    if (plain && floor) {
      const own = plain.workerMs - floor.workerMs;
      line(
        "— of which the Worker's own work (uncompressed: Worker − bare forwarding Worker carrying VL's answer)",
        `${f1(own)} ms (${(own / plain.vlMs).toFixed(2)}× VL's uncompressed time)`,
        "",
        undefined,
      );
    }
  }
  if (proofs?.stream) {
    const us = proofs.stream.usPerRow;
    line("NDJSON → Loki per row, stream proof (Node, 128 MB heap)", `${us.toFixed(2)} µs`, "≤ 1.5 µs", us <= 1.5);
  }
  if (proofs?.streamWorkerd) {
    line(
      "— the same path in workerd, the Workers runtime (throughput only)",
      `${proofs.streamWorkerd.usPerRow.toFixed(2)} µs`,
      "",
      undefined,
    );
  }
  const cold = rows.find((r) => r.workload === "cold");
  if (cold?.proxy) {
    const own = cold.worker.p50 - cold.proxy.p50;
    line(
      "Worker's own work on a cold log query (p50 − bare forwarding Worker p50)",
      `${f1(own)} ms`,
      "≤ 0.4 ms",
      own <= 0.4,
    );
  }
  const one = ownWork.find((o) => o.limit === 1);
  const hundred = ownWork.find((o) => o.limit === 100);
  if (one && hundred) {
    line(
      `— the same, paired request by request (median of the differences over ${hundred.pairs} cold windows)`,
      `limit 1: ${one.ownMs.toFixed(2)} ms; limit 100: ${hundred.ownMs.toFixed(2)} ms ` +
        `(${(((hundred.ownMs - one.ownMs) / 99) * 1000).toFixed(1)} µs a row)`,
      "",
      undefined,
    );
  }
  for (const m of proofs?.memory ?? []) {
    const ok200 = Object.keys(m.statuses).every((s) => s === "200");
    const statuses = Object.entries(m.statuses)
      .map(([s, n]) => `${n}×${s}`)
      .join(", ");
    line(
      `${m.concurrency} concurrent 5,000-entry log queries in one 128 MB heap (${m.name})`,
      `${statuses}; peak live heap +${m.peakLiveGrowthMB} MB`,
      "all succeed; ≤ 64 MB",
      ok200 && m.peakLiveGrowthMB <= 64,
    );
  }
  out.push("");
  return out;
}

/** Grouped bars: per workload, Worker and VictoriaLogs p50 (solid) and p95 (light), log-free linear scale. */
export function svg(rows, title) {
  const W = 760;
  const H = 340;
  const left = 60;
  const bottom = 60;
  const top = 40;
  const plotH = H - top - bottom;
  const max = Math.max(1, ...rows.flatMap((r) => [r.worker.p95, r.vl.p95].filter(Number.isFinite)));
  const groupW = (W - left - 20) / Math.max(1, rows.length);
  const barW = Math.min(36, groupW / 3);
  const y = (v) => top + plotH - (Math.min(v, max) / max) * plotH;
  const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${esc(title)}</text>`,
    `<line x1="${left}" y1="${top + plotH}" x2="${W - 10}" y2="${top + plotH}" stroke="#333"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="#333"/>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    parts.push(`<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${f1(v)}</text>`);
    parts.push(`<line x1="${left}" y1="${y(v)}" x2="${W - 10}" y2="${y(v)}" stroke="#eee"/>`);
  }
  parts.push(
    `<text x="14" y="${top + plotH / 2}" transform="rotate(-90 14 ${top + plotH / 2})" text-anchor="middle">ms</text>`,
  );
  rows.forEach((r, i) => {
    const x0 = left + i * groupW + groupW / 2 - barW;
    const bars = [
      [r.worker, "#f38020", "Worker"],
      [r.vl, "#3b6fb6", "VictoriaLogs"],
    ];
    bars.forEach(([f, color], j) => {
      const x = x0 + j * barW;
      if (Number.isFinite(f.p95))
        parts.push(
          `<rect x="${x}" y="${y(f.p95)}" width="${barW - 2}" height="${top + plotH - y(f.p95)}" fill="${color}" opacity="0.35"/>`,
        );
      if (Number.isFinite(f.p50))
        parts.push(
          `<rect x="${x}" y="${y(f.p50)}" width="${barW - 2}" height="${top + plotH - y(f.p50)}" fill="${color}"/>`,
        );
    });
    parts.push(`<text x="${x0 + barW}" y="${top + plotH + 16}" text-anchor="middle">${esc(r.workload)}</text>`);
    parts.push(
      `<text x="${x0 + barW}" y="${top + plotH + 30}" text-anchor="middle" fill="#555">p50 ×${ratio(r.worker.p50, r.vl.p50)}</text>`,
    );
  });
  const ly = H - 14;
  parts.push(
    `<rect x="${left}" y="${ly - 10}" width="12" height="12" fill="#f38020"/><text x="${left + 16}" y="${ly}">Worker</text>`,
  );
  parts.push(
    `<rect x="${left + 80}" y="${ly - 10}" width="12" height="12" fill="#3b6fb6"/><text x="${left + 96}" y="${ly}">VictoriaLogs direct</text>`,
  );
  parts.push(`<text x="${left + 240}" y="${ly}" fill="#555">solid: p50, light: p95</text>`);
  parts.push("</svg>");
  return parts.join("\n");
}
