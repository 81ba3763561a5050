import { type AddressInfo, connect, createServer, type Socket } from "node:net";

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Connections opened through it so far (closed ones included). */
  opened(): number;
  /** Connections the app side has closed so far. */
  closedByClient(): number;
  /**
   * From now on every byte either way is dropped and no connection is closed or reset: a network
   * that went silent (a cable pulled, a firewall dropping packets) as the app sees it. New
   * connections are accepted and go silent too.
   */
  silence(): void;
  /** Forwards again (on the connections opened since; silenced ones stay silent). */
  resume(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 in front of `target` (a PostgreSQL server's host and port), for fault
 * tests: the app connects through it, and the test makes the network between them go silent.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let silent = false;
  let opened = 0;
  let closedByClient = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    opened += 1;
    const upstream = connect(target.port, target.host);
    const connection = { silenced: silent };
    sockets.add(client).add(upstream);
    const forward = (from: Socket, to: Socket) =>
      from.on("data", (chunk) => {
        if (connection.silenced || silent) {
          connection.silenced = true;
          return;
        }
        to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
    client.on("close", () => {
      closedByClient += 1;
      sockets.delete(client);
      // A silenced connection's server side stays open, as the server would keep it until its own timeouts.
      if (!connection.silenced) upstream.destroy();
    });
    upstream.on("close", () => {
      sockets.delete(upstream);
      if (!connection.silenced) client.destroy();
    });
    client.on("error", () => {});
    upstream.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    opened: () => opened,
    closedByClient: () => closedByClient,
    silence() {
      silent = true;
    },
    resume() {
      silent = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
