/** Label filters on parsed fields sent to the origin as `(exact) or (guard)`: which ones, and the text. */
import { describe, expect, it } from "vitest";
import { parseExpr } from "../../../src/logql/parser";
import type { LogSelectorExpr } from "../../../src/logql/ast";
import { parsedFilterPipes, planLogRows } from "../../../src/plan/parsed-filter";
import { planLogQuery } from "../../../src/plan/logquery";

const local = (q: string) => planLogQuery(parseExpr(q) as LogSelectorExpr, { prefilter: false }).local;
const pipes = (q: string) => parsedFilterPipes(local(q));
/** The `filter` pipe's exact part (before the guard). */
const exact = (q: string) => /\| filter \((.*?)\) or /.exec(pipes(q) ?? "")?.[1];

describe("parsedFilterPipes", () => {
  it("pushes numeric, string, duration and bytes filters after | json / | logfmt", () => {
    expect(exact('{app="a"} | json | status >= 500')).toBe("__v_status:>=500");
    expect(exact('{app="a"} | logfmt | level="error", latency > 2s')).toBe(
      '(__v_level:="error" __guard_nd__v_latency:>2000000000)',
    );
    expect(exact('{app="a"} | json | size <= 1KB or method=~"GET|PUT"')).toBe(
      '(__guard_nb__v_size:<=1000 or __v_method:~"^(?:GET|PUT)$")',
    );
    // The spellings compared are written after the values, and deleted with them.
    const p = pipes('{app="a"} | logfmt | latency > 2s')!;
    expect(p).toContain(
      '| format "<__v_latency>" as __guard_nd__v_latency | replace ("us", "µs") at __guard_nd__v_latency | replace ("μs", "µs") at __guard_nd__v_latency | filter (__guard_nd__v_latency:>2000000000) or ',
    );
    expect(p).toMatch(/\| delete [^|]*, __guard_nd__v_latency$/);
    expect(exact('{app="a"} |= "x" | json | status != 404')).toBe(
      "(__v_status:* -(__v_status:>=404 __v_status:<=404))",
    );
  });

  it("unpacks into prefixed fields, keeps the row's own value first, and deletes its own fields", () => {
    const p = pipes('{app="a"} | json | status >= 500')!;
    expect(p).toContain('| format "<status>" as __b_status');
    expect(p).toContain('| unpack_json from _msg fields (status) result_prefix "__p_"');
    expect(p).toMatch(/\| delete __b_status, __p_status, __v_status, __guard_len, __guard_m0, __guard_d0$/);
  });

  it("pushes the filters it can prove before the first stage that could change labels, passing over the rest", () => {
    expect(exact('{app="a"} | json | status >= 500 | line_format "x" | method="GET"')).toBe("__v_status:>=500");
    expect(exact('{app="a"} | json | method="GET" | status >= 1.0000001 | level="x"')).toBe(
      '__v_method:="GET" __v_level:="x"',
    );
    expect(exact('{app="a"} | json | __error__!="" | addr = ip("10.0.0.0/8") | status > 1')).toBe(
      "__v_addr:ipv4_range(10.0.0.0, 10.255.255.255) __v_status:>1",
    );
    expect(exact('{app="a"} | json | __error__="" | status > 1')).toBe("__v_status:>1");
    expect(exact('{app="a"} | json | drop method | method="GET"')).toBeUndefined();
    expect(exact('{app="a"} | json | method="GET" | drop method | status>500')).toBe(
      '__v_method:="GET" __v_status:>500',
    );
  });

  it("passes over decolorize before the parser, sending the lines it may change", () => {
    for (const q of [
      '{app="a"} | decolorize | json | status >= 500',
      '{app="a"} | decolorize |= "x" | logfmt | s="1"',
    ]) {
      const p = pipes(q)!;
      expect(p, q).toMatch(/\| filter \(.*?\) or _msg:~"\[\\\\x1b\\\\x\{9b\}\]" or /);
      expect(p.replace(String.raw` or _msg:~"[\\x1b\\x{9b}]"`, ""), q).toBe(
        pipes(q.replace(/\| decolorize (\|= "x" )?/, "")),
      );
    }
    expect(pipes('{app="a"} | json | x="1"')).not.toContain("x1b");
  });

  it("declines other parsers, parameters, strictness, and filters it cannot read exactly", () => {
    for (const q of [
      '{app="a"} | logfmt --strict | x="1"',
      '{app="a"} | logfmt --keep-empty | x="1"',
      '{app="a"} | unpack | x="1"',
      '{app="a"} | json',
      '{app="a"} | line_format "{{.x}}" | json | x="1"',
      '{app="a"} | json | x_extracted="1"',
      '{app="a"} | json | __error__!=""',
      '{app="a"} | json | addr = ip("2001:db8::/32")',
      // A typed filter left to the Worker may mark rows with an error, which ip() filters keep.
      '{app="a"} | json | status >= 1.0000001 | addr = ip("10.0.0.0/8")',
    ]) {
      expect(pipes(q), q).toBeUndefined();
    }
    // Fields the Worker derives are not the origin's to filter on.
    const rules = { serviceNameLabels: ["app"], discoverLogLevels: true };
    expect(parsedFilterPipes(local('{app="a"} | json | detected_level="error"'), rules)).toBeUndefined();
    expect(parsedFilterPipes(local('{app="a"} | json | service_name="x"'), rules)).toBeUndefined();
  });

  it("pushes the filters after Drilldown's parser chains all together, or none", () => {
    expect(exact('{app="a"} | json | logfmt | drop __error__, __error_details__ | status >= 500')).toBe(
      "__v_status:>=500",
    );
    expect(exact('{app="a"} | json x="y" | x="1"')).toBe('__v_x:="1"');
    // A typed filter on an expression label: the rows it errs on (no value) are sent as the guard's.
    expect(pipes('{app="a"} | json x="y" | x="1" | x > 2')).toContain('__pj_x:""');
    expect(pipes('{app="a"} | json | logfmt | drop __error__ | status >= 500')).toContain(
      'unpack_logfmt if (_msg:~"=") from _msg fields (status) result_prefix "__pl_"',
    );
    // An `ip()` filter (not pushed) makes the chain's filters stay in the Worker.
    expect(pipes('{app="a"} | json | logfmt | status >= 500 | addr = ip("10.0.0.0/8")')).toBeUndefined();
  });

  it("pushes ip() filters over IPv4 ranges, sending every value not one dotted quad and every line | json rejects", () => {
    expect(exact('{app="a"} | json | addr = ip("10.2.0.0/16")')).toBe("__v_addr:ipv4_range(10.2.0.0, 10.2.255.255)");
    expect(exact('{app="a"} | logfmt | addr != ip("10.0.0.1-10.0.0.9")')).toBe(
      "(__v_addr:* -__v_addr:ipv4_range(10.0.0.1, 10.0.0.9))",
    );
    expect(exact('{app="a"} | json | addr = ip("10.0.0.0/8") | status >= 1.0000001')).toBe(
      "__v_addr:ipv4_range(10.0.0.0, 10.255.255.255)",
    );
    const json = pipes('{app="a"} | json | addr = ip("192.168.1.7")')!;
    expect(json).toContain("__v_addr:ipv4_range(192.168.1.7, 192.168.1.7)");
    // Read wrapped: the unpack also tells the lines Loki's parser rejects.
    expect(json).toContain('| format "{\\"__lvw_ok\\":1,\\"__lvw\\":<_msg>}" as __lvw_w');
    expect(json).toContain(String.raw`or -(_msg:="{"* or _msg:~"^[ \\t\\n\\r]*\\{")`);
    expect(json).toContain("(__v_addr:* -__v_addr:~");
    expect(json).toMatch(/\| delete .*__lvw_w, __p___lvw_ok, "__p___lvw\.addr"/);
    // logfmt without --strict sets no error: read as before.
    expect(pipes('{app="a"} | logfmt | addr = ip("10.0.0.0/8")')).not.toContain("__lvw");
  });

  it("pushes label filters after | regexp and | pattern, leaving the row's own fields as they were", () => {
    const query = String.raw`{app="a"} | regexp "(?P<ip>\\S+) (?P<status>\\d+)" | status >= 500`;
    const regexp = pipes(query)!;
    expect(exact(query)).toBe("__v_status:>=500");
    // Every group the regexp writes is copied first and written back after.
    expect(regexp).toMatch(/^ \| format "<status>" as __b_status \| format "<ip>" as __b_ip \| extract_regexp /);
    expect(regexp).toMatch(
      /\| filter \(.*\) or .* \| format "<__b_ip>" as "ip" \| format "<__b_status>" as "status" \| delete __xp, __xa, __xz, __b_status, __b_ip, __v_status$/,
    );
    const pattern = '{app="a"} | pattern "<ip> - <_> <status> <_>" | status >= 500 | ip = ip("10.0.0.0/8")';
    expect(exact(pattern)).toBe("__v_status:>=500 __v_ip:ipv4_range(10.0.0.0, 10.255.255.255)");
    expect(pipes(pattern)).not.toContain('as "ip"');
  });

  it("is added to the plan for reading rows, after the filters, unless prefilters are off", () => {
    const expr = parseExpr('{app="a"} |= "x" | json | status >= 500') as LogSelectorExpr;
    expect(planLogQuery(expr).logsql).not.toContain("| filter");
    const plan = planLogRows(expr);
    expect(plan.logsql).toMatch(/^\{app="a"\} _msg:~"x" \| format /);
    expect(plan.logsql).toContain("| filter (__v_status:>=500) or ");
    expect(planLogRows(expr, { prefilter: false }).logsql).not.toContain("| filter");
    // The Worker still runs every stage.
    expect(plan.local.map((s) => s.kind)).toEqual(["JsonParser", "LabelFilter"]);
  });
});
