/**
 * The heap's peaks while a capped-Node run works, above the idle heap it started from: `heapUsed`
 * sampled every `everyMs` (garbage not yet collected included) and, with `liveEveryMs`, after a
 * full collection every `liveEveryMs` (what is still reachable; needs --expose-gc, as
 * bench/lib/capped-node.mjs starts Node). Figures in MB, one decimal.
 */
declare const process: { memoryUsage(): { heapUsed: number } };
declare const gc: (() => void) | undefined;

const MB = 1024 * 1024;

export interface HeapPeaks {
  baselineMB: number;
  peakHeapGrowthMB: number;
  /** Absent when the live heap was not sampled. */
  peakLiveGrowthMB?: number;
}

/** Starts sampling; the function it returns stops and reports. */
export function watchHeap(everyMs: number, liveEveryMs?: number): () => HeapPeaks {
  gc?.();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  let peakLive = baseline;
  const sampler = setInterval(() => {
    const used = process.memoryUsage().heapUsed;
    if (used > peak) peak = used;
  }, everyMs);
  const liveSampler =
    liveEveryMs === undefined
      ? undefined
      : setInterval(() => {
          gc?.();
          const live = process.memoryUsage().heapUsed;
          if (live > peakLive) peakLive = live;
        }, liveEveryMs);
  return () => {
    clearInterval(sampler);
    if (liveSampler !== undefined) clearInterval(liveSampler);
    return {
      baselineMB: megabytes(baseline),
      peakHeapGrowthMB: megabytes(peak - baseline),
      ...(liveSampler === undefined ? {} : { peakLiveGrowthMB: megabytes(peakLive - baseline) }),
    };
  };
}

function megabytes(bytes: number): number {
  return +(bytes / MB).toFixed(1);
}
