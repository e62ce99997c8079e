/**
 * Setup file for every workerd test file: records what the Worker writes to the console and fails
 * the test during which a canary secret (test/support/secret-scan.ts) appeared in any of it.
 */
import { afterEach, expect } from "vitest";
import { CANARIES, findLeaks } from "./secret-scan";

const lines: string[] = [];
const METHODS = ["log", "info", "warn", "error", "debug", "trace"] as const;

for (const method of METHODS) {
  const original = console[method].bind(console);
  console[method] = (...args: unknown[]) => {
    lines.push(args.map(describe).join(" "));
    original(...args);
  };
}

function describe(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Error) return `${value.name}: ${value.message}\n${value.stack ?? ""}`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Console lines recorded since the current test began (for tests that assert on them). */
export function consoleLines(): readonly string[] {
  return lines;
}

afterEach(() => {
  const recorded = lines.splice(0).join("\n");
  expect(findLeaks(recorded, CANARIES), "canary secrets in console output").toEqual([]);
});
