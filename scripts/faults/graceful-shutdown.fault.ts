/**
 * Graceful shutdown under load. The production build on our own PostgreSQL serves steady
 * writes and reads; some requests are mid-upload when SIGTERM arrives (their headers read and
 * authenticated, half of the body sent), so they are certainly accepted before the signal: each
 * asks `Expect: 100-continue`, and the signal waits for every interim 100, which Node sends once
 * it has parsed the request's headers (a fixed pause was not enough on a loaded machine: a
 * request the server had not read yet sat on a connection it counted as idle, and closed).
 * Checked:
 * - every request accepted before the signal completes with its normal response, and its
 *   write is stored;
 * - no request gets anything but its normal response or a 503 (arrived while closing);
 * - new connections are refused soon after the signal;
 * - the process exits 0 within SHUTDOWN_GRACE_MS.
 */
import { connect, type Socket } from "node:net";
import pg from "pg";
import { Agent, request } from "undici";
import { startOwnPostgres } from "./lib/postgres.js";
import { prepareLoadTarget } from "./lib/load-target.js";
import { productionEnv, startServer } from "./lib/server.js";
import { sleep, Verdict } from "./lib/verdict.js";

const GRACE_MS = 8_000;
const LOAD_CLIENTS = 6;
const IN_FLIGHT = 10;
const DROPLETS = 3_000;
const LOAD_AFTER_SIGNAL_MS = 3_000;
const CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";

interface Outcome {
  kind: "write" | "read";
  startedAt: number;
  endedAt: number;
  status: number | null;
  transportError?: string;
  dropletUuid?: string;
}

const verdict = new Verdict("graceful shutdown");
const postgres = await startOwnPostgres();
let server: Awaited<ReturnType<typeof startServer>> | undefined;
try {
  const env = productionEnv(postgres.url, { SHUTDOWN_GRACE_MS: String(GRACE_MS) });
  const { token, droplets } = await prepareLoadTarget(env, postgres.url, { name: "Shutdown Co", shop: "shutdown.example.com" }, DROPLETS);

  server = await startServer(env);
  const { port } = new URL(server.url);
  const agent = new Agent({ connections: LOAD_CLIENTS, headersTimeout: 15_000, bodyTimeout: 15_000 });
  const outcomes: Outcome[] = [];
  let nextDroplet = 0;
  const takeDroplet = () => droplets[nextDroplet++] as string;

  let signalAt = Number.POSITIVE_INFINITY;
  const loops = Array.from({ length: LOAD_CLIENTS }, async (_, index) => {
    while (Date.now() < signalAt + LOAD_AFTER_SIGNAL_MS && nextDroplet < droplets.length - IN_FLIGHT) {
      const write = index % 2 === 0;
      const dropletUuid = write ? takeDroplet() : undefined;
      const startedAt = Date.now();
      try {
        const response = await request(`${server?.url}${write ? "/api/droplet_installations" : "/api/droplet_installations?per_page=5"}`, {
          dispatcher: agent,
          method: write ? "POST" : "GET",
          headers: { authorization: `Bearer ${token}`, ...(write ? { "content-type": "application/json" } : {}) },
          ...(write ? { body: JSON.stringify({ droplet_uuid: dropletUuid }) } : {}),
        });
        await response.body.text();
        outcomes.push({ kind: write ? "write" : "read", startedAt, endedAt: Date.now(), status: response.statusCode, ...(dropletUuid ? { dropletUuid } : {}) });
      } catch (error) {
        outcomes.push({ kind: write ? "write" : "read", startedAt, endedAt: Date.now(), status: null, transportError: (error as Error).message, ...(dropletUuid ? { dropletUuid } : {}) });
        if (Date.now() > signalAt) return; // the server is going away: this client stops
        await sleep(10);
      }
    }
  });

  await sleep(2_000);
  // Requests mid-upload: headers sent (and authenticated), half of the body still to come.
  const uploads = await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      const dropletUuid = takeDroplet();
      const body = JSON.stringify({ droplet_uuid: dropletUuid });
      const socket = await new Promise<Socket>((resolve, reject) => {
        const opened = connect({ host: "127.0.0.1", port: Number(port) }, () => resolve(opened));
        opened.once("error", reject);
      });
      let received = "";
      let headersRead = () => {};
      const continued = new Promise<void>((resolve) => (headersRead = resolve));
      socket.on("data", (chunk) => {
        received += chunk.toString();
        if (received.startsWith(CONTINUE)) headersRead();
      });
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      socket.on("error", () => {});
      socket.write(
        `POST /api/droplet_installations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n${body.slice(0, 10)}`,
      );
      return { dropletUuid, socket, rest: body.slice(10), closed, continued, response: () => received.slice(CONTINUE.length) };
    }),
  );
  const allRead = await Promise.race([Promise.all(uploads.map((upload) => upload.continued)).then(() => true), sleep(15_000).then(() => false)]);
  verdict.check(allRead, "the server read the headers of every upload before the signal");

  signalAt = Date.now();
  server.child.kill("SIGTERM");
  await sleep(300);
  // write, not end: a client that half-closes its side abandons the request.
  for (const upload of uploads) upload.socket.write(upload.rest);

  // New connections: refused once the server has stopped listening.
  await sleep(500);
  const newConnection = await new Promise<string>((resolve) => {
    const attempt = connect({ host: "127.0.0.1", port: Number(port) }, () => {
      attempt.destroy();
      resolve("connected");
    });
    attempt.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
  verdict.check(newConnection === "ECONNREFUSED", "a new connection after the signal is refused", newConnection);

  // The server closes each of these connections after its response: it is shutting down.
  await Promise.race([Promise.all(uploads.map((upload) => upload.closed)), sleep(GRACE_MS)]);
  const exit = await Promise.race([server.exited, sleep(GRACE_MS + 2_000).then(() => null)]);
  await Promise.all(loops);
  await agent.close();

  const completed = uploads.filter((upload) => /^HTTP\/1\.1 201 /.test(upload.response()) && upload.response().includes('"droplet_installation"'));
  verdict.check(completed.length === IN_FLIGHT, `every request accepted before the signal completes with its 201 (${completed.length}/${IN_FLIGHT})`, uploads.map((upload) => upload.response().split("\r\n")[0]));

  const inFlightAtSignal = outcomes.filter((o) => o.startedAt < signalAt && o.endedAt > signalAt);
  verdict.note(`${outcomes.length} load requests, ${inFlightAtSignal.length} of them in flight at the signal`);
  const answered = outcomes.filter((o) => o.status !== null);
  const wrong = answered.find((o) => !((o.status as number) >= 200 && (o.status as number) < 300) && o.status !== 503);
  verdict.check(wrong === undefined, "every answer is the normal one or a 503 for a request that arrived while closing", wrong);
  verdict.check(
    outcomes.filter((o) => o.endedAt < signalAt).every((o) => o.status !== null && o.status < 300),
    "before the signal every load request succeeds",
  );

  verdict.check(exit !== null && exit.code === 0, "the process exits with code 0", exit);
  if (exit) verdict.check(exit.at - signalAt < GRACE_MS, `within the grace period (${exit.at - signalAt} ms < ${GRACE_MS} ms)`);
  verdict.check(!server.output().includes("grace period over"), "no request was cut off by the grace period");

  const check = new pg.Client({ connectionString: postgres.url });
  await check.connect();
  const stored = new Set(
    (await check.query<{ uuid: string }>("SELECT d.uuid::text AS uuid FROM droplet_installations i JOIN droplets d ON d.id = i.droplet_id")).rows.map((row) => row.uuid),
  );
  await check.end();
  verdict.check(uploads.every((upload) => stored.has(upload.dropletUuid)), "the writes accepted before the signal are stored");
  const writes = outcomes.filter((o) => o.kind === "write");
  const lost = writes.filter((o) => o.status !== null && o.status < 300 && !stored.has(o.dropletUuid as string));
  const phantom = writes.filter((o) => o.status === 503 && stored.has(o.dropletUuid as string));
  verdict.check(lost.length === 0 && phantom.length === 0, "load writes: every 2xx stored, no 503 stored", { lost: lost.length, phantom: phantom.length });
} catch (error) {
  verdict.check(false, `the scenario ran to its end: ${(error as Error).stack ?? error}`);
} finally {
  if (server && server.child.exitCode === null) server.child.kill("SIGKILL");
  await postgres.destroy();
}
verdict.finish();
