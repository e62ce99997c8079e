/**
 * Loki's per-entry label model. Every label belongs to one category — stream, structured metadata
 * or parsed — and the categories shadow each other (parsed > metadata > stream). Parsers never
 * shadow a stream label or structured metadata: Loki extracts a key named like one as
 * `…_extracted` (parsedName). The error label pair lives outside the maps and is reported as
 * parsed. One builder is reused for every row of a query, so processing allocates only for labels
 * a stage actually adds.
 */
import type { Labels, LogEntry } from "../types";

export const ERROR_LABEL = "__error__";
export const ERROR_DETAILS_LABEL = "__error_details__";
export const DUPLICATE_SUFFIX = "_extracted";

export type Category = 0 | 1 | 2;
export const Category = { Stream: 0, Metadata: 1, Parsed: 2 } as const;

export class LabelsBuilder {
  base: Labels = {};
  /** Labels set by stages, per category (index = Category). */
  readonly add: [Map<string, string>, Map<string, string>, Map<string, string>] = [new Map(), new Map(), new Map()];
  readonly deleted = new Set<string>();
  /**
   * Names some stage set as parsed labels on this row, kept by a `drop` too (Loki's record of
   * extracted labels). Within one line the first parsed value of a label wins: every parser skips
   * a name recorded here, so a later parser, or a key the line repeats, does not overwrite it.
   */
  readonly extracted = new Set<string>();
  err = "";
  errDetails = "";

  reset(base: Labels): void {
    this.base = base;
    this.add[0].clear();
    this.add[1].clear();
    this.add[2].clear();
    this.deleted.clear();
    this.extracted.clear();
    this.err = "";
    this.errDetails = "";
  }

  baseHas(name: string): boolean {
    return Object.hasOwn(this.base, name);
  }

  /**
   * The name a parser gives a key it extracts: Loki keeps a stream label's and a structured
   * metadata field's value and gives the parsed one the `_extracted` suffix.
   */
  parsedName(name: string): string {
    return this.heldByRow(name) ? name + DUPLICATE_SUFFIX : name;
  }

  /** Whether a label of this name is a stream label or structured metadata (a parser does not take it). */
  heldByRow(name: string): boolean {
    return this.baseHas(name) || this.add[Category.Metadata].has(name);
  }

  /** Structured metadata enters with the stream-collision suffix; an `__error__` field becomes the error. */
  addMetadata(metadata: Labels): void {
    for (const key in metadata) {
      const value = metadata[key]!;
      const name = this.baseHas(key) ? key + DUPLICATE_SUFFIX : key;
      if (name === ERROR_LABEL) this.err = value;
      else if (name === ERROR_DETAILS_LABEL) this.errDetails = value;
      else this.set(Category.Metadata, name, value);
    }
  }

  set(category: Category, name: string, value: string): void {
    const [stream, meta, parsed] = this.add;
    if (category === Category.Parsed) {
      meta.delete(name);
      stream.delete(name);
      this.extracted.add(name);
    } else if (category === Category.Metadata) {
      stream.delete(name);
      if (parsed.has(name)) return;
    } else if (meta.has(name) || parsed.has(name)) {
      return;
    }
    const target = this.add[category];
    // Loki re-appends an overridden label; order is irrelevant to us, only presence and value.
    target.set(name, value);
  }

  del(name: string): void {
    this.add[0].delete(name);
    this.add[1].delete(name);
    this.add[2].delete(name);
    this.deleted.add(name);
  }

  /** Value and category of a label, or undefined. Stream labels with empty values do not exist. */
  getWithCategory(name: string): [string, Category] | undefined {
    for (let c = 0; c < 3; c++) {
      const v = this.add[c as Category].get(name);
      if (v !== undefined) return [v, c as Category];
    }
    if (this.deleted.has(name)) return undefined;
    const v = this.base[name];
    if (v !== undefined && v !== "" && Object.hasOwn(this.base, name)) {
      return [v, Category.Stream];
    }
    return undefined;
  }

  get(name: string): string | undefined {
    for (let c = 0; c < 3; c++) {
      const v = this.add[c as Category].get(name);
      if (v !== undefined) return v;
    }
    if (this.deleted.has(name)) return undefined;
    const v = this.base[name];
    if (v !== undefined && v !== "" && Object.hasOwn(this.base, name)) return v;
    return undefined;
  }

  hasErr(): boolean {
    return this.err !== "";
  }

  private changed(): boolean {
    return this.deleted.size > 0 || this.add[0].size > 0 || this.add[1].size > 0 || this.add[2].size > 0;
  }

  /**
   * The surviving labels split by category, as Loki reports them. A label a stage set in the
   * stream category that is not a stream label of the row is not reported — Loki's builder only
   * walks the row's own stream labels for that category.
   */
  toCategorized(): { stream: Labels; metadata: Labels; parsed: Labels } {
    const parsed: Labels = {};
    if (!this.changed()) {
      if (this.err !== "") parsed[ERROR_LABEL] = this.err;
      if (this.errDetails !== "") parsed[ERROR_DETAILS_LABEL] = this.errDetails;
      return { stream: this.base, metadata: {}, parsed };
    }
    const [streamAdd, metaAdd, parsedAdd] = this.add;
    let stream: Labels = {};
    // When no stage touched a stream label, hand back the row's own object: encoders cache what
    // they render per stream object, and most rows with metadata change nothing else.
    let unchanged = true;
    for (const name in this.base) {
      if (this.deleted.has(name) || metaAdd.has(name) || parsedAdd.has(name)) {
        unchanged = false;
        continue;
      }
      const override = streamAdd.get(name);
      if (override !== undefined && override !== this.base[name]) unchanged = false;
      stream[name] = override !== undefined ? override : this.base[name]!;
    }
    const hasErrorLabels =
      (this.err !== "" && ERROR_LABEL in stream) || (this.errDetails !== "" && ERROR_DETAILS_LABEL in stream);
    if (unchanged && !hasErrorLabels) stream = this.base;
    const metadata: Labels = {};
    for (const [name, value] of metaAdd) {
      if (!parsedAdd.has(name)) metadata[name] = value;
    }
    for (const [name, value] of parsedAdd) parsed[name] = value;
    // The error labels override any same-named label; they are always reported as parsed.
    if (this.err !== "") {
      delete stream[ERROR_LABEL];
      delete metadata[ERROR_LABEL];
      parsed[ERROR_LABEL] = this.err;
    }
    if (this.errDetails !== "") {
      delete stream[ERROR_DETAILS_LABEL];
      delete metadata[ERROR_DETAILS_LABEL];
      parsed[ERROR_DETAILS_LABEL] = this.errDetails;
    }
    return { stream, metadata, parsed };
  }

  /** Every label as one map (what templates see): stream, then metadata, parsed and errors. */
  toMap(): Labels {
    const { stream, metadata, parsed } = this.toCategorized();
    return Object.assign({}, stream, metadata, parsed);
  }

  toEntry(ts: bigint, line: string, rawLine?: string): LogEntry {
    const c = this.toCategorized();
    return { ts, line, rawLine, stream: c.stream, metadata: c.metadata, parsed: c.parsed };
  }
}
