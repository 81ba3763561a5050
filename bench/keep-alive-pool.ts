import { connect, type Socket } from "node:net";

/**
 * The paced round's HTTP/1.1 client: keep-alive connections, one request at a time on each, each
 * request written as one buffer, a response counted when its Content-Length has arrived. On the
 * two cores that the load generator shares with the server and PostgreSQL, its own CPU is part of
 * what it measures: paced cart reads at 2,500 per second cost 155-171 µs of CPU each through
 * undici's pool and 89-95 µs through this one, measured in one process (docs/performance.md,
 * change 28). It reads only what the server sends: responses with a Content-Length (a chunked
 * one counts as an error).
 */
export interface KeepAlivePool {
  /** Sends on an idle connection, or queues until one is free: the wait counts in the latency. */
  send(request: Buffer, startedAt: number): void;
  close(): void;
}

/** Called once per request: `status` is null when the exchange failed (refused, cut off, unreadable). */
export type OnAnswer = (startedAt: number, status: number | null) => void;

export function encodeRequest(host: string, method: string, path: string, headers: Record<string, string>, body: string | undefined): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, `host: ${host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  if (body !== undefined) lines.push(`content-length: ${Buffer.byteLength(body)}`);
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n${body ?? ""}`);
}

const HEAD_END = Buffer.from("\r\n\r\n");

/** The status and the length of the whole response, from its head; null when the body is not length-delimited. */
function readHead(head: string): { status: number; length: number } | null {
  const contentLength = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (!contentLength || /\r\ntransfer-encoding:/i.test(head)) return null;
  return { status: Number(head.slice(9, 12)), length: head.length + HEAD_END.length + Number(contentLength[1]) };
}

interface Connection {
  socket: Socket;
  /** When the request on it started, or null while idle. */
  startedAt: number | null;
  /** The start of a response whose head has not fully arrived. */
  partialHead: Buffer | null;
  receivedBytes: number;
  response: { status: number; length: number } | null;
}

export async function openKeepAlivePool(url: string, size: number, onAnswer: OnAnswer): Promise<KeepAlivePool> {
  const { hostname, port } = new URL(url);
  const idle: Connection[] = [];
  const queue: Array<{ request: Buffer; startedAt: number }> = [];
  /** Connections open or being opened: none left means the server is gone. */
  let live = 0;
  let closing = false;

  const dispatch = (connection: Connection, request: Buffer, startedAt: number) => {
    connection.startedAt = startedAt;
    connection.socket.write(request);
  };
  const release = (connection: Connection) => {
    connection.startedAt = null;
    connection.partialHead = null;
    connection.receivedBytes = 0;
    connection.response = null;
    const next = queue.shift();
    if (next) dispatch(connection, next.request, next.startedAt);
    else idle.push(connection);
  };
  const answer = (connection: Connection, status: number | null) => {
    const { startedAt } = connection;
    if (startedAt !== null) onAnswer(startedAt, status);
  };

  /** When no connection can be opened, what waits for one is answered as failed, so a round still ends. */
  const refuseQueued = () => {
    if (live > 0) return;
    for (const waiting of queue.splice(0)) onAnswer(waiting.startedAt, null);
  };

  const open = async (): Promise<Connection> => {
    live += 1;
    const socket = connect(Number(port), hostname);
    socket.setNoDelay(true);
    await new Promise<void>((resolve, reject) => {
      const refused = (error: Error) => {
        live -= 1;
        reject(error);
      };
      socket.once("error", refused);
      socket.once("connect", () => {
        socket.off("error", refused);
        resolve();
      });
    });
    const connection: Connection = { socket, startedAt: null, partialHead: null, receivedBytes: 0, response: null };
    let failed = false;
    const fail = () => {
      if (failed) return;
      failed = true;
      answer(connection, null);
      connection.startedAt = null;
      socket.destroy();
      // The server closes a keep-alive connection that idled past its timeout: replace it.
      const idleAt = idle.indexOf(connection);
      if (idleAt >= 0) idle.splice(idleAt, 1);
      live -= 1;
      if (!closing) void open().then(release, refuseQueued);
    };
    socket.on("data", (chunk: Buffer) => {
      connection.receivedBytes += chunk.length;
      if (!connection.response) {
        const bytes = connection.partialHead ? Buffer.concat([connection.partialHead, chunk]) : chunk;
        const headEnd = bytes.indexOf(HEAD_END);
        if (headEnd < 0) {
          connection.partialHead = bytes;
          return;
        }
        connection.partialHead = null;
        connection.response = readHead(bytes.toString("latin1", 0, headEnd));
        if (!connection.response) return fail();
      }
      if (connection.receivedBytes < connection.response.length) return;
      if (connection.receivedBytes > connection.response.length) return fail();
      answer(connection, connection.response.status);
      release(connection);
    });
    socket.on("error", fail);
    socket.on("end", fail);
    return connection;
  };

  for (const connection of await Promise.all(Array.from({ length: size }, open))) idle.push(connection);
  return {
    send(request, startedAt) {
      if (live === 0) return onAnswer(startedAt, null);
      // The longest idle first, so that every connection stays in use.
      const connection = idle.shift();
      if (connection) dispatch(connection, request, startedAt);
      else queue.push({ request, startedAt });
    },
    close() {
      closing = true;
      for (const connection of idle) connection.socket.destroy();
    },
  };
}
