import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A plain HTTP server on a free loopback port: the other end for tests of the bench's own HTTP clients. */
export interface LocalHttpServer {
  server: Server;
  /** `127.0.0.1:<port>` */
  host: string;
  url: string;
  /** Cuts every connection and stops listening. */
  close(): Promise<void>;
}

export async function startLocalHttpServer(handler: RequestListener, keepAliveTimeoutMs = 5_000): Promise<LocalHttpServer> {
  const server = createServer(handler);
  server.keepAliveTimeout = keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    host,
    url: `http://${host}`,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
