import nodemailer from "nodemailer";
import type { Logger } from "pino";

interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
}

/** Where the mail worker hands messages: SMTP in production, the log where none is configured. */
export interface MailTransport {
  send(message: OutgoingMail): Promise<void>;
  close(): void;
}

export function smtpTransport(smtpUrl: string): MailTransport {
  const transporter = nodemailer.createTransport(smtpUrl);
  return {
    async send(message) {
      await transporter.sendMail(message);
    },
    close() {
      transporter.close();
    },
  };
}

/** Without SMTP_URL delivery is a log line: development machines send no real mail. */
function loggingTransport(logger: Logger): MailTransport {
  return {
    async send(message) {
      logger.info({ mail: { to: message.to, subject: message.subject } }, "mail delivered to the log (SMTP_URL is not set)");
    },
    close() {},
  };
}

export function mailTransportFor(smtpUrl: string | undefined, logger: Logger): MailTransport {
  return smtpUrl ? smtpTransport(smtpUrl) : loggingTransport(logger);
}
