/**
 * Pattern mining over a set of log lines: one Drain per line format and level (Loki's pattern
 * ingester keeps one per stream and level), and per cluster the number of lines in each bucket of
 * the request's step grid (bucket start = time truncated to a multiple of the step, as Loki does).
 *
 * Mined results merge: the patterns of several time chunks go through a fresh miner as if each were
 * one line, so a token that is constant in one chunk and varies in another becomes `<_>`, and the
 * bucket counts add up. Counting is exact: every line added is counted in exactly one pattern, or in
 * `refused` when it cannot be mined (too few or too many tokens, too long, the miner full).
 *
 * Lines also come as groups (exec/patterns.ts): lines that differ only in their digits, counted by
 * the origin per bucket, with the group's distinct lines or a sample of them. Each distinct line is
 * mined once (a repeated line changes no template) and the group's counts go to the patterns its
 * lines joined.
 */
import { DEFAULT_DRAIN_OPTIONS, Drain, type Cluster, type DrainOptions } from "./drain";
import { joinTokens, tokenizeLine, type LineFormat } from "./tokenize";

export interface MinedPattern {
  format: LineFormat;
  level: string;
  tokens: string[];
  spacesAfter: number[];
  /** [bucket start in ms, lines], oldest first (lists may be shared between patterns: never changed). */
  samples: readonly (readonly [number, number])[];
}

/** One pattern of a /patterns answer: its text, its level and its counts per bucket. */
export interface PatternAnswer {
  pattern: string;
  level: string;
  /** [bucket start, unix seconds; lines], oldest first. */
  samples: [number, number][];
}

export interface MinerFigures {
  lines: number;
  refused: number;
  clusters: number;
}

/** Loki's level names; anything else is `unknown`, as in Loki's pattern ingester. */
const LEVELS = new Set(["unknown", "debug", "info", "warn", "error", "fatal", "critical", "trace"]);

/** The level a line is filed under: its `detected_level` (metadata or stream label), else unknown. */
export function patternLevel(stream: Record<string, string>, metadata: Record<string, string>): string {
  const raw = metadata["detected_level"] ?? stream["detected_level"];
  const level = raw?.toLowerCase();
  return level !== undefined && LEVELS.has(level) ? level : "unknown";
}

interface Group {
  format: LineFormat;
  level: string;
  drain: Drain;
  counts: Map<number, Tally>;
}

/** The step buckets a miner's lines fall in, when known: from `startMs`, `buckets` of them. */
export interface BucketGrid {
  startMs: number;
  buckets: number;
}

/** Array cells (8 bytes each) a miner keeps at most for counts on its grid; past that, maps. */
const GRID_CELLS = 1_000_000;

/**
 * A cluster's lines per bucket: in an array indexed by bucket when the miner knows its grid (no
 * map operation per group and bucket), else in a map. Merging mined patterns hands over whole
 * sorted sample lists, most clusters just one: those are kept as they come and added up only when
 * a cluster has several.
 */
class Tally {
  private readonly byBucket = new Map<number, number>();
  private readonly lists: (readonly (readonly [number, number])[])[] = [];

  constructor(
    private readonly cells?: Float64Array,
    private readonly startMs = 0,
    private readonly stepMs = 1,
  ) {}

  add(bucket: number, n: number): void {
    if (this.cells) {
      const i = (bucket - this.startMs) / this.stepMs;
      if (Number.isInteger(i) && i >= 0 && i < this.cells.length) {
        this.cells[i]! += n;
        return;
      }
    }
    this.byBucket.set(bucket, (this.byBucket.get(bucket) ?? 0) + n);
  }

  /** A mined pattern's samples (ordered by bucket unless they come from elsewhere). */
  addList(samples: readonly (readonly [number, number])[]): void {
    this.lists.push(samples);
  }

  /** [bucket, lines], oldest first: a single ordered list as it came (shared, never changed). */
  samples(): readonly (readonly [number, number])[] {
    if (this.byBucket.size === 0 && this.lists.length === 1 && !this.cells && ascending(this.lists[0]!)) {
      return this.lists[0]!;
    }
    const fromCells: [number, number][] = [];
    if (this.cells) {
      this.cells.forEach((n, i) => {
        if (n !== 0) fromCells.push([this.startMs + i * this.stepMs, n]);
      });
      if (this.byBucket.size === 0 && this.lists.length === 0) return fromCells;
    }
    for (const [bucket, n] of fromCells) this.byBucket.set(bucket, (this.byBucket.get(bucket) ?? 0) + n);
    this.cells?.fill(0);
    for (const list of this.lists)
      for (const [bucket, n] of list) this.byBucket.set(bucket, (this.byBucket.get(bucket) ?? 0) + n);
    this.lists.length = 0;
    return [...this.byBucket].sort((a, b) => a[0] - b[0]);
  }
}

export class PatternMiner {
  private readonly groups = new Map<string, Group>();
  private lines = 0;
  private refused = 0;
  private gridCells = 0;

  constructor(
    private readonly stepMs: number,
    private readonly options: DrainOptions = DEFAULT_DRAIN_OPTIONS,
    private readonly grid?: BucketGrid,
  ) {}

  private tally(): Tally {
    const grid = this.grid;
    if (!grid || this.gridCells + grid.buckets > GRID_CELLS) return new Tally();
    this.gridCells += grid.buckets;
    return new Tally(new Float64Array(grid.buckets), grid.startMs, this.stepMs);
  }

  addLine(line: string, tsNs: bigint, level: string): void {
    this.lines++;
    const t = tokenizeLine(line);
    if (!t) {
      this.refused++;
      return;
    }
    const tsMs = Number(tsNs / 1_000_000n);
    this.count(t.format, level, t.tokens, t.spacesAfter, [[tsMs - mod(tsMs, this.stepMs), 1]]);
  }

  /**
   * A group of lines counted elsewhere: `lines` (distinct, with their levels) are mined, and the
   * group's `samples` are booked to the patterns they joined, in proportion to how many of `lines`
   * joined each (all of them when they joined one, as lines differing only in digits nearly always
   * do). The share of lines no pattern took is refused.
   */
  addGroup(lines: readonly { line: string; level: string }[], samples: readonly (readonly [number, number])[]): void {
    const total = samples.reduce((sum, [, n]) => sum + n, 0);
    this.lines += total;
    const targets = new Map<string, { counts: Tally | undefined; weight: number }>();
    for (const { line, level } of lines) {
      const t = tokenizeLine(line);
      const group = t && this.group(t.format, level);
      const cluster = t && group ? group.drain.add(t.tokens, t.spacesAfter) : undefined;
      let counts: Tally | undefined;
      let key = "";
      if (group && cluster) {
        counts = group.counts.get(cluster.id);
        if (!counts) group.counts.set(cluster.id, (counts = this.tally()));
        key = `${group.format}\u0000${group.level}\u0000${cluster.id}`;
      }
      const target = targets.get(key);
      if (target) target.weight++;
      else targets.set(key, { counts, weight: 1 });
    }
    const shares = [...targets.values()];
    if (shares.length === 1) {
      // Every line joined one pattern (lines differing only in digits nearly always do).
      const counts = shares[0]!.counts;
      if (counts) for (const [bucket, n] of samples) counts.add(bucket, n);
      else this.refused += total;
      return;
    }
    const weights = shares.map((s) => s.weight);
    for (const [bucket, n] of samples) {
      const split = apportion(n, weights);
      shares.forEach((share, i) => {
        const part = split[i]!;
        if (part === 0) return;
        if (share.counts) share.counts.add(bucket, part);
        else this.refused += part;
      });
    }
  }

  /** A pattern mined elsewhere (another chunk) on the same step grid. */
  addPattern(p: MinedPattern): void {
    this.lines += p.samples.reduce((sum, [, n]) => sum + n, 0);
    this.count(p.format, p.level, p.tokens, p.spacesAfter, p.samples, true);
  }

  private count(
    format: LineFormat,
    level: string,
    tokens: readonly string[],
    spacesAfter: readonly number[],
    samples: readonly (readonly [number, number])[],
    whole = false,
  ): void {
    const group = this.group(format, level);
    const cluster = group.drain.add(tokens, spacesAfter);
    if (!cluster) {
      for (const [, n] of samples) this.refused += n;
      return;
    }
    let counts = group.counts.get(cluster.id);
    if (!counts) group.counts.set(cluster.id, (counts = this.tally()));
    if (whole) counts.addList(samples);
    else for (const [bucket, n] of samples) counts.add(bucket, n);
  }

  private group(format: LineFormat, level: string): Group {
    const key = `${format}\u0000${level}`;
    let g = this.groups.get(key);
    if (!g) {
      g = { format, level, drain: new Drain(this.options), counts: new Map() };
      this.groups.set(key, g);
    }
    return g;
  }

  get figures(): MinerFigures {
    let clusters = 0;
    for (const g of this.groups.values()) clusters += g.drain.clusters.length;
    return { lines: this.lines, refused: this.refused, clusters };
  }

  /** Every cluster with its counts, most lines first, then by pattern text (a stable order). */
  result(): MinedPattern[] {
    const out: { p: MinedPattern; total: number; text: string }[] = [];
    for (const g of this.groups.values()) {
      for (const c of g.drain.clusters) out.push(entry(g, c));
    }
    out.sort((a, b) => b.total - a.total || compare(a.text, b.text) || compare(a.p.level, b.p.level));
    return out.map((e) => e.p);
  }
}

function entry(g: Group, c: Cluster): { p: MinedPattern; total: number; text: string } {
  const samples = g.counts.get(c.id)?.samples() ?? [];
  const p: MinedPattern = {
    format: g.format,
    level: g.level,
    tokens: [...c.tokens],
    spacesAfter: c.spacesAfter,
    samples,
  };
  return { p, total: samples.reduce((sum, [, n]) => sum + n, 0), text: patternText(p) };
}

export function patternText(p: Pick<MinedPattern, "format" | "tokens" | "spacesAfter">): string {
  return joinTokens(p.format, p.tokens, p.spacesAfter);
}

/**
 * `n` split in proportion to `weights` in whole numbers that add up to `n`: the largest remainders
 * get the leftover units, earlier shares first on ties (deterministic).
 */
export function apportion(n: number, weights: readonly number[]): number[] {
  if (weights.length === 1) return [n];
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (n * w) / sum);
  const out = exact.map(Math.floor);
  let left = n - out.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    out[i]!++;
    left--;
  }
  return out;
}

function ascending(samples: readonly (readonly [number, number])[]): boolean {
  for (let i = 1; i < samples.length; i++) if (samples[i]![0] <= samples[i - 1]![0]) return false;
  return true;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function mod(a: number, m: number): number {
  const r = a % m;
  return r < 0 ? r + m : r;
}
