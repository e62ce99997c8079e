/**
 * Methods of time.Time reachable from a template (`{{ __timestamp__.Unix }}`,
 * `{{ (toDate "2006-01-02" .d).Year }}`). Only methods whose arguments a template can supply.
 */

import { FuncError, type CallEnv, type ParamType } from "./funcs";
import { floorDiv } from "../../core/go/intdiv";
import { type GoTime, LONG_MONTHS, UTC } from "./gotime";
import { goInt, goInt64, type GoValue } from "./values";

export interface TimeMethod {
  params: readonly ParamType[];
  variadic?: ParamType;
  fn: (t: GoTime, args: GoValue[], env: CallEnv) => GoValue;
}

const NS = 1_000_000_000n;

function field(f: (t: GoTime) => number): TimeMethod {
  return { params: [], fn: (t) => goInt(f(t)) };
}

export const TIME_METHODS: ReadonlyMap<string, TimeMethod> = new Map<string, TimeMethod>([
  ["Unix", { params: [], fn: (t) => goInt64(floorDiv(t.ns, NS)) }],
  ["UnixMilli", { params: [], fn: (t) => goInt64(floorDiv(t.ns, 1_000_000n)) }],
  ["UnixMicro", { params: [], fn: (t) => goInt64(floorDiv(t.ns, 1000n)) }],
  ["UnixNano", { params: [], fn: (t) => goInt64(t.ns) }],
  ["Year", field((t) => t.fields().year)],
  ["Day", field((t) => t.fields().day)],
  ["Hour", field((t) => t.fields().hour)],
  ["Minute", field((t) => t.fields().minute)],
  ["Second", field((t) => t.fields().second)],
  ["Nanosecond", field((t) => t.fields().nanosecond)],
  ["YearDay", field((t) => t.fields().yday)],
  ["Month", { params: [], fn: (t) => monthNameValue(t) }],
  ["Weekday", { params: [], fn: (t) => weekdayValue(t) }],
  ["Format", { params: ["string"], fn: (t, a) => t.format(a[0] as string) }],
  ["String", { params: [], fn: (t) => t.toString() }],
  ["UTC", { params: [], fn: (t) => t.in(UTC) }],
  ["Local", { params: [], fn: (t) => t.in(UTC) }],
  ["IsZero", { params: [], fn: (t) => t.isZero() }],
  ["Equal", { params: ["time"], fn: (t, a) => t.ns === (a[0] as GoTime).ns }],
  ["Before", { params: ["time"], fn: (t, a) => t.ns < (a[0] as GoTime).ns }],
  ["After", { params: ["time"], fn: (t, a) => t.ns > (a[0] as GoTime).ns }],
  [
    "Round",
    {
      params: ["value"],
      fn: () => {
        throw new FuncError("time.Duration arguments are not supported");
      },
    },
  ],
]);

/**
 * time.Month prints as "January" but compares as an int. Templates almost only print it, so the
 * name is returned; comparing it against a number reports a type mismatch instead of a result.
 */
function monthNameValue(t: GoTime): GoValue {
  return LONG_MONTHS[t.fields().month - 1]!;
}

function weekdayValue(t: GoTime): GoValue {
  return ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][t.fields().weekday]!;
}
