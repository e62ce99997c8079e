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
  const inFlight = new Map<number, Promise<{ i: number; r: IteratorResult<T> }>>();
  let next = 0;
  const start = () => {
    const i = next++;
    const it = sources[i]!(controller.signal)[Symbol.asyncIterator]();
    iterators[i] = it;
    pull(i);
  };
  const pull = (i: number) => {
    inFlight.set(
      i,
      iterators[i]!.next().then((r) => ({ i, r })),
    );
  };
  try {
    while (next < sources.length && inFlight.size < maxConcurrency) start();
    while (inFlight.size > 0) {
      const { i, r } = await Promise.race(inFlight.values());
      if (r.done) {
        inFlight.delete(i);
        iterators[i] = undefined;
        if (next < sources.length) start();
        continue;
      }
      pull(i);
      yield r.value;
    }
  } finally {
    controller.abort();
    for (const p of inFlight.values()) p.catch(() => {});
    await Promise.allSettled(iterators.filter((it) => it !== undefined).map((it) => it!.return?.()));
  }
}
