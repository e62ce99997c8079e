/**
 * /patterns without a pattern ingester: the lines of the selector are read from the origin chunk by
 * chunk and mined at the edge (engine/patterns), each chunk's patterns counted on the request's step
 * grid, then the chunks' patterns merged into one answer.
 *
 * Cost is bounded by reading at most MAX_LINES_PER_CHUNK lines of each of at most ~TARGET_CHUNKS
 * chunks. Counts are exact for every chunk that holds no more lines than that: every line was mined
 * and counted once. A chunk holding more is mined from a cap-sized sample, and its counts are scaled
 * by (lines in the chunk, counted exactly by the origin) / (lines sampled) — an estimate, whose
 * total per chunk is right but whose split between patterns and buckets is the sample's.
 *
 * Whole historical chunks are cached (cache/pattern-chunks.ts); chunk boundaries are multiples of
 * the step, so no bucket straddles two chunks and cached and fresh chunks add up exactly.
 */
import type { Matcher } from "../logql/ast";
import type { OriginClient } from "../origin/client";
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

/** Lines read and mined per chunk, at most. */
export const MAX_LINES_PER_CHUNK = 2_000;
/** The range is cut into about this many chunks (fewer when the step or the minimum is larger). */
const TARGET_CHUNKS = 12n;
const MIN_CHUNK_NS = 5n * 60_000_000_000n;
/** Names the miner's rules in cache keys: a change to them must not read old chunks. */
const MINER_VERSION = 1;

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
  const { window, step } = o;
  const stepMs = Math.max(1, Number(step / 1_000_000n));
  const filter = streamFilter(matchers, client.derivedFields?.serviceNameLabels);
  const cache = client.patternChunks(
    JSON.stringify(["patterns", MINER_VERSION, filter, String(step), MAX_LINES_PER_CHUNK]),
  );
  const length = patternChunkLength(window.end - window.start, step);
  const chunks: { whole: TimeWindow; part: TimeWindow }[] = [];
  for (let c = floorDiv(window.start, length); c * length < window.end; c++) {
    const whole = { start: c * length, end: (c + 1n) * length };
    const part = {
      start: whole.start > window.start ? whole.start : window.start,
      end: whole.end < window.end ? whole.end : window.end,
    };
    chunks.push({ whole, part });
  }

  let cachedChunks = 0;
  let scaledChunks = 0;
  const mineChunk = async ({ whole, part }: { whole: TimeWindow; part: TimeWindow }): Promise<MinedPattern[]> => {
    const isWhole = part.start === whole.start && part.end === whole.end;
    const storable = cache !== undefined && isWhole && cache.storable(whole);
    if (cache !== undefined && !storable) cache.passedOver(whole);
    if (storable) {
      const hit = await cache.lookup(whole);
      if (hit) {
        cachedChunks++;
        return hit;
      }
    }
    const miner = new PatternMiner(stepMs);
    let read = 0;
    for await (const batch of client.logRows(`${filter} | limit ${MAX_LINES_PER_CHUNK}`, part)) {
      for (const row of batch) miner.addLine(row.line, row.ts, patternLevel(row.stream, row.metadata));
      read += batch.length;
    }
    let patterns = miner.result();
    if (read >= MAX_LINES_PER_CHUNK) {
      const total = await countLines(client, filter, part);
      if (total > read) {
        scaledChunks++;
        patterns = scale(patterns, total / read);
      }
    }
    if (storable) cache.store(whole, patterns);
    return patterns;
  };

  const perChunk: MinedPattern[][] = new Array(chunks.length);
  const limit = Math.max(1, o.maxConcurrency);
  for (let i = 0; i < chunks.length; i += limit) {
    const batch = chunks.slice(i, i + limit);
    const mined = await Promise.all(batch.map(mineChunk));
    mined.forEach((m, j) => (perChunk[i + j] = m));
  }

  const merged = new PatternMiner(stepMs);
  for (const patterns of perChunk) for (const p of patterns) merged.addPattern(p);
  return {
    patterns: answers(merged.result()),
    figures: { ...merged.figures, chunks: chunks.length, cachedChunks, scaledChunks },
  };
}

/** Lines of the selector in `w`, counted by the origin. */
async function countLines(client: OriginClient, filter: string, w: TimeWindow): Promise<number> {
  const rows = await client.statsRows(`${filter} | stats count() as lines`, w);
  const n = Number(rows[0]?.["lines"] ?? 0);
  return Number.isFinite(n) ? n : 0;
}

function scale(patterns: MinedPattern[], factor: number): MinedPattern[] {
  return patterns.map((p) => ({ ...p, samples: p.samples.map(([t, n]) => [t, Math.round(n * factor)]) }));
}

/**
 * Loki's answer entries: patterns written out, identical texts of one level counted together (two
 * formats can write the same text), buckets in seconds.
 */
function answers(mined: readonly MinedPattern[]): PatternAnswer[] {
  const byText = new Map<string, { answer: PatternAnswer; counts: Map<number, number> }>();
  for (const p of mined) {
    const pattern = patternText(p);
    const key = `${p.level}\u0000${pattern}`;
    let e = byText.get(key);
    if (!e) byText.set(key, (e = { answer: { pattern, level: p.level, samples: [] }, counts: new Map() }));
    for (const [ms, n] of p.samples) if (n > 0) e.counts.set(ms, (e.counts.get(ms) ?? 0) + n);
  }
  const out: PatternAnswer[] = [];
  for (const { answer, counts } of byText.values()) {
    answer.samples = [...counts].sort((a, b) => a[0] - b[0]).map(([ms, n]) => [Math.floor(ms / 1000), n]);
    if (answer.samples.length > 0) out.push(answer);
  }
  return out;
}
