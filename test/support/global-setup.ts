/**
 * Starts one real VictoriaLogs on 127.0.0.1 for the Workers-runtime tests, loads the compat dataset
 * (the data the Loki answers were recorded on), and stops it by PID when the run ends. Next to it,
 * two proxies in front of it, each for its own test file (test files run concurrently, so they must
 * not share one): a fault-injecting proxy for the tests of origin failures, and an outage proxy that
 * breaks every connection on demand for the live-tail tests; and an origin that always fails,
 * echoing the credentials it was sent, for the secrets sweep.
 */
import type { TestProject } from "vitest/node";
import { startEchoingOrigin } from "./echoing-origin";
import { startTestOrigin, type TestOrigin } from "./origin.mjs";
import { type FaultProxy, startFaultProxy } from "./fault-proxy.mjs";
import { startOutageProxy } from "./outage-proxy.mjs";

let origin: TestOrigin | undefined;
let faultProxy: FaultProxy | undefined;
let outageProxy: { url: string; stop: () => Promise<void> } | undefined;
let echoing: Awaited<ReturnType<typeof startEchoingOrigin>> | undefined;

export async function setup(project: TestProject): Promise<void> {
  origin = await startTestOrigin({ dataset: "compat" });
  project.provide("originUrl", origin.url);
  faultProxy = await startFaultProxy({ target: origin.url });
  project.provide("faultProxyUrl", faultProxy.url);
  project.provide("faultControlUrl", faultProxy.controlUrl);
  outageProxy = await startOutageProxy(origin.url);
  project.provide("outageProxyUrl", outageProxy.url);
  echoing = await startEchoingOrigin();
  project.provide("echoingOriginUrl", echoing.url);
}

export async function teardown(): Promise<void> {
  await echoing?.stop();
  await outageProxy?.stop();
  await faultProxy?.stop();
  await origin?.stop();
}
