/**
 * A deliberately failing origin for the secrets sweep: it answers every request with the status
 * named by the first path segment (`/401/...`, `/500/...`) and a body that echoes the request's
 * Authorization header, as a careless proxy in front of VictoriaLogs might. It runs in the test
 * runner's Node process on 127.0.0.1 and is closed when the run ends.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export async function startEchoingOrigin(): Promise<{ url: string; stop: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const status = Number((req.url ?? "").split("/")[1]) || 500;
    res.writeHead(status, { "Content-Type": "text/plain" });
    res.end(`request refused; Authorization: ${req.headers.authorization ?? "(none)"}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
