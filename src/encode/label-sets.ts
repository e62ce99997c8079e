/**
 * The label set Loki gives a log entry, as the JSON of a stream object's `stream`: the stream's
 * labels merged with the entry's own (metadata, then parsed; later wins), names sorted. Built once
 * per entry on the hot path of every log answer, so the stream's part is rendered once and each
 * entry adds only its own labels' values (see LabelsLayout); and grouping entries by label set
 * compares numbers before it compares text.
 */
import type { Labels, LogEntry } from "../engine/types";
import { jsonString, sortNames } from "./labels";

/** A stream's label set, rendered once: its sorted names, their values and `"name":"value"` members. */
export interface RenderedLabels {
  names: string[];
  values: string[];
  members: string[];
  json: string;
  /** labelSetHash of these labels alone. */
  hash: number;
  /** Where the last entry's own labels went among these (see LabelsLayout). */
  layout?: LabelsLayout;
}

/**
 * Where the values of an entry's own labels (metadata and parsed, disjoint) go in the merged label
 * set of one stream: the text between them is the same for every entry with those names, so an
 * entry costs its values alone. Entries of a stream mostly carry the same names in the same order
 * (VictoriaLogs sends a row's fields in one order, a parser finds the same keys), so each stream
 * keeps the layout it last needed.
 */
interface LabelsLayout {
  /** The entry's own label names, metadata first, each in the order its object holds them. */
  names: string[];
  /** For each value slot in label order, the index of its name in `names`. */
  slots: number[];
  /** The text around the slots: `text[0]`, value of slot 0, `text[1]`, …, `text[slots.length]`. */
  text: string[];
  /** The stream's hash without the labels these names override. */
  streamHash: number;
}

/** An entry's own labels, placed among its stream's. */
export interface OwnLabels {
  layout: LabelsLayout;
  /** Values in the order of `layout.names`. */
  values: string[];
}

/**
 * Rendered label sets by object, for the isolate's life: the row scanner gives every row of a
 * stream, in every request, the same label object (src/origin/rows.ts), so a dashboard's refreshes
 * render each stream once instead of once per answer. Label objects are never changed once an
 * entry holds them; a WeakMap lets the rendering go with its object.
 */
const renderedByObject = new WeakMap<Labels, RenderedLabels>();

/** `labels` rendered (see renderLabels), once per label object. */
export function renderedLabels(labels: Labels): RenderedLabels {
  let rendered = renderedByObject.get(labels);
  if (rendered === undefined) renderedByObject.set(labels, (rendered = renderLabels(labels)));
  return rendered;
}

function renderLabels(labels: Labels): RenderedLabels {
  const names = Object.keys(labels).sort();
  const values = names.map((n) => labels[n]!);
  const members = names.map((n, i) => `${jsonString(n)}:${jsonString(values[i]!)}`);
  let hash = 0;
  for (let i = 0; i < names.length; i++) hash = (hash + labelHash(names[i]!, values[i]!)) | 0;
  return { names, values, members, json: `{${members.join(",")}}`, hash };
}

/** The entry's own labels (undefined when it has none: its label set is the stream's). */
export function ownLabels(base: RenderedLabels, metadata: Labels, parsed: Labels): OwnLabels | undefined {
  let names: string[];
  let values: string[];
  if (isEmpty(parsed)) {
    if (isEmpty(metadata)) return undefined;
    names = Object.keys(metadata);
    values = Object.values(metadata);
  } else {
    names = [];
    values = [];
    for (const k in metadata) {
      if (Object.hasOwn(parsed, k)) continue;
      names.push(k);
      values.push(metadata[k]!);
    }
    for (const k in parsed) {
      names.push(k);
      values.push(parsed[k]!);
    }
  }
  let layout = base.layout;
  if (layout === undefined || !sameNames(layout, names)) base.layout = layout = labelsLayout(base, names);
  return { layout, values };
}

/** The merged label set as sorted JSON. */
export function labelSetJson(base: RenderedLabels, own: OwnLabels | undefined): string {
  if (own === undefined) return base.json;
  const { slots, text } = own.layout;
  const values = own.values;
  let out = text[0]!;
  for (let k = 0; k < slots.length; k++) out += jsonString(values[slots[k]!]!) + text[k + 1]!;
  return out;
}

/**
 * A hash of the merged label set that depends on the labels alone, not on which of them came from
 * the stream: the sum of one hash per label. Equal label sets have equal hashes, whatever their
 * streams and own labels were.
 */
function labelSetHash(base: RenderedLabels, own: OwnLabels | undefined): number {
  if (own === undefined) return base.hash;
  const { names } = own.layout;
  let hash = own.layout.streamHash;
  for (let i = 0; i < names.length; i++) hash = (hash + labelHash(names[i]!, own.values[i]!)) | 0;
  return hash;
}

/** FNV-1a over name, a separator no label holds unescaped here, and value; then mixed (murmur3's finalizer). */
export function labelHash(name: string, value: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  h = Math.imul(h ^ 0xffff, 16777619);
  for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), 16777619);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The entries of one label set, and that label set as the JSON of a stream object's `stream`. */
export interface LabelSetGroup {
  key: string;
  entries: LogEntry[];
}

/**
 * Groups entries by label set (first-seen order of label sets, direction order within each),
 * giving Loki's one stream object per label set. Entries are matched by the hash of their label
 * set first, and by its text only when hashes meet: hashing each entry's whole label text cost more
 * than building it.
 */
export function groupByLabelSet(entries: readonly LogEntry[], categorize: boolean): LabelSetGroup[] {
  const groups: LabelSetGroup[] = [];
  const byHash = new Map<number, LabelSetGroup>();
  /** Label sets whose hash an earlier, different label set holds. */
  let byKey: Map<string, LabelSetGroup> | undefined;
  for (const e of entries) {
    // Entries of one stream share their stream object: each stream's labels are rendered once.
    const base = renderedLabels(e.stream);
    const own = categorize ? undefined : ownLabels(base, e.metadata, e.parsed);
    const key = labelSetJson(base, own);
    const hash = labelSetHash(base, own);
    let g = byHash.get(hash);
    if (g === undefined) byHash.set(hash, (g = { key, entries: [] }));
    else if (g.key !== key) {
      byKey ??= new Map();
      const other = byKey.get(key);
      if (other === undefined) byKey.set(key, (g = { key, entries: [] }));
      else g = other;
    }
    if (g.entries.length === 0) groups.push(g);
    g.entries.push(e);
  }
  return groups;
}

function labelsLayout(base: RenderedLabels, names: string[]): LabelsLayout {
  const sorted = [...names];
  sortNames(sorted);
  const slots: number[] = [];
  const text: string[] = [];
  let streamHash = base.hash;
  let piece = "{";
  let first = true;
  let i = 0;
  let j = 0;
  while (i < base.names.length || j < sorted.length) {
    if (!first) piece += ",";
    first = false;
    const a = base.names[i];
    const b = sorted[j];
    if (b === undefined || (a !== undefined && a < b)) {
      piece += base.members[i++];
    } else {
      if (a === b) {
        // Overridden by the entry's own label.
        streamHash = (streamHash - labelHash(a, base.values[i]!)) | 0;
        i++;
      }
      text.push(`${piece}${jsonString(b)}:`);
      slots.push(names.indexOf(b));
      piece = "";
      j++;
    }
  }
  text.push(`${piece}}`);
  return { names, slots, text, streamHash };
}

/** Whether `keys` (an object's own names, in order) are the layout's names. */
function sameNames(layout: LabelsLayout, keys: string[]): boolean {
  const names = layout.names;
  if (names.length !== keys.length) return false;
  for (let k = 0; k < keys.length; k++) if (names[k] !== keys[k]) return false;
  return true;
}

export function isEmpty(l: Labels | undefined): boolean {
  for (const _ in l) return false;
  return true;
}
