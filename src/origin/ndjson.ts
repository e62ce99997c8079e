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
 * Each line is a string of its own (see ownCopy): a line sliced from its decoded chunk would hold
 * the whole chunk, and so would everything kept from it (an entry's line, a label value), so a query
 * keeping a few thousand entries from as many chunks would hold more than an isolate's memory.
 */
export async function* readLineBatches(body: ReadableStream<Uint8Array> | ChunkReader): AsyncGenerator<string[]> {
  // A streaming TextDecoder on the body's own reader: a TextDecoderStream would add a second
  // stream (and its promise hops) per chunk. `stream: true` keeps a UTF-8 sequence cut between
  // chunks for the next call. The byte order mark is dropped here, at the body's start only, as a
  // default decoder would: Node 24's streaming decoder also drops a U+FEFF later in the text when
  // the chunk before it decoded to nothing (a cut multi-byte character), and tests run on Node.
  const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  const reader = "getReader" in body ? body.getReader() : body;
  let carry = "";
  let atStart = true;
  const decode = (bytes?: Uint8Array): string => {
    let text = bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode();
    if (atStart && text.length > 0) {
      atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    return text;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        carry += decode();
        break;
      }
      const chunk = decode(value);
      const batch: string[] = [];
      let nl = chunk.indexOf("\n");
      if (nl === -1) {
        carry += chunk;
        continue;
      }
      // Only the row cut by the previous chunk is joined: `carry + chunk` would copy the whole
      // chunk again the first time it is searched.
      const first = carry.length > 0 ? carry + chunk.slice(0, nl) : chunk.slice(0, nl);
      if (first.length > 0) batch.push(ownCopy(first));
      let from = nl + 1;
      nl = chunk.indexOf("\n", from);
      while (nl !== -1) {
        if (nl > from) batch.push(ownCopy(chunk.slice(from, nl)));
        from = nl + 1;
        nl = chunk.indexOf("\n", from);
      }
      carry = chunk.slice(from);
      if (batch.length > 0) yield batch;
    }
    if (carry.length > 0) yield [carry];
  } finally {
    // Releasing on early exit cancels the origin request instead of draining it.
    await reader.cancel().catch(() => {});
  }
}

/**
 * `s` as a string that holds no other: V8 gives a substring (of 13 characters or more) its parent's
 * characters, so a short slice keeps a whole chunk alive. A concatenation is flattened into a new
 * string by the slice that follows it, which then keeps only that copy. Costs about what decoding
 * the line did (a copy of it), measured in workerd as no more than the noise between runs of the
 * stream proof; decoding each line from its own bytes instead cost 0.2 µs a line there.
 */
function ownCopy(s: string): string {
  return (" " + s).slice(1);
}

/** One parsed object per line: for small answers, where per-row cost does not matter. */
export async function* readNdjson<T = unknown>(body: ReadableStream<Uint8Array> | ChunkReader): AsyncGenerator<T> {
  for await (const batch of readLineBatches(body)) {
    for (const line of batch) yield JSON.parse(line) as T;
  }
}
