/** Which tenants a selector's `__tenant_id__` matchers choose, and what each tenant then runs. */
import { describe, expect, it } from "vitest";
import { selectTenants, tenantsFor } from "../../../src/plan/tenant-selector";
import type { Matcher } from "../../../src/logql/ast";

const tenants = ["a", "b", "team-c"].map((name) => ({ name }));
const app: Matcher = { name: "app", op: "=", value: "x" };
const names = (list: readonly { name: string }[]) => list.map((t) => t.name);

describe("selectTenants", () => {
  it("keeps every tenant and every matcher without a __tenant_id__ matcher", () => {
    const chosen = selectTenants(tenants, [app]);
    expect(names(chosen.tenants)).toEqual(["a", "b", "team-c"]);
    expect(chosen.matchers).toEqual([app]);
  });

  it("filters tenants by each operator, anchored like a stream matcher, and removes the matchers", () => {
    const pick = (op: Matcher["op"], value: string) =>
      names(selectTenants(tenants, [{ name: "__tenant_id__", op, value }, app]).tenants);
    expect(pick("=", "b")).toEqual(["b"]);
    expect(pick("!=", "b")).toEqual(["a", "team-c"]);
    expect(pick("=~", "a|team-.*")).toEqual(["a", "team-c"]);
    expect(pick("=~", "team")).toEqual([]);
    expect(pick("!~", "a|b")).toEqual(["team-c"]);
    expect(selectTenants(tenants, [{ name: "__tenant_id__", op: "=", value: "a" }, app]).matchers).toEqual([app]);
  });

  it("all __tenant_id__ matchers must hold", () => {
    const chosen = selectTenants(tenants, [
      { name: "__tenant_id__", op: "=~", value: "a|b" },
      { name: "__tenant_id__", op: "!=", value: "a" },
    ]);
    expect(names(chosen.tenants)).toEqual(["b"]);
    expect(chosen.matchers).toEqual([]);
  });

  it("reads original___tenant_id__ as the stored label of that name", () => {
    const chosen = selectTenants(tenants, [{ name: "original___tenant_id__", op: "=", value: "v" }]);
    expect(names(chosen.tenants)).toEqual(["a", "b", "team-c"]);
    expect(chosen.matchers).toEqual([{ name: "__tenant_id__", op: "=", value: "v" }]);
  });
});

describe("tenantsFor", () => {
  it("leaves a single-tenant request's matchers as sent", () => {
    const own: Matcher = { name: "__tenant_id__", op: "=", value: "zzz" };
    const one = tenantsFor(tenants.slice(0, 1), [own, app]);
    expect(names(one.tenants)).toEqual(["a"]);
    expect(one.matchers).toEqual([own, app]);
    expect(names(tenantsFor(tenants, [own, app]).tenants)).toEqual([]);
  });
});
