import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeedbackListAnswer } from '../../../common/api/feedback';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { signedInPerson } from '../../testing/auth';
import { FEEDBACK_LIMITS } from './service';
import { staffSignIn } from '../../testing/staff';

// The feedback form's endpoint on PostgreSQL through HTTP: what is kept (text, contact, page,
// language, build, browser; a re-encoded screenshot), what is refused, the limits, and the staff's
// inbox, which only staff may read.
const UA = 'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/156.0 Mobile Safari/537.36';
let t: TestApp;
let kv: MemoryKv;
let staff: { headers: Record<string, string>; uid: number };
let person: { headers: Record<string, string>; shortId: string };
let device = 0;

beforeAll(async () => {
  kv = new MemoryKv();
  t = await createTestApp({ kv }, { STAFF_EMAILS: 'feedback-staff@example.com' });
  staff = await signedInPerson(t, kv, 'feedback-staff@example.com');
  await staffSignIn(t, staff);
  person = await signedInPerson(t, kv, 'feedback-person@example.com');
});
afterAll(async () => {
  await t.close();
});

/** Each call from its own browser and address unless told otherwise (the limits have their own test). */
function send(
  payload: object,
  headers: Record<string, string> = {},
  ip = `10.9.${device >> 8}.${device & 255}`,
) {
  device++;
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/feedback',
    remoteAddress: ip,
    headers: { 'user-agent': UA, 'x-device-id': `feedback-device-${device}`, ...headers },
    payload: {
      category: 'bug',
      text: 'The gift tray does not open',
      locale: 'en',
      page: '/en/v/abc',
      ...payload,
    },
  });
}

async function inbox(query = ''): Promise<FeedbackListAnswer> {
  const res = await t.app.inject({ url: `/api/v1/staff/feedback${query}`, headers: staff.headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: FeedbackListAnswer }>().data;
}

describe('POST /api/v1/feedback', () => {
  it('keeps a visitor’s message with its page, language, build and browser, cleaned', async () => {
    const res = await send({
      category: 'idea',
      text: '  Dark mode, please!\u202e\nAnd bigger chat text.  ',
      contact: ' reader@example.com ',
      locale: 'ar',
      page: '/ar/explore?tab=new',
      appVersion: 'build-123',
    });
    expect(res.statusCode, res.body).toBe(200);
    const { id } = res.json<{ data: { id: number } }>().data;
    const item = (await inbox()).list.find((f) => f.id === id);
    expect(item).toMatchObject({
      category: 'idea',
      text: 'Dark mode, please!\nAnd bigger chat text.',
      contact: 'reader@example.com',
      page: '/ar/explore?tab=new',
      locale: 'ar',
      app_version: 'build-123',
      browser: UA,
      short_id: null,
      screenshot: null,
    });
  });

  it('names the signed-in sender for staff', async () => {
    const res = await send({ text: 'Signed in' }, person.headers);
    expect(res.statusCode, res.body).toBe(200);
    const { id } = res.json<{ data: { id: number } }>().data;
    expect((await inbox()).list.find((f) => f.id === id)?.short_id).toBe(person.shortId);
  });

  it('counts characters as people do: 1,000 emoji pass, 1,001 do not, nor an empty text', async () => {
    const family = '👨‍👩‍👧';
    expect((await send({ text: family.repeat(1000) })).statusCode).toBe(200);
    const long = await send({ text: family.repeat(1001) });
    expect(long.statusCode).toBe(400);
    expect(long.json<{ error: string }>().error).toBe('validation_failed');
    // Only invisible characters: empty once cleaned.
    expect((await send({ text: '\u200b\u2060 ' })).statusCode).toBe(400);
    expect((await send({ text: 'x', contact: 'c'.repeat(101) })).statusCode).toBe(400);
    expect((await send({ text: 'x', category: 'rant' })).statusCode).toBe(400);
    // The page is a path of this site, not a link elsewhere.
    expect((await send({ text: 'x', page: 'https://evil.example/' })).statusCode).toBe(400);
    expect((await send({ text: 'x', page: '//evil.example/' })).statusCode).toBe(400);
  });

  it('keeps a screenshot re-encoded as a WebP of at most 1600 px, for staff only', async () => {
    const png = await sharp({
      create: { width: 2400, height: 1200, channels: 3, background: { r: 200, g: 30, b: 90 } },
    })
      .png()
      .withMetadata({ exif: { IFD0: { Artist: 'someone private' } } })
      .toBuffer();
    const res = await send({ text: 'With a picture', screenshot: png.toString('base64') });
    expect(res.statusCode, res.body).toBe(200);
    const { id } = res.json<{ data: { id: number } }>().data;
    const item = (await inbox()).list.find((f) => f.id === id);
    expect(item?.screenshot).toBe(`/api/v1/staff/feedback/${id}/screenshot`);
    const shot = await t.app.inject({ url: item?.screenshot ?? '', headers: staff.headers });
    expect(shot.statusCode).toBe(200);
    expect(shot.headers['content-type']).toBe('image/webp');
    expect(shot.headers['cache-control']).toBe('private, no-store');
    const meta = await sharp(shot.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height, meta.exif]).toEqual(['webp', 1600, 800, undefined]);
    // Not for the sender, nor anyone else who is not staff.
    expect((await t.app.inject({ url: item?.screenshot ?? '', headers: person.headers })).statusCode).toBe(
      403,
    );
    expect((await t.app.inject({ url: item?.screenshot ?? '' })).statusCode).toBe(401);
  });

  it('refuses what is not an image, and images over 5 MB', async () => {
    const text = await send({
      text: 'x',
      screenshot: Buffer.from('not a picture at all').toString('base64'),
    });
    expect(text.statusCode).toBe(400);
    expect(text.json<{ details?: { field?: string } }>().details?.field).toBe('screenshot');
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
    expect((await send({ text: 'x', screenshot: svg.toString('base64') })).statusCode).toBe(400);
    const huge = Buffer.alloc(5 * 1024 * 1024 + 10, 1).toString('base64');
    expect((await send({ text: 'x', screenshot: huge })).statusCode).toBe(413);
  });

  it('limits one browser to five an hour, and one address to twenty', async () => {
    const headers = { 'x-device-id': 'feedback-one-browser' };
    for (let i = 0; i < FEEDBACK_LIMITS.device.max; i++)
      expect((await send({ text: `n${i}` }, headers, `10.20.0.${i}`)).statusCode).toBe(200);
    const refused = await send({ text: 'one more' }, headers, '10.20.0.99');
    expect(refused.statusCode).toBe(429);
    expect(refused.json<{ error: string }>().error).toBe('too_many_requests');
    for (let i = 0; i < FEEDBACK_LIMITS.ip.max; i++)
      expect((await send({ text: `ip${i}` }, {}, '10.30.0.1')).statusCode).toBe(200);
    expect((await send({ text: 'ip over' }, {}, '10.30.0.1')).statusCode).toBe(429);
  });
});

describe('GET /api/v1/staff/feedback', () => {
  it('pages newest first, filters by category, and is for staff only', async () => {
    for (let i = 0; i < 50; i++)
      expect((await send({ category: 'other', text: `o ${i}` })).statusCode).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await send({ category: 'payment', text: `pay ${i}` })).statusCode).toBe(200);
    const payments = await inbox('?category=payment');
    expect(payments.list.map((f) => f.text)).toEqual(['pay 2', 'pay 1', 'pay 0']);
    const all = await inbox();
    expect(all.list.length).toBe(50);
    expect(all.next).toBe(all.list.at(-1)?.id);
    const next = await inbox(`?before=${all.next}`);
    expect(next.list.every((f) => f.id < (all.next ?? 0))).toBe(true);
    expect((await t.app.inject({ url: '/api/v1/staff/feedback', headers: person.headers })).statusCode).toBe(
      403,
    );
    expect((await t.app.inject({ url: '/api/v1/staff/feedback' })).statusCode).toBe(401);
  });
});
