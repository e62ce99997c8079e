/**
 * Starts one real VictoriaLogs on 127.0.0.1 for the Workers-runtime tests, loads the compat dataset
 * (the data the Loki answers were recorded on), and stops it by PID when the run ends.
 */
import type { TestProject } from "vitest/node";
import { startEchoingOrigin } from "./echoing-origin";
import { startTestOrigin, type TestOrigin } from "./origin.mjs";

let origin: TestOrigin | undefined;
let echoing: Awaited<ReturnType<typeof startEchoingOrigin>> | undefined;

export async function setup(project: TestProject): Promise<void> {
  origin = await startTestOrigin({ dataset: "compat" });
  project.provide("originUrl", origin.url);
  echoing = await startEchoingOrigin();
  project.provide("echoingOriginUrl", echoing.url);
}

export async function teardown(): Promise<void> {
  await echoing?.stop();
  await origin?.stop();
}
