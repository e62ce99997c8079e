/**
 * /patterns without a pattern ingester: VictoriaLogs groups the lines of a run of consecutive
 * chunks (plan/pattern-groups: lines equal but for their numbers, with the step bucket of each line
 * and their smallest and largest line), and the Worker mines each group's lines once for the run
 * (engine/patterns), then merges the runs' patterns and those of cached chunks into one answer,
 * counted on the request's step grid. Groups cross the network, not lines.
 *
 * Counts: one request counts every chunk's lines. A run whose chunks hold at most
 * MAX_LINES_PER_CHUNK lines each is grouped whole and its counts are exact: every line is counted
 * by the origin in its group and booked to the pattern its group's lines joined. A run with a larger
 * chunk is grouped from a random sample of one line in N (N = that chunk's lines ÷
 * MAX_LINES_PER_CHUNK, rounded up, the largest of the run's), and so is a run past its MAX_GROUPS
 * groups a chunk from its largest groups: each chunk's counts are scaled by (lines in the chunk) /
 * (lines grouped), an estimate whose total per chunk is right and whose split between patterns and
 * buckets is the sample's.
 *
 * Templates: a group with at most two distinct lines in the run is mined from all of them, so the
 * patterns are those of mining every line (up to the order lines are mined in, which Drain is
 * sensitive to only when a line is as close to two patterns). A group with more is mined from its
 * smallest and largest line: a number they share stays in the pattern even if another line of the
 * group has another there; patterns of several groups merge, so it stays only when every group's
 * two lines agree on it.
 *
 * Whole historical chunks are cached (cache/pattern-chunks.ts): a run's patterns cut into its
 * chunks, each with the counts of its buckets. Chunk boundaries are multiples of the step, so no
 * bucket straddles two chunks and cached and fresh chunks add up exactly.
 */
import type { Matcher } from "../logql/ast";
import type { TimeWindow } from "../core/time-window";
import type { CachedOrigin } from "../cache/cached-origin";
import { streamFilter } from "../plan/selector";
import {
  PatternMiner,
  patternLevel,
  patternText,
  type MinedPattern,
  type MinerFigures,
  type PatternAnswer,
} from "../engine/patterns/miner";
import { floorDiv } from "../core/go/intdiv";
import {
  GROUP_FIELD,
  MAX_GROUPS,
  MAX_LINES_PER_CHUNK,
  chunkLinesQuery,
  patternGroupsQuery,
  type GroupRun,
} from "../plan/pattern-groups";
import { LEVEL_LABEL_INPUTS } from "../plan/level-pushdown";
import { DETECTED_LEVEL, addDetectedLevel } from "../engine/derived-fields";
import type { OriginClient } from "../origin/client";
import { parseVLTime } from "../origin/timefmt";
import type { VLRow } from "../origin/rows";
/** The range is cut into about this many chunks (fewer when the step or the minimum is larger). */
const TARGET_CHUNKS = 12n;
const MIN_CHUNK_NS = 5n * 60_000_000_000n;
/**
 * Lines grouped by one request at most (after sampling), unless one chunk holds more: a range's
 * chunks (TARGET_CHUNKS, one more when the range does not start on a chunk's start) fit in one
 * request, whose answer holds each group's lines once.
 */
const RUN_LINES = MAX_LINES_PER_CHUNK * (Number(TARGET_CHUNKS) + 1);
/** Names the miner's rules in cache keys: a change to them must not read old chunks. */
const MINER_VERSION = 3;

export interface PatternOptions {
  window: TimeWindow;
  step: bigint;
  maxConcurrency: number;
}

export interface PatternRun {
  patterns: PatternAnswer[];
  figures: MinerFigures & { chunks: number; cachedChunks: number; scaledChunks: number };
}

/** The chunk length for a range: about TARGET_CHUNKS chunks, a multiple of the step. */
export function patternChunkLength(span: bigint, step: bigint): bigint {
  let target = span / TARGET_CHUNKS;
  if (target < MIN_CHUNK_NS) target = MIN_CHUNK_NS;
  const steps = (target + step - 1n) / step;
  return (steps > 0n ? steps : 1n) * step;
}

export async function minePatterns(client: CachedOrigin, matchers: Matcher[], o: PatternOptions): Promise<PatternRun> {
  const { window } = o;
  // Buckets are whole milliseconds at the origin and here: a step with a fraction of one (only
  // possible over a few seconds, by Loki's 11,000-point limit) is rounded up to the next.
  const step = o.step % 1_000_000n === 0n ? o.step : (o.step / 1_000_000n + 1n) * 1_000_000n;
  const stepMs = Number(step / 1_000_000n);
  const filter = streamFilter(matchers, client.derivedFields?.serviceNameLabels);
  const cache = client.patternChunks(
    JSON.stringify(["patterns", MINER_VERSION, filter, String(step), MAX_GROUPS, MAX_LINES_PER_CHUNK]),
  );
  const discover = client.derivedFields?.discoverLogLevels === true;
  const levelFields = discover ? LEVEL_LABEL_INPUTS : [DETECTED_LEVEL];
  const length = patternChunkLength(window.end - window.start, step);
  const chunks: Chunk[] = [];
  for (let c = floorDiv(window.start, length); c * length < window.end; c++) {
    const whole = { start: c * length, end: (c + 1n) * length };
    const part = {
      start: whole.start > window.start ? whole.start : window.start,
      end: whole.end < window.end ? whole.end : window.end,
    };
    chunks.push({ whole, part, patterns: undefined, storable: false });
  }

  let cachedChunks = 0;
  await Promise.all(
    chunks.map(async (chunk) => {
      const { whole, part } = chunk;
      const isWhole = part.start === whole.start && part.end === whole.end;
      chunk.storable = cache !== undefined && isWhole && cache.storable(whole);
      if (cache === undefined) return;
      if (!chunk.storable) cache.passedOver(whole);
      else if ((chunk.patterns = await cache.lookup(whole))) cachedChunks++;
    }),
  );

  const toMine = chunks.filter((c) => !c.patterns);
  const groupRun = (run: Chunk[], sample: number, lineLimit?: number): GroupRun => ({
    filter,
    stepMs,
    chunkSteps: Number(length / step),
    chunks: run.length,
    startNs: run[0]!.whole.start,
    levelFields,
    sample,
    lineLimit,
  });
  const span = (run: Chunk[]): TimeWindow => ({ start: run[0]!.part.start, end: run[run.length - 1]!.part.end });
  // The groups of every chunk to mine are asked for while the chunks' lines are counted: when they
  // hold at most RUN_LINES lines, these are all of them, grouped whole (no sample), and the request
  // waits for one origin round trip instead of two. Past that, it is abandoned (the origin stops
  // at RUN_LINES + 1 lines in any case).
  const consecutive = toMine.every((c, i) => i === 0 || toMine[i - 1]!.whole.end === c.whole.start);
  const early = toMine.length > 0 && consecutive ? groupRun(toMine, 1, RUN_LINES + 1) : undefined;
  const abandon = new AbortController();
  const earlyRows = early && client.withSignal(abandon.signal).statsRows(patternGroupsQuery(early), span(toMine));
  earlyRows?.catch(() => {});
  const totals =
    toMine.length === 0
      ? new Map<number, number>()
      : await chunkLines(client, filter, Number(length / 1_000_000n), span(toMine));
  const linesOf = (c: Chunk) => totals.get(Number(c.whole.start / 1_000_000n)) ?? 0;
  const sampleOf = (c: Chunk) => Math.max(1, Math.ceil(linesOf(c) / MAX_LINES_PER_CHUNK));

  let scaledChunks = 0;
  const mineGroups = (run: Chunk[], groupRun: GroupRun, rows: readonly VLRow[]): void => {
    // Each group is mined once for the whole run, counted on the run's grid of buckets.
    const startMs = Number(groupRun.startNs / 1_000_000n);
    const miner = new PatternMiner(stepMs, undefined, { startMs, buckets: run.length * groupRun.chunkSteps });
    const chunkMs = groupRun.chunkSteps * stepMs;
    const chunkOf = (ms: number) => Math.floor((ms - startMs) / chunkMs);
    const covered = new Array<number>(run.length).fill(0);
    for (const g of readGroups(rows, groupRun)) {
      miner.addGroup(
        g.lines.map((line) => ({ line, level: lineLevel(line, g.levelInputs, discover) })),
        g.samples,
      );
      for (const [ms, n] of g.samples) covered[chunkOf(ms)]! += n;
    }
    // A chunk past its sampling or group cap: its counts scaled up to its lines.
    const factors = run.map((chunk, k) => {
      const total = linesOf(chunk);
      return total > covered[k]! && covered[k]! > 0 ? total / covered[k]! : 1;
    });
    scaledChunks += factors.filter((f) => f !== 1).length;
    const mined = factors.some((f) => f !== 1)
      ? miner.result().map((p) => scale(p, (ms) => factors[chunkOf(ms)]!))
      : miner.result();
    // The run's patterns are merged once (they are one miner's clusters); its chunks' shares
    // (patterns with the counts of the chunk's buckets) are what the cache keeps.
    run.forEach((chunk) => (chunk.patterns = []));
    run[0]!.patterns = mined;
    if (run.some((chunk) => chunk.storable)) {
      const perChunk = splitByChunk(mined, run.length, chunkOf);
      run.forEach((chunk, k) => {
        if (chunk.storable) cache?.store(chunk.whole, perChunk[k]!);
      });
    }
  };

  const lines = toMine.reduce((sum, c) => sum + linesOf(c), 0);
  if (lines > RUN_LINES) abandon.abort();
  const rows = early && lines <= RUN_LINES ? await earlyRows! : undefined;
  if (early && rows && groupedLines(rows) <= RUN_LINES) {
    mineGroups(toMine, early, rows);
  } else {
    // Consecutive chunks to mine are grouped in one request while the lines it groups (after
    // sampling) stay under RUN_LINES. Chunks without lines need none.
    const runs: Chunk[][] = [];
    let runLines = 0;
    for (const chunk of toMine) {
      if (linesOf(chunk) === 0) {
        chunk.patterns = [];
        if (chunk.storable) cache?.store(chunk.whole, []);
        continue;
      }
      const lines = linesOf(chunk) / sampleOf(chunk);
      const last = runs[runs.length - 1];
      const tail = last?.[last.length - 1];
      if (last && tail!.whole.end === chunk.whole.start && runLines + lines <= RUN_LINES) {
        last.push(chunk);
        runLines += lines;
      } else {
        runs.push([chunk]);
        runLines = lines;
      }
    }
    const mineRun = async (run: Chunk[]): Promise<void> => {
      const sampled = groupRun(run, Math.max(...run.map(sampleOf)));
      mineGroups(run, sampled, await client.statsRows(patternGroupsQuery(sampled), span(run)));
    };
    const limit = Math.max(1, o.maxConcurrency);
    for (let i = 0; i < runs.length; i += limit) await Promise.all(runs.slice(i, i + limit).map(mineRun));
  }

  const merged = new PatternMiner(stepMs);
  for (const chunk of chunks) for (const p of chunk.patterns ?? []) merged.addPattern(p);
  return {
    patterns: answers(merged.result()),
    figures: { ...merged.figures, chunks: chunks.length, cachedChunks, scaledChunks },
  };
}

interface Chunk {
  whole: TimeWindow;
  part: TimeWindow;
  patterns: MinedPattern[] | undefined;
  storable: boolean;
}

/** Lines of the selector in `w` by chunk start (ms), counted by the origin. */
async function chunkLines(
  client: OriginClient,
  filter: string,
  chunkMs: number,
  w: TimeWindow,
): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const row of await client.statsRows(chunkLinesQuery(filter, chunkMs), w)) {
    const at = row["_time"];
    if (at) out.set(Number(parseVLTime(at) / 1_000_000n), wholeNumber(row[GROUP_FIELD.lines]));
  }
  return out;
}

/** The lines a groups answer holds (its groups' counts). */
function groupedLines(rows: readonly VLRow[]): number {
  return rows.reduce((sum, row) => sum + wholeNumber(row[GROUP_FIELD.lines]), 0);
}

export interface LineGroup {
  /** Its distinct lines when it has at most two, else its smallest and largest. */
  lines: string[];
  /** The level fields' values (empty ones left out: VictoriaLogs stores no empty field). */
  levelInputs: Record<string, string>;
  first: bigint;
  /** [bucket start in ms, lines], oldest first. */
  samples: [number, number][];
}

/**
 * The groups of a run's answer (plan/pattern-groups.ts), the oldest first line first: the order the
 * lines came in, as near as groups allow.
 */
export function readGroups(rows: readonly VLRow[], run: GroupRun): LineGroup[] {
  const F = GROUP_FIELD;
  const startMs = Number(run.startNs / 1_000_000n);
  const step = BigInt(run.stepMs);
  const out: LineGroup[] = [];
  for (const row of rows) {
    const lowest = row[F.lowest] ?? "";
    const highest = row[F.highest] ?? "";
    // A typed array sorts numbers natively, without a comparison callback per pair.
    const buckets = Float64Array.from(lineBuckets(row[F.bucket], startMs, run.stepMs, step)).sort();
    const samples: [number, number][] = [];
    for (const ms of buckets) {
      const last = samples[samples.length - 1];
      if (last?.[0] === ms) last[1]++;
      else samples.push([ms, 1]);
    }
    const firstTime = row[F.first];
    out.push({
      lines: highest === "" || highest === lowest ? [lowest] : [lowest, highest],
      levelInputs: levelInputsOf(row, run.levelFields),
      first: firstTime ? parseVLTime(firstTime) : 0n,
      samples,
    });
  }
  return out.sort((x, y) => (x.first < y.first ? -1 : x.first > y.first ? 1 : 0));
}

/**
 * Each line's bucket start (ms) from a group's list of buckets (`["12","2026-…Z",…]`): an index of
 * steps from the run's start, or (a line at a bucket's edge) the line's time. Read in place, as the
 * list holds one entry per line.
 */
export function lineBuckets(json: string | undefined, startMs: number, stepMs: number, step: bigint): number[] {
  const out: number[] = [];
  if (!json) return out;
  const fail = () => new Error("not a list of buckets");
  if (json.charCodeAt(0) !== 91 /* [ */) throw fail();
  let i = 1;
  while (i < json.length && json.charCodeAt(i) !== 93 /* ] */) {
    if (json.charCodeAt(i) !== 34 /* " */) throw fail();
    const end = json.indexOf('"', i + 1);
    if (end < 0) throw fail();
    let index = 0;
    let digits = true;
    for (let k = i + 1; k < end; k++) {
      const d = json.charCodeAt(k) - 48;
      if (d < 0 || d > 9) {
        digits = false;
        break;
      }
      index = index * 10 + d;
    }
    if (digits && end > i + 1) {
      out.push(startMs + index * stepMs);
    } else {
      const entry = json.slice(i + 1, end);
      if (entry.includes("T")) {
        const at = parseVLTime(entry) / 1_000_000n;
        out.push(Number(at - mod(at, step)));
      } else {
        const n = Number(entry);
        if (!Number.isFinite(n)) throw fail();
        out.push(startMs + n * stepMs);
      }
    }
    i = end + 1;
    if (json.charCodeAt(i) === 44 /* , */) i++;
  }
  if (i >= json.length) throw fail();
  return out;
}

/**
 * A run's patterns cut into its chunks: per chunk, the patterns with lines in it and only those
 * counts, the most lines first, then by pattern text (the order a chunk's own mining gives).
 */
function splitByChunk(
  patterns: readonly MinedPattern[],
  chunks: number,
  chunkOf: (ms: number) => number,
): MinedPattern[][] {
  type Part = { p: MinedPattern; samples: (readonly [number, number])[]; total: number; text: string };
  const out: Part[][] = Array.from({ length: chunks }, () => []);
  for (const p of patterns) {
    let k = -1;
    let part: Part | undefined;
    for (const sample of p.samples) {
      const c = chunkOf(sample[0]);
      if (c !== k) {
        k = c;
        const samples: (readonly [number, number])[] = [];
        part = { p: { ...p, samples }, samples, total: 0, text: "" };
        out[c]!.push(part);
      }
      part!.samples.push(sample);
      part!.total += sample[1];
    }
  }
  return out.map((list) => {
    for (const e of list) e.text = patternText(e.p);
    list.sort((a, b) => b.total - a.total || compare(a.text, b.text) || compare(a.p.level, b.p.level));
    return list.map((e) => e.p);
  });
}

/** The level fields' values of a group's row (its grouping fields). */
function levelInputsOf(row: VLRow, fields: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = row[f];
    if (v) out[f] = v;
  }
  return out;
}

/** A line's pattern level from its group's level fields, as the row's own fields would give it. */
function lineLevel(line: string, inputs: Record<string, string>, discover: boolean): string {
  const metadata = { ...inputs };
  if (discover) addDetectedLevel({ stream: {}, metadata, line });
  return patternLevel({}, metadata);
}

function wholeNumber(s: string | undefined): number {
  const n = Number(s ?? 0);
  return Number.isFinite(n) ? n : 0;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function mod(a: bigint, m: bigint): bigint {
  const r = a % m;
  return r < 0n ? r + m : r;
}

function scale(p: MinedPattern, factorAt: (ms: number) => number): MinedPattern {
  return { ...p, samples: p.samples.map(([t, n]) => [t, Math.round(n * factorAt(t))]) };
}

/**
 * Loki's answer entries: patterns written out, identical texts of one level counted together (two
 * formats can write the same text), buckets in seconds.
 */
function answers(mined: readonly MinedPattern[]): PatternAnswer[] {
  const byText = new Map<string, MinedPattern[]>();
  for (const p of mined) {
    const key = `${p.level}\u0000${patternText(p)}`;
    const same = byText.get(key);
    if (same) same.push(p);
    else byText.set(key, [p]);
  }
  const out: PatternAnswer[] = [];
  for (const same of byText.values()) {
    const first = same[0]!;
    // Mined samples are ordered by bucket; only patterns sharing a text need adding up.
    let samples = first.samples;
    if (same.length > 1) {
      const counts = new Map<number, number>();
      for (const p of same) for (const [ms, n] of p.samples) counts.set(ms, (counts.get(ms) ?? 0) + n);
      samples = [...counts].sort((a, b) => a[0] - b[0]);
    }
    const answer: PatternAnswer = { pattern: patternText(first), level: first.level, samples: [] };
    for (const [ms, n] of samples) if (n > 0) answer.samples.push([Math.floor(ms / 1000), n]);
    if (answer.samples.length > 0) out.push(answer);
  }
  return out;
}
