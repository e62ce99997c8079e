/**
 * What each small-JSON endpoint of the origin promises to answer, checked before an answer is used
 * or cached: a proxy's HTML page or a cut body that slipped through as a 200 must become an error
 * (and never a cache entry), not a wrong or empty Loki answer.
 */
import { eachNdjsonRow } from "./stats-table";

/** The parsed answer when `body` is what `path` promises, or why it is not. */
export type AnswerCheck = { ok: true; value: unknown } | { ok: false; problem: string };

export function checkAnswer(path: string, body: string): AnswerCheck {
  // A stats query's rows (the results cache asks for them as a small answer): NDJSON of objects.
  if (path.endsWith("/query")) return checkRows(body);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { ok: false, problem: "not JSON" };
  }
  const shape = SHAPES[path.slice(path.lastIndexOf("/") + 1)];
  if (shape && !shape(value)) return { ok: false, problem: "not the expected JSON shape" };
  return { ok: true, value };
}

function checkRows(body: string): AnswerCheck {
  const rows: unknown[] = [];
  for (const line of body.split("\n")) {
    if (line === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      return { ok: false, problem: "a row that is not JSON" };
    }
    if (!isObject(row)) return { ok: false, problem: "a row that is not a JSON object" };
    rows.push(row);
  }
  return { ok: true, value: rows };
}

export function isValidAnswer(path: string, body: string): boolean {
  // Rows are checked one at a time and let go: a large bucketed answer is never held as objects.
  if (path.endsWith("/query")) {
    try {
      eachNdjsonRow(body, () => {});
      return true;
    } catch {
      return false;
    }
  }
  return checkAnswer(path, body).ok;
}

type Shape = (v: unknown) => boolean;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const arrayOf =
  (item: Shape): Shape =>
  (v) =>
    Array.isArray(v) && v.every(item);

const valuesAnswer: Shape = (v) =>
  isObject(v) && arrayOf((e) => isObject(e) && typeof e.value === "string" && typeof e.hits === "number")(v.values);

const hitsAnswer: Shape = (v) =>
  isObject(v) &&
  arrayOf(
    (h) =>
      isObject(h) &&
      isObject(h.fields) &&
      Array.isArray(h.timestamps) &&
      Array.isArray(h.values) &&
      typeof h.total === "number",
  )(v.hits);

const promAnswer: Shape = (v) =>
  isObject(v) &&
  v.status === "success" &&
  isObject(v.data) &&
  (v.data.resultType === "matrix" || v.data.resultType === "vector") &&
  arrayOf((s) => isObject(s) && isObject(s.metric) && (Array.isArray(s.values) || Array.isArray(s.value)))(
    v.data.result,
  );

/** By the last path segment of `/select/logsql/<endpoint>`. */
const SHAPES: Record<string, Shape> = {
  field_names: valuesAnswer,
  field_values: valuesAnswer,
  stream_field_names: valuesAnswer,
  stream_field_values: valuesAnswer,
  streams: valuesAnswer,
  hits: hitsAnswer,
  stats_query_range: promAnswer,
};
