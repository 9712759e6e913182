import type { LightMyRequestResponse } from 'fastify';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../common/errors';
import { MemoryKv } from '../../infra/kv';
import { parseSmsUrl } from '../../infra/sms';
import { createTestApp, type TestApp } from '../../testing/app';
import { DESKTOP_SIGNALS, encryptPassword, riskToken } from '../../testing/auth';
import { phoneFromE164, phoneFromParts } from './phone';
import { FingerprintRiskProvider, scoreSignals } from './risk';

/** A Twilio-compatible SMS gateway on loopback: records what it is asked to send. */
interface Sent {
  path: string;
  auth: string;
  form: URLSearchParams;
}
let gateway: Server;
const sent: Sent[] = [];
let gatewayStatus = 201;

let t: TestApp;
const kv = new MemoryKv();
let pubkey = '';
const DEVICE = 'device-phone-0001';

beforeAll(async () => {
  gateway = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      sent.push({
        path: req.url ?? '',
        auth: req.headers.authorization ?? '',
        form: new URLSearchParams(body),
      });
      res.writeHead(gatewayStatus, { 'content-type': 'application/json' }).end('{"sid":"SM1"}');
    });
  });
  await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
  const port = (gateway.address() as AddressInfo).port;
  t = await createTestApp({ kv }, { SMS_URL: `twilio+http://AC42:s3cret@+15550001111/127.0.0.1:${port}` });
  pubkey = (await call('GET', '/api/v1/auth/public-key')).json<{ data: { pubkey: string } }>().data.pubkey;
});
afterAll(async () => {
  await t.close();
  await kv.close();
  await new Promise((r) => gateway.close(r));
});
beforeEach(() => {
  gatewayStatus = 201;
});

function call(method: 'GET' | 'POST', url: string, body?: object, headers: Record<string, string> = {}) {
  return t.app.inject({
    method,
    url,
    ...(body ? { payload: body } : {}),
    headers: { 'x-device-id': DEVICE, ...headers },
  });
}

async function captcha(): Promise<{ captcha_id: string; captcha: string }> {
  const { id } = (await call('GET', '/api/v1/auth/captcha')).json<{ data: { id: string } }>().data;
  return { captcha_id: id, captcha: (await kv.get(`captcha:${id}`)) ?? '' };
}

/** Asks for a code and reads it from what the gateway was given. */
async function sendCode(country: string, phone: string, type: 3 | 4, device = DEVICE): Promise<string> {
  const before = sent.length;
  const res = await call(
    'POST',
    '/api/v1/auth/sms-code',
    { country, phone, type, ...(await captcha()) },
    { 'x-device-id': device },
  );
  expect(res.json()).toMatchObject({ status: 200 });
  const text = sent[before]?.form.get('Body') ?? '';
  const code = /\b(\d{6})\b/.exec(text)?.[1];
  if (!code) throw new Error(`no code in ${text}`);
  return code;
}

async function session(access: LightMyRequestResponse) {
  return call('POST', '/api/v1/auth/session', {
    access_token: access.json<{ data: { access_token: string } }>().data.access_token,
    deviceid: DEVICE,
  });
}

describe('phone number rules (spec §5)', () => {
  it('joins the dial code after stripping leading zeros and checks the number', () => {
    expect(phoneFromParts('FR', '06 12 34 56 78', null)).toBe('+33612345678');
    expect(phoneFromParts('DE', '015112345678', 'DE')).toBe('+4915112345678');
    expect(phoneFromParts('US', '2015550123', null)).toBe('+12015550123');
    for (const [country, phone] of [
      ['FR', '06-12-34-5x-78'], // digits only
      ['FR', '123'],
      ['ZZ', '0612345678'], // no such country
      ['DE', '0301234567'], // a landline cannot receive the code
    ] as const) {
      expect(() => phoneFromParts(country, phone, null), `${country} ${phone}`).toThrow(AppError);
    }
    expect(phoneFromE164('+33612345678', 'FR')).toBe('+33612345678');
    expect(() => phoneFromE164('0612345678', 'FR')).toThrow(AppError);
  });

  it('refuses mainland China numbers when the visitor is in China or unknown', () => {
    const invalid = (visitor: string | null) => () => phoneFromParts('CN', '13812345678', visitor);
    expect(invalid(null)).toThrow(expect.objectContaining({ code: 12000 }) as Error);
    expect(invalid('CN')).toThrow(expect.objectContaining({ code: 12000 }) as Error);
    expect(phoneFromParts('CN', '13812345678', 'SG')).toBe('+8613812345678');
  });

  it('reads the SMS provider URL', () => {
    expect(parseSmsUrl('twilio://AC1:tok@+15550001111')).toEqual({
      base: 'https://api.twilio.com',
      sid: 'AC1',
      token: 'tok',
      from: '+15550001111',
    });
    expect(() => parseSmsUrl('smtp://x')).toThrow(/SMS_URL/);
  });
});

describe('visitor country', () => {
  it('comes from the CDN header; unknown answers US', async () => {
    expect((await call('GET', '/api/v1/geo/country', undefined, { 'cf-ipcountry': 'de' })).json()).toEqual({
      status: 200,
      data: { countryCode: 'DE', known: true },
    });
    for (const headers of [{}, { 'cf-ipcountry': 'XX' }, { 'cf-ipcountry': 'T1' }] as Record<
      string,
      string
    >[]) {
      expect((await call('GET', '/api/v1/geo/country', undefined, headers)).json()).toEqual({
        status: 200,
        data: { countryCode: 'US', known: false },
      });
    }
  });
});

describe('register by phone, sign in, forget by phone', () => {
  const password = 'phone pass 1';

  it('sends the code through the provider and registers with it; 12006 for a taken number', async () => {
    const code = await sendCode('FR', '0612345678', 4);
    const last = sent.at(-1);
    expect(last?.path).toBe('/2010-04-01/Accounts/AC42/Messages.json');
    expect(last?.auth).toBe(`Basic ${Buffer.from('AC42:s3cret').toString('base64')}`);
    expect(last?.form.get('To')).toBe('+33612345678');
    expect(last?.form.get('From')).toBe('+15550001111');

    const wrong = await call('POST', '/api/v1/auth/register/phone', {
      country: 'FR',
      phone: '0612345678',
      verify_pwd: encryptPassword(pubkey, password),
      verify_code: code === '000000' ? '111111' : '000000',
      risk_token: await riskToken(t.app, DEVICE),
    });
    expect(wrong.json()).toMatchObject({ code: 601, error: 'wrong_code', message: 'Wrong code' });

    const ok = await call('POST', '/api/v1/auth/register/phone', {
      country: 'FR',
      phone: '612345678',
      verify_pwd: encryptPassword(pubkey, password),
      verify_code: code,
      risk_token: await riskToken(t.app, DEVICE),
    });
    expect(ok.statusCode).toBe(200);
    const s = await session(ok);
    expect(s.json()).toMatchObject({ data: { user: { phone: '+33612345678', email: null } } });

    // Used once: the same code cannot register again, and the number is taken now.
    const again = await call('POST', '/api/v1/auth/sms-code', {
      country: 'FR',
      phone: '0612345678',
      type: 4,
      ...(await captcha()),
    });
    expect(again.json()).toMatchObject({ code: 12006, error: 'phone_exists' });
  });

  it('signs in with the number and password; account-exists knows the number', async () => {
    expect((await call('GET', '/api/v1/auth/exists?name=%2B33612345678')).json()).toMatchObject({
      data: { exists: true },
    });
    expect((await call('GET', '/api/v1/auth/exists?name=%2B33699999999')).json()).toMatchObject({
      data: { exists: false },
    });
    expect((await call('GET', '/api/v1/auth/exists?name=%2B3312')).json()).toMatchObject({ code: 12000 });
    const verify = await call('POST', '/api/v1/auth/verify-login', {
      name: '+33612345678',
      verify_pwd: encryptPassword(pubkey, password),
    });
    expect(verify.statusCode).toBe(200);
    expect((await session(verify)).statusCode).toBe(200);
  });

  it('holds the 60-second resend line and refuses a wrong captcha', async () => {
    await sendCode('DE', '015112345678', 4);
    const soon = await call('POST', '/api/v1/auth/sms-code', {
      country: 'DE',
      phone: '015112345678',
      type: 4,
      ...(await captcha()),
    });
    expect(soon.statusCode).toBe(429);
    const badCaptcha = await call('POST', '/api/v1/auth/sms-code', {
      country: 'DE',
      phone: '015112345679',
      type: 4,
      captcha_id: (await captcha()).captcha_id,
      captcha: 'nope',
    });
    expect(badCaptcha.json()).toMatchObject({ error: 'wrong_captcha' });
  });

  it('gives up on a code after five wrong tries', async () => {
    const code = await sendCode('US', '2015550123', 4);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const res = await call('POST', '/api/v1/auth/register/phone', {
        country: 'US',
        phone: '2015550123',
        verify_pwd: encryptPassword(pubkey, password),
        verify_code: wrong,
        risk_token: await riskToken(t.app, DEVICE),
      });
      expect(res.json()).toMatchObject({ code: 601 });
    }
    const right = await call('POST', '/api/v1/auth/register/phone', {
      country: 'US',
      phone: '2015550123',
      verify_pwd: encryptPassword(pubkey, password),
      verify_code: code,
      risk_token: await riskToken(t.app, DEVICE),
    });
    expect(right.json()).toMatchObject({ code: 601 });
  });

  it('forget by phone: code, then the new password signs in and ends other sessions', async () => {
    const old = await call('POST', '/api/v1/auth/verify-login', {
      name: '+33612345678',
      verify_pwd: encryptPassword(pubkey, password),
    });
    const oldSession = (await session(old)).json<{ data: { token: string } }>().data.token;
    const me = () => call('GET', '/api/v1/me', undefined, { authorization: `Bearer ${oldSession}` });
    expect((await me()).statusCode).toBe(200);

    expect(
      (
        await call('POST', '/api/v1/auth/sms-code', {
          country: 'FR',
          phone: '0699999999',
          type: 3,
          ...(await captcha()),
        })
      ).json(),
    ).toMatchObject({ error: 'not_registered' });
    const code = await sendCode('FR', '0612345678', 3);
    const verified = await call('POST', '/api/v1/auth/forgot/phone/verify', {
      country: 'FR',
      phone: '0612345678',
      verify_code: code,
    });
    const token = verified.json<{ data: { token: string } }>().data.token;
    const reset = await call('POST', '/api/v1/auth/reset/phone', {
      token,
      verify_pwd: encryptPassword(pubkey, 'brand new 2'),
    });
    expect(reset.statusCode).toBe(200);
    expect((await session(reset)).statusCode).toBe(200);
    expect((await me()).statusCode).toBe(401);
    const reused = await call('POST', '/api/v1/auth/reset/phone', {
      token,
      verify_pwd: encryptPassword(pubkey, 'another 3'),
    });
    expect(reused.json()).toMatchObject({ error: 'link_expired' });
    const oldPassword = await call('POST', '/api/v1/auth/verify-login', {
      name: '+33612345678',
      verify_pwd: encryptPassword(pubkey, password),
    });
    expect(oldPassword.json()).toMatchObject({ error: 'wrong_credentials' });
  });

  it('answers sms_failed when the provider fails, and lets the user retry at once', async () => {
    gatewayStatus = 500;
    const failed = await call('POST', '/api/v1/auth/sms-code', {
      country: 'MX',
      phone: '5512345678',
      type: 4,
      ...(await captcha()),
    });
    expect(failed.json()).toMatchObject({ code: 1109, error: 'sms_failed' });
    gatewayStatus = 201;
    await sendCode('MX', '5512345678', 4);
  });
});

describe('device risk token (spec §4)', () => {
  const RISK_DEVICE = 'device-phone-risk';
  const register = (risk_token: string | undefined, code = '000000') =>
    call(
      'POST',
      '/api/v1/auth/register/phone',
      {
        country: 'IN',
        phone: '9123456789',
        verify_pwd: encryptPassword(pubkey, 'risk test 1'),
        verify_code: code,
        ...(risk_token ? { risk_token } : {}),
      },
      { 'x-device-id': RISK_DEVICE },
    );

  it('refuses sign-up without a valid token for this device with tongdun_fail', async () => {
    expect((await register(undefined)).json()).toMatchObject({ code: 1110, error: 'tongdun_fail' });
    expect((await register('x'.repeat(43))).json()).toMatchObject({ error: 'tongdun_fail' });
    const other = await riskToken(t.app, 'device-someone-else');
    expect((await register(other)).json()).toMatchObject({ error: 'tongdun_fail' });
  });

  it('refuses forged or automated signals with risk_rejected', async () => {
    const forged = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/risk-token',
      payload: { signals: { ...DESKTOP_SIGNALS, webdriver: true, timeZone: 'Asia/Tokyo', tzOffset: 300 } },
      headers: { 'x-device-id': RISK_DEVICE, 'user-agent': 'curl/8.0' },
    });
    const token = forged.json<{ data: { risk_token: string } }>().data.risk_token;
    expect((await register(token)).json()).toMatchObject({ code: 1111, error: 'risk_rejected' });
  });

  it('uses each token once', async () => {
    const token = await riskToken(t.app, RISK_DEVICE);
    const code = await sendCode('IN', '9123456789', 4, RISK_DEVICE);
    expect((await register(token, code)).statusCode).toBe(200);
    const again = await call(
      'POST',
      '/api/v1/auth/register/email',
      {
        email: 'once@example.com',
        verify_pwd: encryptPassword(pubkey, 'risk test 1'),
        risk_token: token,
        ...(await captcha()),
      },
      { 'x-device-id': RISK_DEVICE },
    );
    expect(again.json()).toMatchObject({ error: 'tongdun_fail' });
  });

  it('limits sign-ups per device fingerprint', async () => {
    const provider = new FingerprintRiskProvider(new MemoryKv(), {
      rejectScore: 80,
      signupsPerDevicePerDay: 2,
      limitScale: 1,
    });
    const meta = { ip: '127.0.0.1', deviceId: RISK_DEVICE, userAgent: DESKTOP_SIGNALS.ua };
    const attempt = async () =>
      provider.check((await provider.issue(DESKTOP_SIGNALS, meta)).token, meta, 'register');
    await attempt();
    await attempt();
    await expect(attempt()).rejects.toMatchObject({ errorName: 'risk_rejected' });
    // Another device (another fingerprint) is not affected.
    const other = { ...DESKTOP_SIGNALS, screen: [1280, 800] as [number, number] };
    await provider.check((await provider.issue(other, meta)).token, meta, 'register');
  });

  it('scores what a real browser reports as harmless', () => {
    expect(scoreSignals(DESKTOP_SIGNALS, DESKTOP_SIGNALS.ua)).toEqual({ score: 0, reasons: [] });
    expect(
      scoreSignals({ ...DESKTOP_SIGNALS, timeZone: 'Asia/Tokyo', tzOffset: -540 }, undefined).reasons,
    ).not.toContain('tz_mismatch');
  });
});
