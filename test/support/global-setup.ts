/**
 * Starts one real VictoriaLogs on 127.0.0.1 for the Workers-runtime tests, loads the compat dataset
 * (the data the Loki answers were recorded on), and stops it by PID when the run ends. Next to it,
 * a fault-injecting proxy in front of it, for the tests of origin failures.
 */
import type { TestProject } from "vitest/node";
import { startTestOrigin, type TestOrigin } from "./origin.mjs";
import { type FaultProxy, startFaultProxy } from "./fault-proxy.mjs";

let origin: TestOrigin | undefined;
let faultProxy: FaultProxy | undefined;

export async function setup(project: TestProject): Promise<void> {
  origin = await startTestOrigin({ dataset: "compat" });
  project.provide("originUrl", origin.url);
  faultProxy = await startFaultProxy({ target: origin.url });
  project.provide("faultProxyUrl", faultProxy.url);
  project.provide("faultControlUrl", faultProxy.controlUrl);
}

export async function teardown(): Promise<void> {
  await faultProxy?.stop();
  await origin?.stop();
}
