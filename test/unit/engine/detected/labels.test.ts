import { describe, expect, it } from "vitest";
import { isIdValue, isUuid, keepDetectedLabel } from "../../../../src/engine/detected/labels";

const UUID = "123e4567-e89b-12d3-a456-426614174000";

describe("which stream labels /detected_labels reports", () => {
  it("keeps labels with a value that is not an ID", () => {
    expect(keepDetectedLabel("env", ["prod", "dev"])).toBe(true);
    expect(keepDetectedLabel("version", ["1", "2", "v3"])).toBe(true);
  });

  it("drops labels whose every value is a number or a UUID", () => {
    expect(keepDetectedLabel("build", ["101", "102", "103"])).toBe(false);
    expect(keepDetectedLabel("request", [UUID, "123e4567e89b12d3a456426614174001", "1.5"])).toBe(false);
    // One or two values that are not all 0/1 are still IDs.
    expect(keepDetectedLabel("port", ["8080"])).toBe(false);
    expect(keepDetectedLabel("n", ["0", "2"])).toBe(false);
  });

  it("keeps one or two 0/1 values as a flag, but not three values", () => {
    expect(keepDetectedLabel("flag", ["0", "1"])).toBe(true);
    expect(keepDetectedLabel("flag", ["1"])).toBe(true);
    expect(keepDetectedLabel("flag", ["0", "1", "1.0"])).toBe(false);
  });

  it("always keeps Loki's static labels, whatever their values", () => {
    for (const name of ["cluster", "namespace", "instance", "pod"])
      expect(keepDetectedLabel(name, ["1", "2", "3"])).toBe(true);
  });

  it("drops labels without values and internal labels", () => {
    expect(keepDetectedLabel("env", [])).toBe(false);
    expect(keepDetectedLabel("pod", [])).toBe(false);
    expect(keepDetectedLabel("__stream_shard__", ["0", "1"])).toBe(false);
  });

  it("recognises the UUID forms google/uuid.Parse accepts", () => {
    expect(isUuid(UUID)).toBe(true);
    expect(isUuid(UUID.toUpperCase())).toBe(true);
    expect(isUuid(`{${UUID}}`)).toBe(true);
    expect(isUuid(`urn:uuid:${UUID}`)).toBe(true);
    expect(isUuid(`URN:UUID:${UUID}`)).toBe(true);
    expect(isUuid(UUID.replaceAll("-", ""))).toBe(true);
    expect(isUuid(UUID.replace("4000", "400g"))).toBe(false);
    expect(isUuid(UUID.slice(0, 23))).toBe(false);
    expect(isUuid(UUID.replaceAll("-", "_"))).toBe(false);
  });

  it("counts Go floats of every spelling as IDs", () => {
    expect(["1e5", "-0.5", "NaN", "+Inf", "0x10p0"].every(isIdValue)).toBe(true);
    expect(isIdValue("v1")).toBe(false);
  });
});
