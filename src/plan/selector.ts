/**
 * Stream selectors → LogsQL stream filters. Loki's selector labels are stream labels, and the Loki
 * push path of VictoriaLogs stores them as stream fields, so the stream index answers them. Both
 * sides use anchored RE2 for `=~`/`!~` and treat a missing label as empty, so the translation is exact.
 */
import type { Matcher } from "../logql/ast";
import { compileGoRegexp } from "../logql/go-regexp";
import { SERVICE_NAME, UNKNOWN_SERVICE } from "../engine/derived-fields";
import { fieldName, quote } from "./logsql";

/** A matcher as a term of a stream filter. */
const labelMatch = (m: Matcher) => `${quoteLabelName(m.name)}${m.op}${quote(m.value)}`;

/**
 * `serviceNameLabels`: when the Worker derives `service_name` (engine/derived-fields.ts), a
 * matcher on it must also select the streams whose derived name matches, so it becomes a filter
 * over the labels the name is derived from.
 */
export function streamFilter(matchers: readonly Matcher[], serviceNameLabels: readonly string[] = []): string {
  if (matchers.length === 0) return "*";
  const derived = serviceNameLabels.length > 0 ? matchers.filter((m) => m.name === SERVICE_NAME) : [];
  const stored = derived.length > 0 ? matchers.filter((m) => m.name !== SERVICE_NAME) : matchers;
  if (derived.length === 0) return `{${stored.map(labelMatch).join(",")}}`;
  // The stream index still narrows the streams (without it the origin opens every stream's blocks in
  // the window): those whose own label matches, and those without the label, whose name is derived;
  // the field filters then decide each row exactly.
  const own = [...stored, ...derived].map(labelMatch).join(",");
  const unnamed = [...stored.map(labelMatch), `${SERVICE_NAME}=""`].join(",");
  const parts = [`{${own} or ${unnamed}}`];
  for (const m of derived) parts.push(serviceNameFilter(m, serviceNameLabels));
  return parts.join(" ");
}

/**
 * Streams whose `service_name` matches `m`: their own label when they have one, else the first
 * non-empty label of the list, else `unknown_service`.
 */
function serviceNameFilter(m: Matcher, labels: readonly string[]): string {
  const branches: string[] = [];
  const absent: string[] = [];
  for (const name of labels) {
    branches.push([...absent, `${fieldName(name)}:*`, fieldMatch(name, m)].join(" "));
    absent.push(`${fieldName(name)}:=""`);
  }
  if (matchesValue(m, UNKNOWN_SERVICE)) branches.push(absent.join(" "));
  const own = `${fieldName(SERVICE_NAME)}:* ${fieldMatch(SERVICE_NAME, m)}`;
  const fallback =
    branches.length > 0 ? ` or (${fieldName(SERVICE_NAME)}:="" (${branches.map((b) => `(${b})`).join(" or ")}))` : "";
  return `((${own})${fallback})`;
}

/** A field filter with the matcher's meaning on a present, non-empty field. */
function fieldMatch(name: string, m: Matcher): string {
  const field = fieldName(name);
  switch (m.op) {
    case "=":
      return `${field}:=${quote(m.value)}`;
    case "!=":
      return `-${field}:=${quote(m.value)}`;
    case "=~":
      return `${field}:~${quote(`^(?s:${m.value})$`)}`;
    case "!~":
      return `-${field}:~${quote(`^(?s:${m.value})$`)}`;
  }
}

function matchesValue(m: Matcher, value: string): boolean {
  switch (m.op) {
    case "=":
      return m.value === value;
    case "!=":
      return m.value !== value;
    case "=~":
      return compileGoRegexp(`(?s:${m.value})`, { anchored: true }).test(value);
    case "!~":
      return !compileGoRegexp(`(?s:${m.value})`, { anchored: true }).test(value);
  }
}

function quoteLabelName(name: string): string {
  // Loki label names are [a-zA-Z_][a-zA-Z0-9_]*, already validated by the parser.
  return name;
}

/** The union of several selectors (series?match[]=a&match[]=b). */
export function anyOfStreams(
  selectors: readonly (readonly Matcher[])[],
  serviceNameLabels: readonly string[] = [],
): string {
  if (selectors.length === 1) return streamFilter(selectors[0]!, serviceNameLabels);
  return `(${selectors.map((s) => `(${streamFilter(s, serviceNameLabels)})`).join(" or ")})`;
}
