import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../infra/kv';
import { createTestApp, type TestApp } from '../testing/app';
import { encryptPassword, riskToken } from '../testing/auth';

const kv = new MemoryKv();
let dev: TestApp;
beforeAll(async () => {
  dev = await createTestApp({ kv }, { APP_ENV: 'development' });
});
afterAll(async () => {
  await dev.close();
  await kv.close();
});

describe('development outbox', () => {
  it('keeps unsent mail and shows it at /dev/outbox with the link', async () => {
    const pubkey = (await dev.app.inject({ url: '/api/v1/auth/public-key' })).json<{
      data: { pubkey: string };
    }>().data.pubkey;
    const { id } = (await dev.app.inject({ url: '/api/v1/auth/captcha' })).json<{ data: { id: string } }>()
      .data;
    const res = await dev.app.inject({
      method: 'POST',
      url: '/api/v1/auth/register/email',
      headers: { 'x-device-id': 'device-dev-0001' },
      payload: {
        risk_token: await riskToken(dev.app, 'device-dev-0001'),
        email: 'dev@example.com',
        verify_pwd: encryptPassword(pubkey, 'devpass1'),
        captcha_id: id,
        captcha: (await kv.get(`captcha:${id}`)) ?? '',
      },
    });
    expect(res.statusCode).toBe(200);
    const page = await dev.app.inject({ url: '/dev/outbox' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('dev@example.com');
    expect(page.body).toMatch(/<a href="https:\/\/beamly\.test\/en\/activate\/[A-Za-z0-9_-]+">/);
  });

  it('keeps unsent SMS codes too', async () => {
    const { id } = (await dev.app.inject({ url: '/api/v1/auth/captcha' })).json<{ data: { id: string } }>()
      .data;
    const res = await dev.app.inject({
      method: 'POST',
      url: '/api/v1/auth/sms-code',
      payload: {
        country: 'FR',
        phone: '06 12 34 56 78',
        type: 4,
        captcha_id: id,
        captcha: (await kv.get(`captcha:${id}`)) ?? '',
      },
    });
    expect(res.json()).toMatchObject({ status: 200, data: { phone: '+33612345678', resend_in: 60 } });
    const page = await dev.app.inject({ url: '/dev/outbox' });
    expect(page.body).toContain('+33612345678');
    expect(page.body).toMatch(/verification code is \d{6}/);
  });

  it('is shown only to this machine (the socket’s address, not a forwarded one)', async () => {
    const from = (remoteAddress: string, headers: Record<string, string> = {}) =>
      dev.app.inject({ url: '/dev/outbox', remoteAddress, headers });
    expect((await from('203.0.113.5')).statusCode).toBe(404);
    expect((await from('203.0.113.5', { 'x-forwarded-for': '127.0.0.1' })).statusCode).toBe(404);
    expect((await from('2001:db8::5')).statusCode).toBe(404);
    expect((await from('127.0.0.1')).statusCode).toBe(200);
    expect((await from('::1')).statusCode).toBe(200);
    // Behind a proxy on this machine, the client it names is who is asking.
    const proxied = await createTestApp({ kv }, { APP_ENV: 'development', TRUST_PROXY_HOPS: '1' });
    try {
      const res = await proxied.app.inject({
        url: '/dev/outbox',
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': '203.0.113.5' },
      });
      expect(res.statusCode).toBe(404);
    } finally {
      await proxied.close();
    }
  });

  it('does not exist outside development', async () => {
    const other = await createTestApp();
    try {
      expect((await other.app.inject({ url: '/dev/outbox' })).statusCode).toBe(404);
    } finally {
      await other.close();
    }
  });
});
