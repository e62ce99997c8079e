/**
 * A pass-through HTTP proxy in front of the test origin that can be told to fail: during an outage
 * every connection, including requests already in flight, is reset, as when the origin restarts.
 * `POST /__outage?ms=N` starts one (answered before it begins). Listens on 127.0.0.1.
 */
import http from "node:http";

export async function startOutageProxy(targetUrl) {
  const target = new URL(targetUrl);
  let outageUntil = 0;
  const sockets = new Set();
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith("/__outage")) {
      const ms = Number(new URL(req.url, "http://x").searchParams.get("ms") ?? "0");
      res.end("ok", () => {
        outageUntil = Date.now() + ms;
        for (const s of sockets) s.destroy();
      });
      return;
    }
    if (Date.now() < outageUntil) {
      req.socket.destroy();
      return;
    }
    const upstream = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => req.socket.destroy());
    req.pipe(upstream);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
