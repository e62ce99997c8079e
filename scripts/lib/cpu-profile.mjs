// Reads a V8 CPU profile (.cpuprofile, as `wrangler check startup` writes it): the time the isolate
// was busy, i.e. every sample except the idle ones.

/**
 * @typedef {{ nodes: { id: number, callFrame: { functionName: string } }[], samples: number[], timeDeltas: number[] }} CpuProfile
 * @param {CpuProfile} profile
 * @returns {number} busy milliseconds
 */
export function startupCpuMs(profile) {
  const names = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
  let busyMicros = 0;
  profile.samples.forEach((node, i) => {
    if (names.get(node) !== "(idle)") busyMicros += profile.timeDeltas[i] ?? 0;
  });
  return busyMicros / 1000;
}
