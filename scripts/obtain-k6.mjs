// Prints the path of a k6 binary, building it first if needed (see scripts/lib/k6.mjs).

import { obtainK6 } from "./lib/k6.mjs";

try {
  process.stdout.write(`${await obtainK6()}\n`);
} catch (err) {
  process.stderr.write(`[k6] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
