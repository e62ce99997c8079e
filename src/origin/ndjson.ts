/**
 * Newline-delimited JSON from a byte stream. Only the current partial line is buffered, so memory
 * stays bounded by the longest row plus one network chunk, whatever the response size.
 */

/**
 * What the readers below read: a stream's reader, or anything that reads and cancels like one. A
 * chunk may be a view of a buffer the next read reuses (see bodyReader): it is used before then.
 */
export interface ChunkReader {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(reason?: unknown): Promise<void>;
}

/**
 * The complete lines of each network chunk as one batch (empty lines dropped): consumers loop over
 * a batch synchronously instead of awaiting once per row, which costs more than decoding the row.
 *
 * Each line is a string of its own: a line sliced from its decoded chunk would hold the whole chunk,
 * and so would everything kept from it (an entry's line, a label value), so a query keeping a few
 * thousand entries from as many chunks would hold more than an isolate's memory.
 */
export async function* readLineBatches(body: ReadableStream<Uint8Array> | ChunkReader): AsyncGenerator<string[]> {
  // Lines are cut on bytes, at the newline (a byte no multi-byte UTF-8 sequence holds), and only
  // whole lines are decoded: each decode call then starts and ends between characters, so it needs
  // no state across chunks and gives what one decoder over the whole body would. (A streaming
  // decoder gives the same text, but Node's leaves its fast path for good at the first
  // `stream: true` and decodes several times slower.) The byte order mark is dropped at the body's
  // start only, as a default decoder would.
  const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  const reader = "getReader" in body ? body.getReader() : body;
  // The bytes of the line the last chunk cut, copied: a chunk may be a view of a reused buffer.
  let carry: Uint8Array | undefined;
  // Whether the next bytes decoded are the body's first.
  let atStart = true;
  const decode = (bytes: Uint8Array): string => {
    const text = decoder.decode(bytes);
    const bom = atStart && text.charCodeAt(0) === 0xfeff;
    atStart = false;
    return bom ? text.slice(1) : text;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const lastNl = value.lastIndexOf(NEWLINE);
      if (lastNl === -1) {
        carry = carry ? joined(carry, value) : value.slice();
        continue;
      }
      const batch: string[] = [];
      let from = 0;
      if (carry) {
        // Only the line the previous chunk cut is joined, not the whole chunk.
        const firstNl = value.indexOf(NEWLINE);
        const first = decode(joined(carry, value.subarray(0, firstNl)));
        carry = undefined;
        if (first.length > 0) batch.push(first);
        from = firstNl + 1;
      }
      // Each line decoded from its own bytes: a string of its own (nothing sliced from a larger
      // one stays alive through it), and one byte a character unless the line itself holds a
      // character past Latin-1 (a line sliced from a decoded chunk takes two bytes a character as
      // soon as anything in the chunk needs them).
      while (from <= lastNl) {
        const nl = value.indexOf(NEWLINE, from);
        if (nl > from) {
          const line = decode(value.subarray(from, nl));
          // (A line of only the byte order mark decodes to nothing.)
          if (line.length > 0) batch.push(line);
        }
        atStart = false;
        from = nl + 1;
      }
      if (lastNl + 1 < value.length) carry = value.slice(lastNl + 1);
      atStart = false;
      if (batch.length > 0) yield batch;
    }
    if (carry) {
      const last = decode(carry);
      if (last.length > 0) yield [last];
    }
  } finally {
    // Releasing on early exit cancels the origin request instead of draining it.
    await reader.cancel().catch(() => {});
  }
}

const NEWLINE = 10;

/** `a` then `b`, in a new array. */
function joined(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** One parsed object per line: for small answers, where per-row cost does not matter. */
export async function* readNdjson<T = unknown>(body: ReadableStream<Uint8Array> | ChunkReader): AsyncGenerator<T> {
  for await (const batch of readLineBatches(body)) {
    for (const line of batch) yield JSON.parse(line) as T;
  }
}
