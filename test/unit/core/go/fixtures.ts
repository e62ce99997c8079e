/**
 * Reads the Go reference outputs in test/fixtures/go (written by `npm run fixtures:go`, which runs
 * scripts/go-fixtures with Go itself). A missing or empty file fails the suite, never skips it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const DIR = join(__dirname, "..", "..", "..", "fixtures", "go");

export function goFixture<T>(file: string): T {
  return JSON.parse(readFileSync(join(DIR, file), "utf8")) as T;
}

/** Float64 bits as Go's math.Float64bits printed them (hex) back to the double. */
export function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt("0x" + hex));
  return view.getFloat64(0);
}

export function toBits(x: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return view.getBigUint64(0).toString(16);
}
