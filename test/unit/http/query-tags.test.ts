import { describe, expect, it } from "vitest";
import { isLogsDrilldownRequest, queryTags } from "../../../src/http/query-tags";

describe("X-Query-Tags", () => {
  it("splits key=value pairs at commas, keys in lower case, as Loki's TagsToKeyValues", () => {
    expect(queryTags("Source=grafana-lokiexplore-app,Feature=patterns")).toEqual([
      ["source", "grafana-lokiexplore-app"],
      ["feature", "patterns"],
    ]);
    // Empty parts are dropped (Go's FieldsFunc); a token not of two parts is ignored.
    expect(queryTags("Source==a,,b,c=d=e,=f")).toEqual([["source", "a"]]);
    // Characters Loki does not keep become `_`.
    expect(queryTags("Source=a/b;c,User=x@y.z")).toEqual([
      ["source", "a_b_c"],
      ["user", "x@y.z"],
    ]);
    expect(queryTags(null)).toEqual([]);
  });

  it.each([
    ["Source=grafana-lokiexplore-app", true],
    ["Source=GRAFANA-LOKIEXPLORE-APP,Feature=patterns", true],
    ["SOURCE=grafana-lokiexplore-app", true],
    ["Feature=x,Source=grafana-lokiexplore-app", true],
    ["Source=grafana,Feature=explore", false],
    ["Feature=patterns,User=test", false],
    ["", false],
    ["invalid_tags_format", false],
    ["Feature=x, Source=grafana-lokiexplore-app", false],
    ["Source=grafana-lokiexplore-app ", false],
  ])("%j is a Logs Drilldown request: %s", (header, want) => {
    expect(isLogsDrilldownRequest(header)).toBe(want);
  });
});
