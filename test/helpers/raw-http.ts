import { connect, type Socket } from "node:net";

/** A TCP connection to a listening test server, for requests no HTTP client would send. */
export interface RawClient {
  socket: Socket;
  /** Everything the server has written so far. */
  received(): string;
  /** When the connection closed (ms since the epoch), null while open. */
  closedAt(): number | null;
}

export function rawClient(port: number): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    let data = "";
    let closedAt: number | null = null;
    const socket = connect({ host: "127.0.0.1", port }, () => resolve({ socket, received: () => data, closedAt: () => closedAt }));
    socket.on("data", (chunk) => {
      data += chunk.toString();
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      closedAt = Date.now();
    });
    socket.once("error", reject);
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(25);
  }
  return true;
}

export interface RawResponse {
  status: number;
  /** Header names in lower case; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

/** Sends `request` as is and reads what the server answers until it closes the connection (or `timeoutMs` passes). */
export async function rawExchange(port: number, request: string, timeoutMs = 3_000): Promise<string> {
  const client = await rawClient(port);
  client.socket.write(request);
  await waitUntil(() => client.closedAt() !== null, timeoutMs);
  client.socket.destroy();
  return client.received();
}

/** The responses in `text`, in order (each framed by its Content-Length). */
export function parseRawResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = Buffer.from(text);
  while (rest.length > 0) {
    const headEnd = rest.indexOf("\r\n\r\n");
    if (headEnd < 0) throw new Error(`not an HTTP response: ${rest.toString()}`);
    const [statusLine = "", ...headerLines] = rest.subarray(0, headEnd).toString().split("\r\n");
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const length = Number(headers["content-length"] ?? 0);
    const bodyStart = headEnd + 4;
    responses.push({ status: Number(statusLine.split(" ")[1]), headers, body: rest.subarray(bodyStart, bodyStart + length).toString() });
    rest = rest.subarray(bodyStart + length);
  }
  return responses;
}
