/**
 * Conformance with real clients: every request shape Grafana's Loki data source, Logs Drilldown and
 * logcli send (test/fixtures/conformance/requests.json, each naming the client source that builds
 * it) goes through the Worker to the real VictoriaLogs holding the compat dataset.
 *
 * Each answer is checked for the shape its client parses (categorized 3-element values with
 * `encodingFlags` before `result` when the flag is sent, 2-element values otherwise, the fields
 * Drilldown reads) and for values from real Loki: where the same query was recorded in the compat
 * corpus, the answer is judged against that recording, re-encoded by Loki's own rules (a
 * categorized answer flattened as Loki flattens it without the flag, a volume grouped by a label
 * with the same values renamed, chunked requests unioned, forward pages concatenated).
 */
import { describe, expect, it } from "vitest";
import requests from "../fixtures/conformance/requests.json";
import cases from "../fixtures/compat/cases.json";
import { type Answer, type CompatCase, judge } from "./compat/judge";
import { call } from "./support/request";

interface Expect {
  status: number;
  golden?: string;
  flatten?: boolean;
  rename?: Record<string, string>;
  parts?: { start: string; end: string }[];
  partsNewestFirst?: boolean;
  pagesTo?: number;
  result?: unknown;
  body?: string;
  buildinfo?: boolean;
  detectedFieldsCover?: string;
  detectedLabelsOf?: string;
  patterns?: boolean;
  drilldownLimits?: boolean;
  allSeries?: boolean;
  volumeRangeSumsTo?: string;
  step?: number;
}

interface ClientRequest {
  id: string;
  client: "grafana" | "drilldown" | "logcli";
  feature: string;
  source: string;
  method: "GET";
  path: string;
  params: Record<string, string | string[]>;
  headers: Record<string, string>;
  expect: Expect;
}

/** Requests whose answer is known to differ from Loki's; each must still fail (checked below). */
const EXPECTED_FAILURES: Record<string, string> = {};

const goldens = import.meta.glob<Answer>("../fixtures/compat/golden/*.json", { eager: true, import: "default" });
const compatCases = new Map((cases as unknown as CompatCase[]).map((c) => [c.id, c]));

function golden(id: string): { c: CompatCase; a: Answer } {
  const a = goldens[`../fixtures/compat/golden/${id}.json`];
  const c = compatCases.get(id);
  if (!a || !c) throw new Error(`no compat case ${id}`);
  return { c, a };
}

interface Got extends Answer {
  raw: string;
  type: string | null;
}

async function send(r: ClientRequest, params: Record<string, string | string[]> = r.params): Promise<Got> {
  const res = await call(r.path, params, { method: r.method, headers: r.headers });
  const type = res.headers.get("Content-Type");
  return res.json !== undefined
    ? { status: res.status, json: res.json, raw: res.body, type }
    : { status: res.status, text: res.body, raw: res.body, type };
}

const categorized = (r: ClientRequest) => r.headers["X-Loki-Response-Encoding-Flags"] === "categorize-labels";

/** The shape each client parses, whatever the values. Returns why not, or undefined. */
function shapeProblem(r: ClientRequest, got: Got): string | undefined {
  const data = got.json?.data;
  if (data?.resultType === "streams") {
    const flagged = categorized(r);
    const flagAt = got.raw.indexOf('"encodingFlags"');
    const resultAt = got.raw.indexOf('"result"');
    if (flagged && !(flagAt >= 0 && flagAt < resultAt)) return "encodingFlags missing or after result";
    if (!flagged && flagAt >= 0) return "encodingFlags without the request header";
    for (const s of data.result) {
      for (const v of s.values) {
        if (!Array.isArray(v) || v.length !== (flagged ? 3 : 2)) return `value of ${v.length} elements`;
        if (typeof v[0] !== "string" || typeof v[1] !== "string") return "value not [string, string, ...]";
        if (flagged && Object.keys(v[2]).some((k) => k !== "structuredMetadata" && k !== "parsed"))
          return `unexpected categories ${Object.keys(v[2])}`;
      }
    }
  }
  if (data?.resultType === "matrix" || data?.resultType === "vector") {
    for (const s of data.result) {
      const points = data.resultType === "matrix" ? s.values : [s.value];
      for (const p of points) {
        if (typeof p[0] !== "number" || typeof p[1] !== "string") return `point ${JSON.stringify(p)}`;
      }
    }
  }
  if (got.status === 200 && !got.type?.startsWith("application/json")) return `content type ${got.type}`;
  return undefined;
}

/** A categorized answer as Loki gives it without the flag: every label merged into the stream. */
function flatten(json: any): any {
  const result: any[] = [];
  for (const s of json.data.result) {
    for (const v of s.values) {
      const extra = v[2] ?? {};
      result.push({ stream: { ...s.stream, ...extra.structuredMetadata, ...extra.parsed }, values: [[v[0], v[1]]] });
    }
  }
  return { ...json, data: { ...json.data, result } };
}

function renameMetric(json: any, names: Record<string, string>): any {
  const result = json.data.result.map((s: any) => ({
    ...s,
    metric: Object.fromEntries(Object.entries(s.metric).map(([k, v]) => [names[k] ?? k, v])),
  }));
  return { ...json, data: { ...json.data, result } };
}

/** Values: the request's expectation, judged against real Loki's recordings. */
async function valueProblem(r: ClientRequest, got: Got): Promise<string | undefined> {
  const e = r.expect;
  if (got.status !== e.status) return `status ${got.status} != ${e.status}: ${got.raw.slice(0, 200)}`;
  if (e.result !== undefined) {
    const { resultType, result } = got.json?.data ?? {};
    return same({ resultType, result }, e.result);
  }
  if (e.body !== undefined) return got.raw === e.body ? undefined : `body ${got.raw}`;
  if (e.golden) return judgeAgainstGolden(r, got, e);
  if (e.buildinfo) {
    const major = Number(String(got.json?.version ?? "").split(".")[0]);
    for (const k of ["version", "revision", "branch", "buildUser", "buildDate", "goVersion"])
      if (typeof got.json?.[k] !== "string") return `buildinfo lacks ${k}`;
    return major >= 3 ? undefined : `version ${got.json?.version} is not a Loki 3.x`;
  }
  if (e.detectedFieldsCover) return detectedFieldsProblem(got, e.detectedFieldsCover);
  if (e.detectedLabelsOf) return detectedLabelsProblem(got, e.detectedLabelsOf);
  if (e.patterns) {
    const data = got.json?.data;
    if (got.json?.status !== "success" || !Array.isArray(data) || data.length === 0) return "no patterns";
    for (const p of data) {
      if (typeof p.pattern !== "string" || !Array.isArray(p.samples)) return `pattern ${JSON.stringify(p)}`;
      if (p.samples.some((s: unknown[]) => typeof s[0] !== "number" || typeof s[1] !== "number"))
        return "samples are not [seconds, count]";
    }
    return undefined;
  }
  if (e.drilldownLimits) {
    const j = got.json;
    if (j?.pattern_ingester_enabled !== true) return "patterns not enabled";
    if (typeof j?.limits?.volume_enabled !== "boolean") return "limits.volume_enabled missing";
    return typeof j?.version === "string" ? undefined : "version missing";
  }
  if (e.allSeries) {
    const all = new Set((got.json?.data ?? []).map((s: Record<string, string>) => JSON.stringify(sorted(s))));
    // The compat dataset holds 48 streams (its README); every payments stream must be among them.
    if (all.size !== 48) return `${all.size} series, the dataset has 48`;
    const payments = golden("meta-series").a.json.data as Record<string, string>[];
    return payments.every((s) => all.has(JSON.stringify(sorted(s)))) ? undefined : "payments streams missing";
  }
  if (e.volumeRangeSumsTo) {
    // Loki's volume_range buckets partition the range: per group they add up to the range's volume.
    const sums: Record<string, number> = {};
    for (const s of got.json.data.result) {
      const points = got.json.data.resultType === "matrix" ? s.values : [s.value];
      for (const p of points)
        sums[JSON.stringify(sorted(s.metric))] = (sums[JSON.stringify(sorted(s.metric))] ?? 0) + Number(p[1]);
    }
    const vector = {
      status: "success",
      data: {
        resultType: "vector",
        result: Object.entries(sums).map(([k, v]) => ({
          metric: Object.fromEntries(JSON.parse(k)),
          value: [0, String(v)],
        })),
      },
    };
    const { c, a } = golden(e.volumeRangeSumsTo);
    return judge(c, a, { status: 200, json: vector });
  }
  return "no expectation";
}

async function judgeAgainstGolden(r: ClientRequest, first: Got, e: Expect): Promise<string | undefined> {
  const { c, a } = golden(e.golden!);
  let json = first.json;
  if (e.parts) json = await union(r, e);
  if (e.pagesTo) json = await forwardPages(r, first, e.pagesTo);
  if (e.flatten) json = flatten(json);
  if (e.rename) json = renameMetric(json, e.rename);
  return judge({ ...c, params: { ...c.params, direction: r.params.direction ?? "backward" } }, a, {
    status: 200,
    json,
  });
}

/** Grafana's query splitting: the chunked requests' answers, put together as Grafana does. */
async function union(r: ClientRequest, e: Expect): Promise<any> {
  const limit = Number(r.params.limit ?? 0);
  let received = 0;
  const results: any[] = [];
  let resultType = "";
  for (const part of e.parts!) {
    const params: Record<string, string | string[]> = { ...r.params, ...part };
    if (e.partsNewestFirst) {
      if (received >= limit) break;
      params.limit = String(limit - received);
    }
    const got = await send(r, params);
    if (got.status !== 200) throw new Error(`chunk ${JSON.stringify(part)}: ${got.raw.slice(0, 200)}`);
    const problem = shapeProblem(r, got);
    if (problem) throw new Error(`chunk ${JSON.stringify(part)}: ${problem}`);
    resultType = got.json.data.resultType;
    for (const s of got.json.data.result) {
      results.push(s);
      if (resultType === "streams") received += s.values.length;
    }
  }
  if (resultType === "matrix") {
    const bySeries = new Map<string, any>();
    for (const s of results) {
      const key = JSON.stringify(sorted(s.metric));
      const have = bySeries.get(key);
      if (have) have.values.push(...s.values);
      else bySeries.set(key, { metric: s.metric, values: [...s.values] });
    }
    return { status: "success", data: { resultType, result: [...bySeries.values()] } };
  }
  return { status: "success", data: { resultType, result: results } };
}

/**
 * logcli's batched forward query: each next request starts at the last timestamp received, and
 * entries already printed are skipped, until `total` entries are out.
 */
async function forwardPages(r: ClientRequest, first: Got, total: number): Promise<any> {
  const seen = new Set<string>();
  const out: any[] = [];
  let got = first;
  for (let page = 0; page < 20 && out.length < total; page++) {
    const entries = got.json.data.result.flatMap((s: any) => s.values.map((v: any) => ({ stream: s.stream, v })));
    entries.sort((x: any, y: any) => (BigInt(x.v[0]) < BigInt(y.v[0]) ? -1 : BigInt(x.v[0]) > BigInt(y.v[0]) ? 1 : 0));
    let fresh = 0;
    for (const { stream, v } of entries) {
      const key = JSON.stringify([v, sorted(stream)]);
      if (seen.has(key) || out.length >= total) continue;
      seen.add(key);
      out.push({ stream, values: [v] });
      fresh++;
    }
    if (fresh === 0 || entries.length === 0) break;
    got = await send(r, { ...r.params, start: entries[entries.length - 1].v[0] });
  }
  return { status: "success", data: { resultType: "streams", result: out } };
}

/** Every label Loki parsed or attached on those lines is a detected field, with the right parser. */
function detectedFieldsProblem(got: Got, goldenId: string): string | undefined {
  const fields = new Map<string, any>((got.json?.fields ?? []).map((f: any) => [f.label, f]));
  for (const s of golden(goldenId).a.json.data.result) {
    for (const v of s.values) {
      for (const name of Object.keys(v[2]?.parsed ?? {})) {
        if (name === "__error__" || name === "__error_details__") continue;
        const f = fields.get(name);
        if (!f) return `parsed field ${name} not detected`;
        if (!(f.parsers ?? []).includes("json")) return `${name} parsers ${JSON.stringify(f.parsers)}`;
      }
      for (const name of Object.keys(v[2]?.structuredMetadata ?? {})) {
        const f = fields.get(name);
        if (!f) return `structured metadata ${name} not detected`;
        if (f.parsers !== null) return `${name} parsers ${JSON.stringify(f.parsers)}, Loki says null`;
      }
    }
  }
  for (const f of fields.values()) {
    if (!["string", "int", "float", "boolean", "duration", "bytes"].includes(f.type)) return `type ${f.type}`;
    if (!Number.isInteger(f.cardinality) || f.cardinality < 1) return `cardinality ${f.cardinality}`;
  }
  return undefined;
}

/** Each detected label's cardinality is its number of values among the streams real Loki listed. */
function detectedLabelsProblem(got: Got, seriesGolden: string): string | undefined {
  const values = new Map<string, Set<string>>();
  for (const s of golden(seriesGolden).a.json.data as Record<string, string>[]) {
    for (const [k, v] of Object.entries(s)) (values.get(k) ?? values.set(k, new Set()).get(k)!).add(v);
  }
  const labels: { label: string; cardinality: number }[] = got.json?.detectedLabels ?? [];
  if (labels.length === 0) return "no detected labels";
  for (const { label, cardinality } of labels) {
    const want = values.get(label)?.size;
    if (want !== cardinality) return `${label}: cardinality ${cardinality}, the streams have ${want}`;
  }
  for (const always of ["cluster", "namespace", "pod"]) {
    if (!labels.some((l) => l.label === always)) return `${always} missing`;
  }
  return undefined;
}

function sorted(labels: Record<string, string>): [string, string][] {
  return Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function same(got: unknown, want: unknown): string | undefined {
  return JSON.stringify(got) === JSON.stringify(want) ? undefined : `got ${JSON.stringify(got)}`;
}

const corpus = requests as unknown as ClientRequest[];

describe("conformance with what Grafana, Logs Drilldown and logcli send", () => {
  it("covers every client, and each expected failure names a request", () => {
    expect(new Set(corpus.map((r) => r.client))).toEqual(new Set(["grafana", "drilldown", "logcli"]));
    expect(Object.keys(EXPECTED_FAILURES).filter((id) => !corpus.some((r) => r.id === id))).toEqual([]);
    expect(new Set(corpus.map((r) => r.id)).size).toBe(corpus.length);
  });

  for (const r of corpus) {
    const known = EXPECTED_FAILURES[r.id];
    it(`${r.client}: ${r.feature} [${r.id}]${known ? " (expected failure)" : ""}`, async () => {
      const got = await send(r);
      const why = shapeProblem(r, got) ?? (await valueProblem(r, got));
      if (known) expect(why, `${r.id} now passes: remove it from EXPECTED_FAILURES`).toBeDefined();
      else expect(why).toBeUndefined();
    });
  }
});
