import Fastify from 'fastify';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AccessLog, type AccessLogOptions } from './access-log';

/** An app logging through AccessLog into an array of parsed lines. */
async function app(opts: Omit<AccessLogOptions, 'debug'> & { level?: string }) {
  const lines: { level: number; msg: string; res?: { statusCode: number } }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
      done();
    },
  });
  const level = opts.level ?? 'info';
  const f = Fastify({
    logger: { level, stream },
    logController: new AccessLog({ ...opts, debug: level === 'debug' }),
  });
  f.get('/ok', async () => 'ok');
  f.get('/fail', async () => {
    throw new Error('boom');
  });
  f.get('/slow', async () => {
    await new Promise((r) => setTimeout(r, 400));
    return 'slow';
  });
  await f.ready();
  return { f, lines };
}

describe('the access log', () => {
  it('logs server errors and slow answers always, ordinary ones up to a budget a second', async () => {
    let now = 10_000;
    // Slow is 250 ms and the slow route takes 400: an ordinary answer on a busy machine (another
    // suite's load) stays well under it, which a 20 ms line once did not.
    const { f, lines } = await app({ perSecond: 2, slowMs: 250, now: () => now });
    for (let i = 0; i < 5; i++) await f.inject('/ok');
    expect(lines.length).toBe(2);
    await f.inject('/fail');
    await f.inject('/slow');
    now += 1000;
    await f.inject('/ok');
    expect(lines.map((l) => [l.level, l.msg, l.res?.statusCode])).toEqual([
      [30, 'request completed', 200],
      [30, 'request completed', 200],
      [50, 'boom', 500],
      [50, 'request errored', 500],
      [40, 'slow request', 200],
      [30, 'request completed', 200],
    ]);
  });

  it('logs every request at debug', async () => {
    const { f, lines } = await app({ perSecond: 0, slowMs: 1000, level: 'debug' });
    await f.inject('/ok');
    expect(lines.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
  });
});
