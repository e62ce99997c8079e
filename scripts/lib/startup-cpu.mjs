// Startup CPU of a module Worker in a local workerd, and a reference module to divide it by.
//
// A startup takes a few milliseconds of CPU, and the machines that check it are shared and unalike:
// the same bundle measured 5.7 ms on one idle day and 8 ms on another machine. A limit in
// milliseconds is a limit on the machine. What the budget guards is the bundle's own cost, so each
// run also measures a reference module of fixed content (parsed, then run at its top level, as a
// bundle is), interleaved with the bundle's runs, and the budget is the ratio of the two.
//
// The figure is CPU time, not a profile's samples: V8's sampling profiler counts wall time between
// samples, so a descheduled thread reads as busy and one run under load read 60 ms against 8 ms.
// Linux counts each thread's time on a CPU in nanoseconds (/proc/<pid>/task/<tid>/schedstat); the
// startup is what workerd's threads spend on the request that imports the module, less what they
// spend on the same request without the import.

import { existsSync, readFileSync, readdirSync } from "node:fs";
import { Miniflare } from "miniflare";

/** Whether this machine counts CPU time per thread (Linux). */
export function canMeasureStartup() {
  return existsSync(`/proc/${process.pid}/task`);
}

/**
 * A module whose startup costs about what the bundle's does, by the same means, and always the same
 * amount: V8 parses every function (compiling only those it calls), fills tables and runs a loop at
 * the top level. It is generated here, not read from a dependency, so that no upgrade changes it.
 * @returns {string}
 */
export function referenceModule() {
  const parts = [];
  for (let i = 0; i < 1500; i++) {
    parts.push(
      `function f${i}(a, b) { let s = ${i}; for (let j = 0; j < a; j++) { s = (s * 31 + j + b.length) % 1000003; }` +
        ` return { id: "f${i}", s, label: b + "-${i}", ok: s % 2 === 0 ? "even" : "odd" }; }`,
    );
  }
  parts.push("const results = [];");
  for (let i = 0; i < 1500; i += 10) parts.push(`results.push(f${i}(40, "k${i}"));`);
  parts.push("const table = new Map();");
  parts.push("for (let i = 0; i < 10000; i++) table.set('key' + i, { n: i, text: String(i * 7) });");
  parts.push(`const patterns = [${Array.from({ length: 200 }, (_, i) => `/^a${i}(b|c)+d*$/`).join(", ")}];`);
  parts.push("export const reference = { results, size: table.size, patterns };");
  parts.push('export default { fetch() { return new Response("reference"); } };');
  return parts.join("\n");
}

/**
 * CPU milliseconds workerd spends importing `source` (an ES module) for the first time.
 * @param {string} source
 * @param {{ compatibilityDate: string, compatibilityFlags?: string[] }} runtime
 * @returns {Promise<number>}
 */
export async function startupCpuMs(source, runtime) {
  const mf = new Miniflare({
    name: "startup",
    compatibilityDate: runtime.compatibilityDate,
    compatibilityFlags: runtime.compatibilityFlags ?? [],
    modulesRoot: "/",
    modules: [
      {
        type: "ESModule",
        path: "/startup.mjs",
        contents:
          "export default { async fetch(request) {" +
          ' if (new URL(request.url).pathname === "/import") await import("./bundle.mjs");' +
          ' return new Response("ok"); } };',
      },
      { type: "ESModule", path: "/bundle.mjs", contents: source },
    ],
    host: "127.0.0.1",
  });
  try {
    await mf.ready;
    const workerd = childProcesses(process.pid).filter((pid) => commandLine(pid).includes("workerd"));
    if (workerd.length === 0) throw new Error("no workerd process found under this one");
    const cpuNs = () => workerd.reduce((sum, pid) => sum + processCpuNs(pid), 0);
    /** @param {string} path */
    const cpuOf = async (path) => {
      const before = cpuNs();
      await (await mf.dispatchFetch(`http://startup.local${path}`)).text();
      return cpuNs() - before;
    };
    // The request path warmed first, so that what remains of the import's figure is the import.
    for (let i = 0; i < 5; i++) await cpuOf("/request");
    const request = await cpuOf("/request");
    const requestWithImport = await cpuOf("/import");
    return (requestWithImport - request) / 1e6;
  } finally {
    await mf.dispose();
  }
}

/** The processes whose parent is `pid` (from each process's stat, which every Linux kernel has). */
function childProcesses(/** @type {number} */ pid) {
  const children = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    // The command name in parentheses may hold spaces and parentheses: fields follow its last ")".
    const stat = readIfPresent(`/proc/${entry}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[1]) === pid) children.push(Number(entry));
  }
  return children;
}

/** @param {number} pid */
function commandLine(pid) {
  return readIfPresent(`/proc/${pid}/cmdline`);
}

/** Nanoseconds the process's threads have run on a CPU (the first field of each thread's schedstat). */
function processCpuNs(/** @type {number} */ pid) {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    total += Number(readIfPresent(`/proc/${pid}/task/${tid}/schedstat`).split(" ")[0] || 0);
  }
  return total;
}

/** A /proc file's text, or "" when the process or thread has gone since it was listed. */
function readIfPresent(/** @type {string} */ path) {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
