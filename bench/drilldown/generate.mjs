// The Drilldown benchmark's dataset: one Kubernetes namespace of 15 services and 5,000 pods (the
// `pod` stream label, so about 5,000 streams), each row carrying OpenTelemetry-style structured
// metadata (`trace_id`, `span_id`, `k8s_pod_name`) and, in JSON and logfmt bodies, the pod's
// `service_version`. Trace ids are drawn from a pool of their own each hour, sized so that about
// 50,000 distinct ids show up in an hour. The same rows for the same seed; rows come out as
// VictoriaLogs jsonline batches in time order, a few thousand at a time.

import { jsonlineBatches, lineFor, random, rfc3339, slicedRowTimes } from "../scale/generate.mjs";

export const NAMESPACE = "shop";
const CLUSTER = "prod-eu-west-1";
/** Stream labels, in the order VictoriaLogs is told they make the stream. */
export const STREAM_FIELDS = ["cluster", "namespace", "service_name", "pod", "container"];
/** Distinct trace ids an hour the pools are sized for. */
export const TRACE_IDS_PER_HOUR = 50_000;
export const PODS = 5_000;

/** Services by body format: the scale generator's JSON, logfmt and nginx lines stand for each kind. */
const SERVICES = [
  ...["frontend", "cart", "checkout", "payments", "catalog", "recommendations", "shipping", "currency", "ads"].map(
    (name) => ({ name, kind: "checkout" }),
  ),
  ...["auth", "email", "inventory", "fraud-detection", "quote"].map((name) => ({ name, kind: "worker" })),
  { name: "ingress-nginx", kind: "nginx" },
];

/** murmur3's finaliser: a bijection on 32-bit integers, so distinct inputs give distinct ids. */
function fmix32(h) {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
const hex8 = (n) => n.toString(16).padStart(8, "0");

/** Trace id `index` of hour `hour`'s pool: 32 hex digits, unique across hours and indexes. */
function traceId(hour, index) {
  const a = hour * 1_000_003 + index;
  return hex8(fmix32(a)) + hex8(fmix32(a ^ 0x5bd1e995)) + hex8(fmix32(a ^ 0x27d4eb2f)) + hex8(fmix32(a ^ 0x165667b1));
}

/**
 * The pool size whose `draws` uniform draws show `distinct` ids on average: P·(1 − e^(−draws/P)).
 * @param {number} draws @param {number} distinct
 */
function poolFor(draws, distinct) {
  let pool = distinct;
  while (pool * (1 - Math.exp(-draws / pool)) < distinct && pool < draws * 50) pool += 250;
  return pool;
}

/** The pods: each service's share drawn once, each pod with its own rate and one of its service's three versions. */
function podsOf(r) {
  const weights = SERVICES.map(() => 0.3 + r.next() * 1.7);
  const total = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.max(20, Math.round((w / total) * PODS)));
  // The last service takes up the rounding, so there are exactly PODS pods.
  counts[counts.length - 1] += PODS - counts.reduce((a, b) => a + b, 0);
  const pods = [];
  SERVICES.forEach((svc, si) => {
    const major = r.int(1, 4);
    const minor = r.int(0, 30);
    const versions = [`${major}.${minor}.${r.int(0, 9)}`, `${major}.${minor + 1}.0`, `${major}.${minor + 1}.1`];
    for (let i = 0; i < counts[si]; i++) {
      const pod = `${svc.name}-${r.hex(10)}-${r.hex(5)}`;
      pods.push({
        labels: { cluster: CLUSTER, namespace: NAMESPACE, service_name: svc.name, pod, container: svc.name },
        kind: svc.kind,
        // A rollout under way: most pods on the newest version, some still on the two before.
        version: r.weighted([
          [versions[2], 0.6],
          [versions[1], 0.3],
          [versions[0], 0.1],
        ]),
        weight: 0.4 + r.next() * 1.2,
      });
    }
  });
  return pods;
}

/**
 * @param {{ hours: number, rowsPerHour: number, endMs: number, seed?: number, batchRows?: number }} options
 *   endMs: the data's end (fixed, so a cached load stays valid).
 */
export function drilldownDataset({ hours, rowsPerHour, endMs, seed = 30, batchRows = 20_000 }) {
  const startMs = endMs - hours * 3_600_000;
  const pods = podsOf(random(seed));
  const totalWeight = pods.reduce((n, p) => n + p.weight, 0);
  const tracedShare = pods.filter((p) => p.kind !== "nginx").reduce((n, p) => n + p.weight, 0) / totalWeight;
  const pool = poolFor(rowsPerHour * tracedShare, TRACE_IDS_PER_HOUR);
  return {
    startMs,
    endMs,
    streams: pods.map((p) => p.labels),
    tracePoolPerHour: pool,
    /**
     * jsonline bodies of `batchRows` rows each, in time order (slicedRowTimes); `onRow` is told
     * each row's stream and size.
     * @param {(streamIndex: number, bytes: number) => void} [onRow]
     */
    *bodies(onRow) {
      const r = random(seed + 1);
      // The expected count: the pod's share of an hour's rows, for the slice's share of an hour.
      const times = slicedRowTimes(r, startMs, endMs, pods.length, (pi, sliceMs) => {
        return ((rowsPerHour * pods[pi].weight) / totalWeight) * (sliceMs / 3_600_000);
      });
      yield* jsonlineBatches(
        (function* () {
          for (const { stream: pi, ns, sliceStartMs } of times) {
            const p = pods[pi];
            const hour = Math.floor((sliceStartMs - startMs) / 3_600_000);
            const { line, meta } = lineFor(r, p.kind, Number(ns / 1_000_000n));
            let body = line;
            /** @type {Record<string, string>} */
            const attrs = { k8s_pod_name: p.labels.pod };
            if (p.kind === "checkout") body = `{"service_version":"${p.version}",${line.slice(1)}`;
            if (p.kind === "worker") body = `${line} service_version=${p.version}`;
            if (p.kind !== "nginx") {
              attrs.trace_id = traceId(hour, r.int(0, pool - 1));
              attrs.span_id = r.hex(16);
            }
            const row = JSON.stringify({
              _time: rfc3339(ns),
              _msg: body,
              ...p.labels,
              ...(meta?.tenant ? { tenant: meta.tenant } : {}),
              ...attrs,
            });
            onRow?.(pi, row.length);
            yield row;
          }
        })(),
        batchRows,
      );
    },
  };
}
