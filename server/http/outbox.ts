import type { FastifyInstance } from 'fastify';
import { BlockList, isIP } from 'node:net';
import type { Db } from '../db/client';
import { escapeHtml } from '../../common/html';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** 127.0.0.0/8 and ::1, also written as IPv4-mapped IPv6 (::ffff:127.0.0.1). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const plain = /^::ffff:/i.test(address) && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  const family = isIP(plain);
  return family !== 0 && LOOPBACK.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Development only: mail and SMS that no provider sent, newest first, with links clickable. A
 * developer's tool (not translated, not in production builds' routes). It shows every sign-up
 * code and reset link, so only this machine sees it: the socket's peer must be loopback, and so
 * must the client a trusted proxy on this machine names (req.ip); X-Forwarded-For from anyone
 * else is not read at all. Others get the same 404 as any unknown path.
 */
export function registerDevOutbox(app: FastifyInstance, db: Db): void {
  app.get('/dev/outbox', { schema: { hide: true } }, async (req, reply) => {
    if (!isLoopback(req.socket.remoteAddress) || !isLoopback(req.ip)) return reply.callNotFound();
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
