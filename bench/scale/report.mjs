// bench/results/scale.md (shape × range table, projection to 100 M rows a day) and scale.svg
// (Worker ÷ VictoriaLogs per shape and range, log scale) from the cases of one run.

/**
 * @typedef {object} Case
 * @property {string} shape
 * @property {string} name
 * @property {boolean} pushed
 * @property {boolean} [rowsReported] false where the route's telemetry counts no scanned rows
 * @property {string} range
 * @property {number} matching rows the shape's stream selector matches in the range
 * @property {{ status?: number, ms?: number, dnf?: boolean, error?: string }} vl
 * @property {{ status?: number, error?: string, wallMs?: number, cpuMs?: number, rowsEvaluated?: number, originBytes?: number, originRequests?: number, answerBytes?: number, dnf?: boolean, crashed?: string }} worker
 */

/**
 * How the dataset came to be in VictoriaLogs: loaded in this run, or in an earlier one and reused.
 * @param {{ loadedNow: boolean, loadSeconds: number, pushedMB: number }} meta
 */
export function loadSentence(meta) {
  return meta.loadedNow
    ? `Generated and loaded through VictoriaLogs' jsonline ingestion in ${meta.loadSeconds} s (${meta.pushedMB} MB) in this run.`
    : `Loaded in an earlier run (${meta.loadSeconds} s for ${meta.pushedMB} MB of jsonline) and reused from the cache directory.`;
}

/** Rows a day the projection is for. */
export const PROJECTED_ROWS_PER_DAY = 100_000_000;
/** Workers CPU time per request: the default, and the most it can be configured to. */
const CPU_LIMIT_DEFAULT_S = 30;
const CPU_LIMIT_MAX_S = 300;
const TARGET_RATIO = 2;
const TARGET_RATIO_PUSHED = 1.3;

/** A pipe inside a table cell ends the cell, even inside backticks. */
const cellText = (s) => s.replace(/\|/g, "\\|");
const int = (n) => Math.round(n).toLocaleString("en");
const ok = (c) => c.worker.status === 200 && c.worker.wallMs !== undefined;
const ratioOf = (c) => (ok(c) && c.vl.ms ? c.worker.wallMs / c.vl.ms : undefined);

function workerCell(c) {
  if (c.worker.dnf) return "did not finish";
  if (c.worker.crashed) return `crashed (${c.worker.crashed})`;
  if (c.worker.status !== 200) return `HTTP ${c.worker.status}`;
  return int(c.worker.wallMs);
}

/**
 * CPU and origin bytes of the 24 h query for a selector matching `PROJECTED_ROWS_PER_DAY` rows.
 * From the two largest ranges that finished: when the origin bytes grew with the matching rows
 * (at least three quarters as fast), the shape reads rows in proportion to the data, and its cost per
 * matching row is the difference between the two (what a request costs whatever its size cancels
 * out), added to the larger one's figures. Otherwise its reading is bounded by something else (a
 * log query's limit, VictoriaLogs computing series and points), and the larger range's figures
 * stand. One range alone is taken as proportional.
 * @param {Case[]} shapeCases one shape's cases
 */
export function projection(shapeCases) {
  const done = shapeCases.filter(ok).sort((a, b) => a.matching - b.matching);
  if (done.length === 0) return undefined;
  const big = done[done.length - 1];
  const small = done.length > 1 ? done[done.length - 2] : undefined;
  const bytes = (c) => c.worker.originBytes ?? 0;
  const proportional =
    !small ||
    (big.matching > small.matching &&
      bytes(big) / Math.max(1, bytes(small)) >= 0.75 * (big.matching / Math.max(1, small.matching)));
  const per = (key) => {
    const v = (c) => c.worker[key] ?? 0;
    if (!proportional) return 0;
    if (small) return Math.max(0, (v(big) - v(small)) / (big.matching - small.matching));
    return v(big) / Math.max(1, big.matching);
  };
  const cpuPerRowMs = per("cpuMs");
  const bytesPerRow = per("originBytes");
  const extra = Math.max(0, PROJECTED_ROWS_PER_DAY - big.matching);
  return {
    from: small ? `${small.range} → ${big.range}` : big.range,
    proportional,
    cpuPerRowUs: cpuPerRowMs * 1000,
    bytesPerRow,
    cpuS: ((big.worker.cpuMs ?? 0) + cpuPerRowMs * extra) / 1000,
    originGB: (bytes(big) + bytesPerRow * extra) / 1e9,
  };
}

function verdict(cpuS) {
  if (cpuS <= CPU_LIMIT_DEFAULT_S) return "within the default 30 s";
  if (cpuS <= CPU_LIMIT_MAX_S) return "needs the 5 min maximum";
  return "**past the 5 min maximum**";
}

/**
 * @param {Case[]} cases
 * @param {Record<string, any>} meta
 */
export function markdown(cases, meta) {
  const shapes = [...new Map(cases.map((c) => [c.shape, c])).values()];
  const lines = [
    `# Scale: Grafana's and Drilldown's default queries over ${int(meta.rows)} rows`,
    "",
    `Run ${meta.started}${meta.finished ? ` to ${meta.finished}` : " (still running when written)"}, mode **${meta.mode}**, the Worker's code (src/) as of commit ${meta.srcCommit ?? "?"}:`,
    `\`npm run bench:scale${meta.mode === "quick" ? ":quick" : ""}\`. Node ${meta.node}, ${meta.cores} cores (shared), VictoriaLogs ${meta.victoriaLogs}.`,
    "",
    `Dataset (bench/scale/generate.mjs, seeded): ${int(meta.rows)} rows over ${meta.days} days in ${meta.streams} streams, the compat`,
    "dataset's shape (JSON apps api-gateway, checkout, payments; logfmt apps worker, auth; nginx access lines; two clusters,",
    "prod and staging; `service_name` among the stream labels; trace ids or tenants as structured metadata), about",
    `${Math.round((meta.pushedMB * 1e6) / meta.rows)} bytes of jsonline per row. ${loadSentence(meta)}`,
    "",
    "Each range ends at the data's end, with the step Grafana picks for it (about 1,000 points: 5 s at 1 h, 1 min at 24 h,",
    "10 min at 7 d; `[$__auto]` is that step). **VL ms**: VictoriaLogs direct, the LogsQL that reads the same rows and computes",
    "the comparable aggregation (bench/scale/shapes.mjs), read to the last byte. **Worker ms**: the same Loki request through the",
    "Worker's app (`createApp().fetch`) in a Node process with a 128 MB heap, cold (no cache layer, `Cache-Control: no-cache`),",
    "after ten warm-up requests of the same shape over other data (a window as long, up to an hour), so that V8 runs the",
    "request's hot paths optimised, as in an isolate serving traffic; the Worker is the median of three when the first answer",
    "takes under 2 s, else one run; VictoriaLogs is timed both before and after the Worker, and its figure is the median of",
    "those six runs (two when they take 2 s or more), so that the machine's load drifting over a shape's seconds is not",
    "charged to the ratio. **Rows evaluated** and **origin MB** come from the Worker's own telemetry line (rows",
    "scanned, bytes of origin answers read, decompressed). **CPU ms**: `process.cpuUsage()` of that process around the",
    "request (user + system of all its threads: the Worker's JavaScript and the HTTP client reading the origin's answers;",
    "workerd reports no CPU time locally). **Matching rows**: rows the shape's stream selector matches in the range.",
    `A request that takes longer than ${meta.timeoutS} s is stopped and reported as not finished.`,
    "",
    "| shape | range | matching rows | VL ms | Worker ms | ratio | target | rows evaluated | origin MB | CPU ms |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const c of cases) {
    const ratio = ratioOf(c);
    const target = c.pushed ? TARGET_RATIO_PUSHED : TARGET_RATIO;
    lines.push(
      `| ${cellText(c.name)} | ${c.range} | ${int(c.matching)} | ${c.vl.ms !== undefined ? int(c.vl.ms) : c.vl.dnf ? "did not finish" : `HTTP ${c.vl.status}`} | ${workerCell(c)} | ${
        ratio !== undefined ? `${ratio.toFixed(1)}×` : "—"
      } | ≤ ${target}× ${ratio === undefined ? "❌" : ratio <= target ? "✅" : "❌"} | ${
        !ok(c) ? "—" : c.rowsReported === false ? "not reported" : int(c.worker.rowsEvaluated ?? 0)
      } | ${ok(c) && c.worker.originBytes !== undefined ? (c.worker.originBytes / 1e6).toFixed(1) : "—"} | ${
        ok(c) ? int(c.worker.cpuMs) : "—"
      } |`,
    );
  }
  lines.push(
    "",
    "Reading the figures: **rows evaluated** 0 means VictoriaLogs computed the answer and the Worker read series, not",
    "rows. At 7 d the log query's and the patterns' ratios fall below 1×: the LogsQL compared unpacks and sorts (or groups)",
    "every row of the range, while the Worker reads the newest windows until it holds 1,000 entries, and mines patterns",
    "from a bounded sample; there the two sides no longer do the same work, and the origin bytes are the figure to read.",
    "At 1 h both sides take tens of milliseconds, and the machine was shared with other processes: those ratios move",
    "by a factor of two from one run to the next; the 24 h and 7 d ones are steadier.",
  );
  const errors = cases.filter((c) => (c.worker.status !== undefined && c.worker.status !== 200) || c.vl.error);
  if (errors.length > 0) {
    lines.push("", "Answers other than 200:", "");
    for (const c of errors) {
      if (c.worker.status !== 200)
        lines.push(`- ${c.shape} ${c.range}, Worker: HTTP ${c.worker.status} ${c.worker.error}`);
      if (c.vl.error) lines.push(`- ${c.shape} ${c.range}, VictoriaLogs: HTTP ${c.vl.status} ${c.vl.error}`);
    }
  }
  lines.push(
    "",
    `## Projection: a service logging ${int(PROJECTED_ROWS_PER_DAY)} rows a day, the 24 h query`,
    "",
    "The shape's selector matching 100 M rows in 24 h. Where the origin bytes grew with the matching rows (at least three quarters as fast) between the two",
    "largest ranges that finished, CPU and origin bytes per matching row come from their difference (what a request costs",
    "whatever its size cancels out) and are added to the larger range's figures; where only one range finished, its figures",
    "are divided by its rows. **bounded**: the origin bytes did not grow with the matching rows (a log query's limit, or",
    "VictoriaLogs computing series and points), so the larger range's figures stand. Compared with the Workers CPU limit",
    "per request: 30 s by default, 5 min at most.",
    "",
    "| shape | from | CPU µs per matching row | origin bytes per matching row | projected CPU | projected origin | Workers CPU limit |",
    "|---|---|---|---|---|---|---|",
  );
  for (const s of shapes) {
    const p = projection(cases.filter((c) => c.shape === s.shape));
    if (!p) {
      lines.push(`| ${cellText(s.name)} | — | — | — | no range finished | — | — |`);
      continue;
    }
    lines.push(
      `| ${cellText(s.name)} | ${p.from} | ${p.proportional ? p.cpuPerRowUs.toFixed(2) : "bounded"} | ${p.proportional ? int(p.bytesPerRow) : "bounded"} | ${p.cpuS < 10 ? p.cpuS.toFixed(1) : int(p.cpuS)} s | ${
        p.originGB < 1 ? `${(p.originGB * 1000).toFixed(1)} MB` : `${p.originGB.toFixed(1)} GB`
      } | ${verdict(p.cpuS)} |`,
    );
  }
  lines.push("");
  return lines.join("\n");
}

const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * Horizontal bars, one group per shape, one bar per range: Worker ÷ VictoriaLogs on a log scale,
 * with the 1.3× and 2× targets; a request that did not finish or failed is drawn to the right edge
 * in red with what happened. Below, unless `projection` is false, the projected CPU per shape.
 * @param {Case[]} cases
 * @param {Record<string, any>} meta
 * @param {{ projection?: boolean, colours?: string[] }} [options]
 */
export function svg(
  cases,
  meta,
  { projection: withProjection = true, colours = ["#6baed6", "#3182bd", "#08519c"] } = {},
) {
  const shapes = [...new Set(cases.map((c) => c.shape))];
  const ranges = [...new Set(cases.map((c) => c.range))];
  const labelW = 190;
  const plotW = 560;
  const barH = 9;
  const groupH = ranges.length * (barH + 2) + 10;
  const top = 64;
  const height = top + shapes.length * groupH + 40;
  const width = labelW + plotW + 110;
  const maxRatio = Math.max(100, ...cases.map((c) => ratioOf(c) ?? 0));
  const ratios = cases.map(ratioOf).filter((r) => r !== undefined);
  const lo = Math.log10(Math.min(0.5, ...ratios.map((r) => r * 0.8)));
  const hi = Math.log10(maxRatio * 1.2);
  const x = (r) => labelW + ((Math.log10(r) - lo) / (hi - lo)) * plotW;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="18" font-size="14" font-weight="bold">Worker ÷ VictoriaLogs, cold (${esc(meta.mode)}, ${int(meta.rows)} rows, ${esc(meta.started.slice(0, 10))})</text>`,
  ];
  ranges.forEach((r, i) => {
    out.push(`<rect x="${10 + i * 70}" y="28" width="10" height="10" fill="${colours[i % colours.length]}"/>`);
    out.push(`<text x="${24 + i * 70}" y="37">${esc(r)}</text>`);
  });
  out.push(`<rect x="${10 + ranges.length * 70}" y="28" width="10" height="10" fill="#d62728"/>`);
  out.push(`<text x="${24 + ranges.length * 70}" y="37">did not finish / failed</text>`);
  for (const tick of [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].filter(
    (t) => Math.log10(t) >= lo && Math.log10(t) <= hi,
  )) {
    const tx = x(tick).toFixed(1);
    out.push(`<line x1="${tx}" y1="${top - 4}" x2="${tx}" y2="${height - 30}" stroke="#eee"/>`);
    out.push(`<text x="${tx}" y="${height - 16}" text-anchor="middle" fill="#555">${tick}×</text>`);
  }
  for (const [t, label] of [
    [TARGET_RATIO_PUSHED, "1.3×"],
    [TARGET_RATIO, "2×"],
  ]) {
    const tx = x(t).toFixed(1);
    out.push(
      `<line x1="${tx}" y1="${top - 4}" x2="${tx}" y2="${height - 30}" stroke="#2ca02c" stroke-dasharray="4 3"/>`,
    );
    out.push(`<text x="${tx}" y="${top - 8}" text-anchor="middle" fill="#2ca02c">${label}</text>`);
  }
  shapes.forEach((shape, si) => {
    const gy = top + si * groupH;
    out.push(`<text x="${labelW - 6}" y="${gy + groupH / 2}" text-anchor="end">${esc(shape)}</text>`);
    ranges.forEach((range, ri) => {
      const c = cases.find((k) => k.shape === shape && k.range === range);
      if (!c) return;
      const y = gy + ri * (barH + 2);
      const ratio = ratioOf(c);
      if (ratio === undefined) {
        const what = c.worker.dnf
          ? "did not finish"
          : c.worker.crashed
            ? "crashed"
            : `HTTP ${c.worker.status ?? c.vl.status}`;
        out.push(`<rect x="${labelW}" y="${y}" width="${plotW}" height="${barH}" fill="#d62728" opacity="0.8"/>`);
        out.push(`<text x="${labelW + plotW + 4}" y="${y + barH - 1}" fill="#d62728">${esc(what)}</text>`);
        return;
      }
      const w = Math.max(1, x(ratio) - labelW);
      out.push(
        `<rect x="${labelW}" y="${y}" width="${w.toFixed(1)}" height="${barH}" fill="${colours[ri % colours.length]}"/>`,
      );
      out.push(`<text x="${(labelW + w + 4).toFixed(1)}" y="${y + barH - 1}">${ratio.toFixed(1)}×</text>`);
    });
  });
  if (!withProjection) {
    out.push("</svg>");
    return out.join("\n") + "\n";
  }
  // Below: the projected CPU of the 24 h query at 100 M rows a day, against the Workers limits.
  const py = top + shapes.length * groupH + 40;
  out.push(
    `<text x="10" y="${py}" font-size="14" font-weight="bold">Projected CPU per 24 h query at ${int(PROJECTED_ROWS_PER_DAY)} rows a day</text>`,
  );
  const cpuLo = Math.log10(0.01);
  const cpuHi = Math.log10(10_000);
  const cx = (sec) => labelW + ((Math.log10(Math.max(sec, 0.01)) - cpuLo) / (cpuHi - cpuLo)) * plotW;
  const pTop = py + 24;
  const pBottom = pTop + shapes.length * (barH + 4);
  for (const tick of [0.01, 0.1, 1, 10, 100, 1000, 10_000]) {
    const tx = cx(tick).toFixed(1);
    out.push(`<line x1="${tx}" y1="${pTop - 4}" x2="${tx}" y2="${pBottom}" stroke="#eee"/>`);
    out.push(`<text x="${tx}" y="${pBottom + 14}" text-anchor="middle" fill="#555">${tick} s</text>`);
  }
  for (const [limit, label] of [
    [CPU_LIMIT_DEFAULT_S, "30 s default"],
    [CPU_LIMIT_MAX_S, "5 min max"],
  ]) {
    const tx = cx(limit).toFixed(1);
    out.push(`<line x1="${tx}" y1="${pTop - 4}" x2="${tx}" y2="${pBottom}" stroke="#d62728" stroke-dasharray="4 3"/>`);
    out.push(`<text x="${tx}" y="${pTop - 8}" text-anchor="middle" fill="#d62728">${label}</text>`);
  }
  shapes.forEach((shape, si) => {
    const y = pTop + si * (barH + 4);
    out.push(`<text x="${labelW - 6}" y="${y + barH - 1}" text-anchor="end">${esc(shape)}</text>`);
    const p = projection(cases.filter((c) => c.shape === shape));
    if (!p) {
      out.push(`<text x="${labelW + 4}" y="${y + barH - 1}" fill="#d62728">no range finished</text>`);
      return;
    }
    const w = Math.max(1, cx(p.cpuS) - labelW);
    const fill = p.cpuS > CPU_LIMIT_MAX_S ? "#d62728" : p.cpuS > CPU_LIMIT_DEFAULT_S ? "#ff7f0e" : "#2ca02c";
    out.push(`<rect x="${labelW}" y="${y}" width="${w.toFixed(1)}" height="${barH}" fill="${fill}"/>`);
    const text = p.cpuS < 10 ? p.cpuS.toFixed(2) : int(p.cpuS);
    out.push(
      `<text x="${(labelW + w + 4).toFixed(1)}" y="${y + barH - 1}">${text} s${p.proportional ? "" : " (bounded)"}</text>`,
    );
  });
  out[0] = out[0].replace(/height="\d+"/, `height="${pBottom + 30}"`);
  out.push("</svg>");
  return out.join("\n") + "\n";
}
