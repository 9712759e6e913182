import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/client';
import { escapeHtml } from '../../ssr/document';

/**
 * Development only: mail and SMS that no provider sent, newest first, with links clickable. A
 * developer's tool (not translated, not in production builds' routes).
 */
export function registerDevOutbox(app: FastifyInstance, db: Db): void {
  app.get('/dev/outbox', { schema: { hide: true } }, async (_req, reply) => {
    const rows = await db.query<{
      id: number;
      channel: string;
      recipient: string;
      subject: string;
      body: string;
      created_at: Date;
    }>('SELECT id, channel, recipient, subject, body, created_at FROM outbox ORDER BY id DESC LIMIT 50');
    const items = rows
      .map((r) => {
        const body = escapeHtml(r.body).replace(/(https?:\/\/[^\s<]+)/g, '<a href="$1">$1</a>');
        return `<article><h2>${escapeHtml(r.subject)}</h2><p><b>${r.channel}</b> to ${escapeHtml(r.recipient)} · ${new Date(r.created_at).toISOString()}</p><pre>${body}</pre></article>`;
      })
      .join('');
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Dev outbox</title>` +
          `<style>body{font:15px/1.5 system-ui;max-width:760px;margin:2rem auto;padding:0 1rem}article{border-bottom:1px solid #ddd;padding:1rem 0}pre{white-space:pre-wrap}</style></head>` +
          `<body><h1>Development outbox</h1><p>Mail and SMS that were not sent because no provider is configured.</p>${items || '<p>Empty.</p>'}</body></html>`,
      );
  });
}
