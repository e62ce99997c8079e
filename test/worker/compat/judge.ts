/**
 * Judges one answer against the answer real Loki gave, by meaning (test/fixtures/compat/README
 * rules): stream entries as a multiset with per-stream order by direction, matrices and vectors by
 * series with a 1e-6 relative tolerance, label and series lists as sets, error statuses exactly.
 */
export interface CompatCase {
  id: string;
  path: string;
  params: Record<string, string | string[]>;
  headers: Record<string, string>;
  compare: "streams" | "matrix" | "vector" | "labels" | "series" | "index_stats" | "volume" | "status";
}

export interface Answer {
  status: number;
  json?: any;
  text?: string;
}

/** Returns undefined when the answers agree, else why not. */
export function judge(c: CompatCase, gold: Answer, got: Answer): string | undefined {
  const kind = gold.status !== 200 ? "status" : c.compare;
  if (kind === "status") {
    if (got.status !== gold.status) return `status ${got.status} != ${gold.status}: ${show(got)}`;
    if ((gold.text ?? "").startsWith("parse error") && !(got.text ?? "").startsWith("parse error")) {
      return `body should start with "parse error" (Loki: ${gold.text?.slice(0, 80)}); got ${show(got)}`;
    }
    return undefined;
  }
  if (got.status !== gold.status) return `status ${got.status} != ${gold.status}: ${show(got)}`;
  if (got.json === undefined) return `not JSON: ${show(got)}`;
  const g = gold.json;
  const t = got.json;
  try {
    switch (kind) {
      case "streams":
        return judgeStreams(c, g, t);
      case "matrix":
      case "vector":
        return judgeMetric(g, t);
      case "labels": {
        const a = new Set<string>(g.data ?? []);
        const b = new Set<string>(t.data ?? []);
        return sameSet(a, b) ? undefined : `labels differ: missing ${diff(a, b)}, extra ${diff(b, a)}`;
      }
      case "series": {
        const a = new Set<string>((g.data ?? []).map(labelKey));
        const b = new Set<string>((t.data ?? []).map(labelKey));
        return sameSet(a, b) ? undefined : `series ${b.size} vs ${a.size}: missing ${diff(a, b)}, extra ${diff(b, a)}`;
      }
      case "index_stats":
        return judgeIndexStats(g, t);
      case "volume":
        return judgeVolume(g, t);
    }
  } catch (err) {
    return `malformed response: ${String(err)}; ${JSON.stringify(t).slice(0, 200)}`;
  }
  return `unknown compare kind ${kind}`;
}

function judgeStreams(c: CompatCase, g: any, t: any): string | undefined {
  if (t.data?.resultType !== "streams") return `resultType ${t.data?.resultType}`;
  const a = entries(g);
  const b = entries(t);
  if (a.join("\n") !== b.join("\n")) {
    const sa = new Set(a);
    const sb = new Set(b);
    return `entries ${b.length} vs ${a.length}: missing ${diff(sa, sb)}, extra ${diff(sb, sa)}`;
  }
  const backward = String(c.params.direction ?? "backward").toLowerCase() !== "forward";
  for (const s of t.data.result) {
    const ts = s.values.map((v: any[]) => BigInt(v[0]));
    for (let i = 1; i < ts.length; i++) {
      if (backward ? ts[i] > ts[i - 1] : ts[i] < ts[i - 1]) return "entries out of order for direction";
    }
  }
  return undefined;
}

function entries(j: any): string[] {
  const out: string[] = [];
  for (const s of j.data.result) {
    for (const v of s.values) {
      out.push(JSON.stringify([v[0], v[1], labelKey(s.stream), v.length > 2 ? labelKeyDeep(v[2]) : ""]));
    }
  }
  return out.sort();
}

function judgeMetric(g: any, t: any): string | undefined {
  const rt = g.data.resultType;
  if (t.data?.resultType !== rt) return `resultType ${t.data?.resultType} != ${rt}`;
  if (rt === "scalar") {
    const [gt, gv] = g.data.result;
    const [tt, tv] = t.data.result;
    return Number(gt) === Number(tt) && close(num(gv), num(tv))
      ? undefined
      : `scalar ${JSON.stringify(t.data.result)} != ${JSON.stringify(g.data.result)}`;
  }
  const key = rt === "matrix" ? "values" : "value";
  const a = seriesMap(g, key);
  const b = seriesMap(t, key);
  const ka = new Set(a.keys());
  const kb = new Set(b.keys());
  if (!sameSet(ka, kb)) return `series ${kb.size} vs ${ka.size}: missing ${diff(ka, kb)}, extra ${diff(kb, ka)}`;
  for (const [k, pa] of a) {
    const pb = b.get(k)!;
    const ta = pa.map((p) => p[0]).join(",");
    const tb = pb.map((p) => p[0]).join(",");
    if (ta !== tb)
      return `timestamps differ for ${k}: ${pb.length} vs ${pa.length} points; got ${JSON.stringify(pb.slice(0, 2))} want ${JSON.stringify(pa.slice(0, 2))}`;
    for (let i = 0; i < pa.length; i++) {
      if (!close(pa[i]![1], pb[i]![1])) return `value at ${pa[i]![0]} for ${k}: ${pb[i]![1]} != ${pa[i]![1]}`;
    }
  }
  return undefined;
}

function seriesMap(j: any, key: "values" | "value"): Map<string, [number, number][]> {
  const m = new Map<string, [number, number][]>();
  for (const s of j.data.result) {
    const pts = key === "values" ? s.values : [s.value];
    m.set(
      labelKey(s.metric),
      pts.map((p: any[]) => [num(p[0]), num(p[1])]),
    );
  }
  return m;
}

function judgeIndexStats(g: any, t: any): string | undefined {
  for (const f of ["streams", "chunks", "bytes", "entries"]) {
    if (!Number.isInteger(t[f]) || t[f] < 0) return `${f} missing or not a count: ${JSON.stringify(t[f])}`;
  }
  if (g.entries) {
    if (!(0.5 * g.entries <= t.entries && t.entries <= 1.5 * g.entries))
      return `entries ${t.entries} not within 50% of ${g.entries}`;
    if (!(0.5 * g.bytes <= t.bytes && t.bytes <= 2 * g.bytes))
      return `bytes ${t.bytes} not within -50%/+100% of ${g.bytes}`;
  }
  return undefined;
}

function judgeVolume(g: any, t: any): string | undefined {
  const a = new Map<string, number>(g.data.result.map((x: any) => [labelKey(x.metric), num(x.value[1])]));
  const b = new Map<string, number>(t.data.result.map((x: any) => [labelKey(x.metric), num(x.value[1])]));
  const ka = new Set(a.keys());
  const kb = new Set(b.keys());
  if (!sameSet(ka, kb)) return `volume groups: missing ${diff(ka, kb)}, extra ${diff(kb, ka)}`;
  for (const [k, v] of a) {
    if (Math.abs(v - b.get(k)!) > 0.25 * v) return `volume ${k}: ${b.get(k)} not within 25% of ${v}`;
  }
  return undefined;
}

function labelKey(labels: Record<string, string> | undefined): string {
  return JSON.stringify(Object.entries(labels ?? {}).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}

function labelKeyDeep(o: Record<string, Record<string, string>>): string {
  return JSON.stringify(
    Object.keys(o)
      .sort()
      .map((k) => [k, labelKey(o[k])]),
  );
}

function num(v: unknown): number {
  if (v === "+Inf") return Infinity;
  if (v === "-Inf") return -Infinity;
  const n = Number(v);
  return Number.isNaN(n) ? NaN : n;
}

export function close(a: number, b: number): boolean {
  if (Number.isNaN(a) && Number.isNaN(b)) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}

function diff(a: Set<string>, b: Set<string>): string {
  const d = [...a].filter((x) => !b.has(x));
  return `${d.length}${d.length ? ` e.g. ${d[0]!.slice(0, 200)}` : ""}`;
}

function show(a: Answer): string {
  return (a.text ?? JSON.stringify(a.json) ?? "").slice(0, 200);
}
