/**
 * Every VictoriaLogs endpoint the Worker calls is one that vlselect, the query component of a
 * VictoriaLogs cluster, serves as well as single-node VictoriaLogs: so ORIGIN_URL may point at
 * either. The paths are extracted from src/ (literal paths, and names completed into a
 * `/select/logsql/${…}` template), so a new origin call fails here until it is checked and listed.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Query paths the vlselect handler routes (VictoriaLogs querying API, https://docs.victoriametrics.com/victorialogs/querying/;
 * cluster mode, where vlselect serves the same API: https://docs.victoriametrics.com/victorialogs/cluster/).
 */
const VLSELECT_PATHS = new Set(
  [
    "query",
    "hits",
    "facets",
    "field_names",
    "field_values",
    "stream_field_names",
    "stream_field_values",
    "streams",
    "stream_ids",
    "stats_query",
    "stats_query_range",
    "tail",
  ].map((e) => `/select/logsql/${e}`),
);

const src = resolve(dirname(fileURLToPath(import.meta.url)), "../../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "generated" ? [] : sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * Literal `/select/...` paths, and for each `/select/logsql/${x}` template the last list of quoted
 * names before it. Comments are left out: they may name endpoints the Worker does not call.
 */
function originPaths(source: string): { literal: string[]; templated: string[] } {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const literal = [...text.matchAll(/\/select\/[a-z_]+\/[a-z_]+(?=["'`])/g)].map((m) => m[0]);
  const templated: string[] = [];
  for (const m of text.matchAll(/\/select\/logsql\/\$\{/g)) {
    // The names a template is completed with are listed just before it: a union type of the
    // parameter, or the array mapped into the template.
    const before = text.slice(Math.max(0, (m.index ?? 0) - 400), m.index);
    const lists = [...before.matchAll(/"[a-z_]+"(?:\s*[|,]\s*"[a-z_]+")+/g)];
    const names = [...(lists.at(-1)?.[0] ?? "").matchAll(/"([a-z_]+)"/g)].map((n) => `/select/logsql/${n[1]}`);
    if (names.length === 0) throw new Error(`cannot tell which paths complete a /select/logsql/\${…} template`);
    templated.push(...names);
  }
  return { literal, templated };
}

describe("origin endpoints", () => {
  const found = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    const { literal, templated } = originPaths(readFileSync(file, "utf8"));
    for (const p of [...literal, ...templated]) found.set(p, [...(found.get(p) ?? []), file.slice(src.length + 1)]);
  }

  it("are exactly the ones the Worker is known to use (a new one must be checked against vlselect)", () => {
    expect([...found.keys()].sort()).toEqual(
      [
        "/select/logsql/field_names",
        "/select/logsql/field_values",
        "/select/logsql/hits",
        "/select/logsql/query",
        "/select/logsql/stats_query_range",
        "/select/logsql/stream_field_names",
        "/select/logsql/stream_field_values",
        "/select/logsql/streams",
      ].sort(),
    );
  });

  it("are all served by vlselect", () => {
    expect([...found.keys()].filter((p) => !VLSELECT_PATHS.has(p))).toEqual([]);
  });

  it("the extraction sees a path outside the list", () => {
    const { literal, templated } = originPaths(
      'post("/select/logsql/delete_everything"); kind: "query" | "tenant_ids"; get(`/select/logsql/${kind}`)',
    );
    expect(literal).toEqual(["/select/logsql/delete_everything"]);
    expect(templated).toEqual(["/select/logsql/query", "/select/logsql/tenant_ids"]);
    expect([...literal, ...templated].filter((p) => !VLSELECT_PATHS.has(p))).toEqual([
      "/select/logsql/delete_everything",
      "/select/logsql/tenant_ids",
    ]);
  });
});
