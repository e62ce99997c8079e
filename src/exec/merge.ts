/**
 * Interleaves several async sources with at most `maxConcurrency` running, yielding items as they
 * arrive. Stopping the consumer early (or a failure in any source) aborts every running source.
 */
export async function* mergeConcurrent<T>(
  sources: readonly ((signal: AbortSignal) => AsyncIterable<T>)[],
  maxConcurrency: number,
): AsyncGenerator<T> {
  const controller = new AbortController();
  const iterators: (AsyncIterator<T> | undefined)[] = [];
  // Results in the order they arrive, and the loop's wake-up when it waits for one. Not
  // Promise.race over the pending pulls: each race leaves a reaction on every pull still pending,
  // and that reaction holds the race's result (a whole batch) until the pull settles, so a source
  // that keeps the others waiting (an origin window not yet answering) pinned every batch yielded
  // meanwhile.
  const arrived: ({ i: number; r: IteratorResult<T> } | { failure: unknown })[] = [];
  let wake: (() => void) | undefined;
  const settle = (entry: (typeof arrived)[number]) => {
    arrived.push(entry);
    wake?.();
  };
  let running = 0;
  let next = 0;
  const start = () => {
    const i = next++;
    const it = sources[i]!(controller.signal)[Symbol.asyncIterator]();
    iterators[i] = it;
    running++;
    pull(i);
  };
  const pull = (i: number) => {
    iterators[i]!.next().then(
      (r) => settle({ i, r }),
      (failure: unknown) => settle({ failure }),
    );
  };
  try {
    while (next < sources.length && running < maxConcurrency) start();
    while (running > 0) {
      if (arrived.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      const entry = arrived.shift()!;
      if ("failure" in entry) throw entry.failure;
      const { i, r } = entry;
      if (r.done) {
        running--;
        iterators[i] = undefined;
        if (next < sources.length) start();
        continue;
      }
      pull(i);
      yield r.value;
    }
  } finally {
    controller.abort();
    await Promise.allSettled(iterators.filter((it) => it !== undefined).map((it) => it!.return?.()));
  }
}

/** `fn` over `items` with at most `limit` calls in flight (Workers allow six open connections). */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
