import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { queueMail } from "../../../src/domain/mail/outbox.js";
import { type MailTransport, smtpTransport } from "../../../src/domain/mail/transports.js";
import { deliverDueMail, MAX_ATTEMPTS, type MailWorkerDeps, retryDelayMs, startMailWorker } from "../../../src/domain/mail/worker.js";
import { fixedClock } from "../../helpers/fixed-clock.js";
import { createCompanyWithToken } from "../../helpers/fixtures.js";
import { type SmtpSink, startSmtpSink } from "../../helpers/smtp-sink.js";
import { createTestDatabase, type TestDatabase } from "../../helpers/test-database.js";

const NOW = new Date("2026-01-15T12:00:00.000Z");
const clock = fixedClock(NOW);
let testDb: TestDatabase;
let sink: SmtpSink;
let companyId: number;
let deps: MailWorkerDeps;

beforeAll(async () => {
  testDb = await createTestDatabase();
  sink = await startSmtpSink();
  companyId = (await createCompanyWithToken(testDb.database.prisma)).id;
  deps = { db: testDb.database.prisma, transport: smtpTransport(sink.url), from: "shop@example.com", clock, logger: pino({ level: "silent" }) };
});

afterAll(async () => {
  deps.transport.close();
  await sink.close();
  await testDb.destroy();
});

beforeEach(async () => {
  clock.set(NOW);
  sink.received.length = 0;
  sink.rejectWith = null;
  await testDb.database.prisma.mailOutbox.deleteMany();
});

const queue = (to: string) =>
  testDb.database.prisma.$transaction((tx) => queueMail(tx, { companyId, to, subject: `Hello ${to}`, body: "Body text", kind: "test" }, clock.now()));
const row = (id: number) => testDb.database.prisma.mailOutbox.findUniqueOrThrow({ where: { id } });

describe("mail worker", () => {
  it("sends every due mail once over SMTP, also with two workers running at the same time", async () => {
    const ids = await Promise.all(["a@example.com", "b@example.com", "c@example.com"].map(queue));
    const sent = await Promise.all([deliverDueMail(deps), deliverDueMail(deps)]);
    expect(sent[0] + sent[1]).toBe(3);
    expect(sink.received.map((mail) => mail.to[0]).sort()).toEqual(["a@example.com", "b@example.com", "c@example.com"]);
    expect(sink.received[0]?.from).toBe("shop@example.com");
    for (const { id } of ids) expect(await row(id)).toMatchObject({ status: "sent", attempts: 1, sent_at: NOW });
    expect(await deliverDueMail(deps)).toBe(0);
  });

  it("retries a rejected mail with backoff and gives up after MAX_ATTEMPTS", async () => {
    const { id } = await queue("d@example.com");
    sink.rejectWith = "mailbox busy";
    expect(await deliverDueMail(deps)).toBe(0);
    expect(await row(id)).toMatchObject({ status: "pending", attempts: 1, next_attempt_at: new Date(NOW.getTime() + retryDelayMs(1)) });
    expect((await row(id)).last_error).toContain("mailbox busy");
    expect(await deliverDueMail(deps)).toBe(0); // not due yet
    expect((await row(id)).attempts).toBe(1);

    for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt++) {
      clock.advance(retryDelayMs(attempt - 1));
      await deliverDueMail(deps);
    }
    expect(await row(id)).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS });
    sink.rejectWith = null;
    clock.advance(retryDelayMs(MAX_ATTEMPTS) * 2);
    expect(await deliverDueMail(deps)).toBe(0);
    expect(sink.received).toEqual([]);
  });

  it("takes over a mail whose sender died mid-send once the claim lease is over", async () => {
    const { id } = await queue("e@example.com");
    await testDb.database.prisma.mailOutbox.update({ where: { id }, data: { status: "sending", claimed_at: NOW } });
    expect(await deliverDueMail(deps)).toBe(0);
    clock.advance(5 * 60_000 + 1);
    expect(await deliverDueMail(deps)).toBe(1);
    expect(await row(id)).toMatchObject({ status: "sent" });
  });

  // Found by an audit of races: the lease was taken once for a whole batch, so a worker whose
  // batch took longer than the lease (a slow SMTP server: nodemailer waits up to 10 minutes on a
  // socket) had the rest of it taken over by another instance's worker, and then sent it too.
  it("sends the mails after one whose send outlasted the claim lease once: the worker that took them over sends them", async () => {
    const ids = await Promise.all(["g@example.com", "h@example.com", "i@example.com"].map(queue));
    let outlasting: string | undefined;
    const slow: MailTransport = {
      async send(message) {
        // The first send outlasts the lease, and another worker runs meanwhile.
        if (outlasting === undefined) {
          outlasting = message.to;
          clock.advance(5 * 60_000 + 1);
          await deliverDueMail(deps);
        }
        await deps.transport.send(message);
      },
      close() {},
    };
    await deliverDueMail({ ...deps, transport: slow });
    const sends = new Map<string, number>();
    for (const mail of sink.received) sends.set(mail.to[0] as string, (sends.get(mail.to[0] as string) ?? 0) + 1);
    // The one under way when its lease ran out went out twice (at-least-once); the others once.
    expect(sends).toEqual(new Map(["g@example.com", "h@example.com", "i@example.com"].map((to) => [to, to === outlasting ? 2 : 1])));
    for (const { id } of ids) expect(await row(id)).toMatchObject({ status: "sent" });
  });

  it("leaves a mail sent by the worker that took it over as sent when the send that outlasted the lease then fails", async () => {
    const { id } = await queue("j@example.com");
    const stalled: MailTransport = {
      async send() {
        clock.advance(5 * 60_000 + 1);
        expect(await deliverDueMail(deps)).toBe(1);
        throw new Error("Timeout");
      },
      close() {},
    };
    expect(await deliverDueMail({ ...deps, transport: stalled })).toBe(0);
    expect(await row(id)).toMatchObject({ status: "sent", attempts: 1, last_error: null });
    clock.advance(retryDelayMs(1));
    expect(await deliverDueMail(deps)).toBe(0);
    expect(sink.received.map((mail) => mail.to[0])).toEqual(["j@example.com"]);
  });

  it("runs on an interval until stopped", async () => {
    const { id } = await queue("f@example.com");
    const worker = startMailWorker({ ...deps, transport: smtpTransport(sink.url) }, 20);
    for (let waited = 0; sink.received.length === 0 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    await worker.stop();
    expect(sink.received.map((mail) => mail.to[0])).toEqual(["f@example.com"]);
    expect((await row(id)).status).toBe("sent");
  });
});
