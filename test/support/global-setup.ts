/**
 * Starts one real VictoriaLogs on 127.0.0.1 for the Workers-runtime tests, loads the compat dataset
 * (the data the Loki answers were recorded on), and stops it by PID when the run ends. An outage
 * proxy in front of it lets tests break the origin connection on demand.
 */
import type { TestProject } from "vitest/node";
import { startTestOrigin, type TestOrigin } from "./origin.mjs";
import { startOutageProxy } from "./outage-proxy.mjs";

let origin: TestOrigin | undefined;
let proxy: { url: string; stop: () => Promise<void> } | undefined;

export async function setup(project: TestProject): Promise<void> {
  origin = await startTestOrigin({ dataset: "compat" });
  project.provide("originUrl", origin.url);
  proxy = await startOutageProxy(origin.url);
  project.provide("outageProxyUrl", proxy.url);
}

export async function teardown(): Promise<void> {
  await proxy?.stop();
  await origin?.stop();
}
