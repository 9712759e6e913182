import nodemailer, { type Transporter } from 'nodemailer';
import type { Db } from '../db/client';

export interface Message {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends mail over SMTP, or keeps it in the outbox table when no SMTP server is configured. */
export interface Mailer {
  send(message: Message): Promise<void>;
  readonly kind: 'smtp' | 'outbox';
  close(): void;
}

export function createMailer(opts: { smtpUrl: string | undefined; from: string; db: Db }): Mailer {
  if (!opts.smtpUrl) {
    return {
      kind: 'outbox',
      async send(m) {
        await opts.db.query(
          "INSERT INTO outbox (channel, recipient, subject, body) VALUES ('mail', $1, $2, $3)",
          [m.to, m.subject, m.text],
        );
      },
      close() {
        // nothing held
      },
    };
  }
  const transport: Transporter = nodemailer.createTransport(opts.smtpUrl);
  return {
    kind: 'smtp',
    async send(m) {
      await transport.sendMail({ from: opts.from, to: m.to, subject: m.subject, text: m.text, html: m.html });
    },
    close() {
      transport.close();
    },
  };
}
