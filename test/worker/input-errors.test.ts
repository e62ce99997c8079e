/**
 * Input Loki answers with a 400 (or an empty success) must never be a 5xx here, inside workerd
 * against the real origin: expressions Loki cannot build into a pipeline, regexes past Go's limits
 * (wherever they appear, the origin included), times beyond what Loki parses, a broken multipart
 * body, and operator chains deep enough to overflow the stack. Each answer is Loki's status and
 * message.
 */
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config";
import { call, type CallOptions } from "./support/request";

const W = { start: "1769904000", end: "1769925600" };
const QR = "/loki/api/v1/query_range";

async function ask(
  path: string,
  params: Record<string, string>,
  over: Partial<Env> = {},
  init: Pick<CallOptions, "method" | "body" | "headers"> = {},
) {
  const res = await call(path, params, { ...init, env: { CACHE: "off", ...over }, settle: true });
  return { status: res.status, type: res.headers.get("Content-Type") ?? "", body: res.body };
}

/** Loki's 400: text/plain, the bare message. */
function expect400(a: { status: number; type: string; body: string }, message: string) {
  expect(a.status, a.body).toBe(400);
  expect(a.type).toContain("text/plain");
  expect(a.body).toBe(message);
}

describe("expressions Loki cannot build into a pipeline", () => {
  it("a json path Loki's parser refuses is its stage error, in log and metric queries", async () => {
    const message = `parse error : stage '| json a="b["' : cannot parse expression [b[]: syntax error: unexpected $end, expecting STRING or INDEX`;
    expect400(await ask(QR, { query: '{app="nginx"} | json a="b["', ...W }), message);
    expect400(
      await ask(QR, { query: 'count_over_time({app="nginx"} | json a="b[" [5m])', ...W, step: "300" }),
      message,
    );
    expect400(await ask("/loki/api/v1/detected_fields", { query: '{app="nginx"} | json a="b["', ...W }), message);
    expect400(
      await ask(QR, { query: '{app="nginx"} | logfmt a="b c"', ...W }),
      `parse error : stage '| logfmt a="b c"' : cannot parse expression [b c]: syntax error: unexpected KEY`,
    );
  });

  it("an ip() filter with a bad pattern or operator is Loki's stage error", async () => {
    expect400(
      await ask(QR, { query: '{app="nginx"} |= ip("999.1.1.1")', ...W }),
      `parse error : stage '|= ip("999.1.1.1")' : ip: invalid pattern: "999.1.1.1"`,
    );
    expect400(
      await ask(QR, { query: '{app="nginx"} |~ ip("10.0.0.1")', ...W }),
      `parse error : stage '|~ ip("10.0.0.1")' : ip: invalid operation`,
    );
    expect400(
      await ask(QR, { query: '{app="nginx"} | logfmt | addr = ip("10.0.0.0/33")', ...W }),
      `parse error : stage '| addr=ip("10.0.0.0/33")' : ip: invalid pattern: "10.0.0.0/33"`,
    );
    // Inside `or`, Loki keeps the bad filter and it matches nothing: the other side still selects.
    const kept = await ask(QR, {
      query: '{app="nginx"} | logfmt | addr = ip("999.1.1.1") or app="nginx"',
      ...W,
      limit: "3",
    });
    expect(kept.status, kept.body).toBe(200);
    const streams = JSON.parse(kept.body).data.result as { values: unknown[] }[];
    expect(streams.flatMap((s) => s.values)).toHaveLength(3);
  });
});

describe("regexes past Go's limits", () => {
  const repeat = "error parsing regexp: invalid repeat count: `{1000}`";

  it("are Loki's 400 in a selector, a label filter and a derived service_name matcher", async () => {
    expect400(await ask(QR, { query: '{app=~"(a{1000}){1000}"}', ...W }), `parse error : ${repeat}`);
    expect400(await ask(QR, { query: '{app="nginx"} | x=~"(a{1000}){1000}"', ...W }), `parse error : ${repeat}`);
    const derived = { DISCOVER_SERVICE_NAME: undefined } as Partial<Env>;
    expect400(await ask(QR, { query: '{service_name=~"(a{1000}){1000}"}', ...W }, derived), `parse error : ${repeat}`);
    expect400(
      await ask("/loki/api/v1/series", { "match[]": '{service_name=~"(a{1000}){1000}"}', ...W }, derived),
      `parse error : ${repeat}`,
    );
  });

  it("are refused before the origin sees them in a line filter (was a 502)", async () => {
    expect400(
      await ask(QR, { query: '{app="nginx"} |~ "(a{1000}){1000}"', ...W }),
      `parse error : stage '|~ "(a{1000}){1000}"' : ${repeat}`,
    );
    const big = `(${"a".repeat(3400)}){1000}`;
    expect400(
      await ask(QR, { query: `{app="nginx"} |~ "${big}"`, ...W }),
      `parse error : stage '|~ "${big}"' : error parsing regexp: expression too large: \`${big}\``,
    );
  });
});

describe("times beyond what Loki parses", () => {
  const huge = "1" + "0".repeat(25);

  it("start, end and time wider than int64 are strconv's 400 (was a RangeError 500)", async () => {
    expect400(
      await ask(QR, { query: '{app="nginx"}', start: huge, end: huge }),
      `could not parse 'end' parameter: strconv.ParseInt: parsing "${huge}": value out of range`,
    );
    expect400(
      await ask("/loki/api/v1/query", { query: 'count_over_time({app="nginx"}[1m])', time: huge }),
      `could not parse 'time' parameter: strconv.ParseInt: parsing "${huge}": value out of range`,
    );
    expect400(
      await ask("/loki/api/v1/labels", { start: W.start, end: huge }),
      `could not parse 'end' parameter: strconv.ParseInt: parsing "${huge}": value out of range`,
    );
  });

  it("a since past a Go duration is Prometheus' 400", async () => {
    for (const path of [QR, "/loki/api/v1/labels", "/loki/api/v1/index/stats"]) {
      expect400(
        await ask(path, { query: '{app="nginx"}', since: "9999999y" }),
        "could not parse 'since' parameter: duration out of range",
      );
    }
  });

  it("a step duration past int64 nanoseconds is Loki's 400 (it held the isolate for seconds)", async () => {
    expect400(
      await ask(QR, { query: 'rate({app="nginx"}[1s])', ...W, step: "106752d" }),
      `could not parse 'step' parameter: cannot parse "106752d" to a valid duration`,
    );
  });

  it("a float past int64 seconds is Go's far past: a range too long (was a 500)", async () => {
    expect400(
      await ask(QR, { query: '{app="nginx"}', start: "1.5e20", end: W.end }),
      "the query time range exceeds the limit (query length: 2562047h47m16.854775807s, limit: 30d1h)",
    );
  });

  it("labels, series and stats over centuries are Loki's max_query_length 400 (was a 502)", async () => {
    const centuries = { start: "-100000000000.5", end: "-1.5" };
    for (const path of ["/loki/api/v1/labels", "/loki/api/v1/series", "/loki/api/v1/index/stats"]) {
      const a = await ask(path, { ...centuries, query: '{app="nginx"}', "match[]": '{app="nginx"}' });
      // Three thousand years: Go's Time.Sub saturates.
      expect400(a, "the query time range exceeds the limit (query length: 2562047h47m16.854775807s, limit: 30d1h)");
    }
    expect400(
      await ask("/loki/api/v1/labels", { start: W.start, end: "9999-12-31T23:59:59Z" }),
      "the query time range exceeds the limit (query length: 2562047h47m16.854775807s, limit: 30d1h)",
    );
  });

  it("a short range before 1970 or in year 9999 finds nothing, as in Loki (was a 502)", async () => {
    const y9999 = { start: "9999-12-31T00:00:00Z", end: "9999-12-31T23:59:59Z" };
    expect(await ask("/loki/api/v1/labels", y9999)).toMatchObject({ status: 200, body: `{"status":"success"}` });
    expect(await ask("/loki/api/v1/label/app/values", y9999)).toMatchObject({
      status: 200,
      body: `{"status":"success"}`,
    });
    const series = await ask("/loki/api/v1/series", { ...y9999, "match[]": '{app="nginx"}' });
    expect(series).toMatchObject({ status: 200, body: `{"status":"success","data":[]}` });
    const logs = await ask(QR, { query: '{app="nginx"}', ...y9999 });
    expect(logs.status, logs.body).toBe(200);
    expect(JSON.parse(logs.body).data.result).toEqual([]);
    const before = await ask("/loki/api/v1/labels", { start: "-7200.5", end: "-3600.5" });
    expect(before).toMatchObject({ status: 200, body: `{"status":"success"}` });
  });
});

describe("request bodies and operator chains", () => {
  it("a broken multipart/form-data body is a 400 (was a 500)", async () => {
    const a = await ask(
      QR,
      {},
      {},
      { method: "POST", headers: { "Content-Type": "multipart/form-data; boundary=xx" }, body: "garbage" },
    );
    expect400(a, "could not parse the multipart/form-data body");
    // A well-formed one is still read.
    const form = new FormData();
    form.set("query", 'count_over_time({app="nginx"}[1h])');
    form.set("time", W.end);
    const ok = await ask("/loki/api/v1/query", {}, {}, { method: "POST", body: form });
    expect(ok.status, ok.body).toBe(200);
  });

  it("a 6,000-term binary chain is a 400 naming the limit (was a stack overflow 500)", async () => {
    const chain = (n: number) => Array(n).fill("vector(1)").join(" + ");
    expect400(
      await ask("/loki/api/v1/query", { query: chain(6000), time: W.end }),
      "parse error : query has more operators than the limit (1024)",
    );
    expect400(
      await ask(QR, { query: '{app="nginx"} | ' + Array(6000).fill('x="1"').join(", "), ...W }),
      "parse error : query has more operators than the limit (1024)",
    );
  });

  it("a chain at the limit is answered correctly, evaluation included", async () => {
    const at = await ask("/loki/api/v1/query", { query: Array(1025).fill("vector(1)").join(" + "), time: W.end });
    expect(at.status, at.body).toBe(200);
    expect(JSON.parse(at.body).data.result[0].value[1]).toBe("1025");
    const ranged = await ask(QR, {
      query: Array(50).fill('count_over_time({app="nginx"}[1h])').join(" + "),
      ...W,
      step: "3600",
    });
    expect(ranged.status, ranged.body).toBe(200);
    const single = await ask(QR, { query: 'count_over_time({app="nginx"}[1h])', ...W, step: "3600" });
    const value = (body: string) => Number(JSON.parse(body).data.result[0].values[0][1]);
    expect(value(ranged.body)).toBe(50 * value(single.body));
    const filters = await ask(QR, {
      query: '{app="nginx"} | logfmt | ' + Array(512).fill('app="nginx"').join(" or "),
      ...W,
      limit: "5",
    });
    expect(filters.status, filters.body).toBe(200);
    const streams = JSON.parse(filters.body).data.result as { values: unknown[] }[];
    expect(streams.flatMap((s) => s.values)).toHaveLength(5);
  });
});
