// An HTTP proxy between the Worker under test and VictoriaLogs that misbehaves on demand. Tests
// choose the fault on a separate control port (so a refused or reset proxy connection never takes
// the control channel with it); the fault stays in force for every proxied request until the next
// choice. Both servers listen on 127.0.0.1 and live in the globalSetup's process.

import { createServer } from "node:http";

/** Text every injected error page contains: a Worker answer quoting it echoed the origin's body. */
export const FAULT_BODY_MARKER = "fault-proxy-body-7f3a";

/**
 * Faults:
 * - none: forward unchanged
 * - refuse: reset the connection before any answer
 * - delay: wait `ms` (default 10 s) before forwarding
 * - status: answer `status` (default 500) with an HTML body
 * - html: answer 200 with an HTML page
 * - truncate: forward, then end the body cleanly in the middle of a line
 * - reset: forward, send the body up to the middle of a line, then reset the connection
 * - stall: forward, send the body up to the middle of a line, then send nothing more
 * @typedef {{ kind: "none" | "refuse" | "delay" | "status" | "html" | "truncate" | "reset" | "stall", ms?: number, status?: number }} Fault
 */

const KINDS = new Set(["none", "refuse", "delay", "status", "html", "truncate", "reset", "stall"]);

/**
 * @param {{ target: string }} options target: the VictoriaLogs base URL
 * @returns {Promise<{ url: string, controlUrl: string, stop: () => Promise<void> }>}
 */
export async function startFaultProxy({ target }) {
  /** @type {Fault} */
  let fault = { kind: "none" };
  // Requests the current fault was applied to, so a test can tell a fault was really exercised.
  let faulted = 0;
  /** @type {Set<import("node:net").Socket>} */
  const held = new Set();

  const releaseHeld = () => {
    for (const socket of held) socket.destroy();
    held.clear();
  };

  const proxy = createServer(async (req, res) => {
    const current = fault;
    if (current.kind !== "none") faulted++;
    const requestBody = await readAll(req);
    if (current.kind === "refuse") {
      req.socket.resetAndDestroy();
      return;
    }
    if (current.kind === "status" || current.kind === "html") {
      res.writeHead(current.kind === "html" ? 200 : (current.status ?? 500), { "Content-Type": "text/html" });
      res.end(`<html><body><h1>${FAULT_BODY_MARKER}</h1>upstream error page</body></html>\n`);
      return;
    }
    if (current.kind === "delay") {
      await new Promise((resolve) => setTimeout(resolve, current.ms ?? 10_000));
      if (req.socket.destroyed) return;
    }

    let upstream;
    try {
      upstream = await fetch(target + req.url, {
        method: req.method,
        headers: forwardedHeaders(req.headers),
        body: req.method === "GET" || req.method === "HEAD" ? undefined : requestBody,
      });
    } catch {
      res.writeHead(599, { "Content-Type": "text/plain" }).end("fault proxy: VictoriaLogs unreachable");
      return;
    }
    const body = Buffer.from(await upstream.arrayBuffer());
    const headers = { "Content-Type": upstream.headers.get("content-type") ?? "application/octet-stream" };

    if (current.kind === "none" || current.kind === "delay") {
      res.writeHead(upstream.status, { ...headers, "Content-Length": String(body.length) }).end(body);
      return;
    }
    // No Content-Length from here on: the body is chunked, so the Worker cannot tell a cut body
    // from a complete one by its length.
    const cut = body.subarray(0, midLine(body));
    res.writeHead(upstream.status, headers);
    if (current.kind === "truncate") {
      res.end(cut);
      return;
    }
    res.write(cut);
    if (current.kind === "reset") {
      // Let the partial body leave first, so the Worker sees headers and rows before the reset.
      setTimeout(() => req.socket.resetAndDestroy(), 100);
      return;
    }
    // stall: keep the connection open, sending nothing, until the fault changes or the proxy stops.
    held.add(req.socket);
    req.socket.once("close", () => held.delete(req.socket));
  });
  proxy.on("clientError", (_err, socket) => socket.destroy());

  const control = createServer(async (req, res) => {
    if (req.method === "POST") {
      let next;
      try {
        next = JSON.parse((await readAll(req)).toString("utf8"));
      } catch {
        next = undefined;
      }
      if (!next || !KINDS.has(next.kind)) {
        res.writeHead(400, { "Content-Type": "text/plain" }).end("unknown fault");
        return;
      }
      fault = next;
      faulted = 0;
      releaseHeld();
    } else {
      await readAll(req);
    }
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ fault, faulted }));
  });

  const proxyPort = await listen(proxy);
  const controlPort = await listen(control);
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    controlUrl: `http://127.0.0.1:${controlPort}`,
    async stop() {
      releaseHeld();
      proxy.closeAllConnections();
      control.closeAllConnections();
      await Promise.all([close(proxy), close(control)]);
    },
  };
}

/**
 * Where to cut a body so the cut falls inside a line, after at least one whole line when there is
 * more than one: the most convincing partial answer.
 * @param {Buffer} body
 */
function midLine(body) {
  const firstEnd = body.indexOf(10);
  if (firstEnd >= 0 && firstEnd + 1 < body.length) {
    const secondEnd = body.indexOf(10, firstEnd + 1);
    const end = secondEnd < 0 ? body.length : secondEnd;
    return firstEnd + 1 + Math.max(1, Math.floor((end - firstEnd - 1) / 2));
  }
  return Math.floor(body.length / 2);
}

/** @param {import("node:http").IncomingHttpHeaders} headers */
function forwardedHeaders(headers) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const [name, value] of Object.entries(headers)) {
    if (["host", "connection", "content-length", "transfer-encoding", "keep-alive"].includes(name)) continue;
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** @param {import("node:stream").Readable} stream */
async function readAll(stream) {
  /** @type {Buffer[]} */
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** @param {import("node:http").Server} server */
function listen(server) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
}

/** @param {import("node:http").Server} server */
function close(server) {
  return new Promise((resolve) => server.close(() => resolve(undefined)));
}
