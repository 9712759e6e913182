import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKv } from '../../infra/kv';
import { createTestApp, type TestApp } from '../../testing/app';
import { DESKTOP_SIGNALS, encryptPassword, riskToken } from '../../testing/auth';
import { emailDomain, SignupLimits } from './signup-limits';

// Limits that hold whatever the client claims: every request below comes from a new device id
// with a new canvas hash (so a new fingerprint and a risk token that passes), as the attacker's did.
let t: TestApp;
const kv = new MemoryKv();
let pubkey = '';

beforeAll(async () => {
  t = await createTestApp(
    { kv },
    {
      SIGNUP_PER_IP_PREFIX: '3',
      SIGNUP_PER_EMAIL_DOMAIN: '4',
      SIGNUP_GLOBAL: '14',
      SMS_PER_IP_PREFIX: '3',
      SMS_GLOBAL: '6',
    },
  );
  pubkey = (await t.app.inject({ url: '/api/v1/auth/public-key' })).json<{ data: { pubkey: string } }>().data
    .pubkey;
});
afterAll(async () => {
  await t.close();
  await kv.close();
});

/** A device nobody has seen: a fresh id and a fresh canvas hash, so a fresh fingerprint. */
async function freshDevice(): Promise<{ id: string; token: string }> {
  const id = `dev-${randomBytes(8).toString('hex')}`;
  const token = await riskToken(t.app, id, { ...DESKTOP_SIGNALS, canvas: randomBytes(32).toString('hex') });
  return { id, token };
}

async function captcha(ip: string): Promise<{ captcha_id: string; captcha: string }> {
  const res = await t.app.inject({ url: '/api/v1/auth/captcha', remoteAddress: ip });
  const { id } = res.json<{ data: { id: string } }>().data;
  return { captcha_id: id, captcha: (await kv.get(`captcha:${id}`)) ?? '' };
}

async function registerEmail(email: string, ip: string): Promise<LightMyRequestResponse> {
  const device = await freshDevice();
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/register/email',
    remoteAddress: ip,
    headers: { 'x-device-id': device.id },
    payload: {
      email,
      verify_pwd: encryptPassword(pubkey, 'limits pass 1'),
      risk_token: device.token,
      ...(await captcha(ip)),
    },
  });
}

async function smsCode(phone: string, ip: string): Promise<LightMyRequestResponse> {
  const device = await freshDevice();
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/sms-code',
    remoteAddress: ip,
    headers: { 'x-device-id': device.id },
    payload: { country: 'FR', phone, type: 4, ...(await captcha(ip)) },
  });
}

const errorOf = (res: LightMyRequestResponse) => res.json<{ error?: string }>().error;

async function metric(name: string, labels: string): Promise<number> {
  const text = (await t.app.inject({ url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

let mail = 0;
const address = (domain: string) => `person${++mail}@${domain}`;

describe('prefixes and domains', () => {
  it('an e-mail domain counts in lower case, without a trailing dot', () => {
    expect(emailDomain('Lena@Example.COM.')).toBe('example.com');
  });

  it('a refusal is logged with the limit and counted', async () => {
    const logged: unknown[] = [];
    const tripped: string[] = [];
    const limits = new SignupLimits(
      new MemoryKv(),
      { signupPerPrefix: 1, signupPerDomain: 9, signupGlobal: 9, smsPerPrefix: 9, smsGlobal: 9, scale: 1 },
      { tripped: (l) => tripped.push(l), passed: () => undefined },
      (msg, detail) => logged.push({ msg, ...detail }),
    );
    await limits.signupAttempt('198.51.100.1');
    await expect(limits.signupAttempt('198.51.100.2')).rejects.toMatchObject({
      errorName: 'too_many_requests',
    });
    expect(tripped).toEqual(['signup:ip_prefix']);
    expect(logged).toEqual([
      { msg: 'sign-up limit reached', limit: 'signup:ip_prefix', key: '198.51.100.0/24', count: 2, max: 1 },
    ]);
  });
});

describe('sign-up limits that do not trust the client', () => {
  it('per IPv4 /24: a fourth sign-up from the same network is refused, whatever the device', async () => {
    const before = await metric('auth_limit_trips_total', 'limit="signup:ip_prefix"');
    for (const host of [10, 11, 12])
      expect((await registerEmail(address('a.test'), `198.51.100.${host}`)).statusCode).toBe(200);
    const fourth = await registerEmail(address('b.test'), '198.51.100.13');
    expect([fourth.statusCode, errorOf(fourth)]).toEqual([429, 'too_many_requests']);
    // Another network is not affected.
    expect((await registerEmail(address('b.test'), '198.51.101.10')).statusCode).toBe(200);
    expect(await metric('auth_limit_trips_total', 'limit="signup:ip_prefix"')).toBe(before + 1);
  });

  it('per IPv6 /64: addresses inside one /64 share a count', async () => {
    for (const ip of ['2001:db8:7:7::1', '2001:db8:7:7:ffff:1:2:3', '2001:0db8:0007:0007:abcd::9'])
      expect((await registerEmail(address('c.test'), ip)).statusCode).toBe(200);
    const fourth = await registerEmail(address('c2.test'), '2001:db8:7:7:8:8:8:8');
    expect(fourth.statusCode).toBe(429);
    expect((await registerEmail(address('c2.test'), '2001:db8:7:8::1')).statusCode).toBe(200);
  });

  it('per e-mail domain: the fifth address at one domain is refused from any network', async () => {
    for (let i = 0; i < 4; i++)
      expect((await registerEmail(address('catchall.test'), `192.0.${10 + i}.1`)).statusCode).toBe(200);
    const fifth = await registerEmail(address('CatchAll.test'), '203.0.113.50');
    expect([fifth.statusCode, errorOf(fifth)]).toEqual([429, 'too_many_requests']);
    expect(await metric('auth_limit_trips_total', 'limit="signup:email_domain"')).toBe(1);
  });

  it('site-wide: sign-ups beyond the hour’s budget are refused, and /metrics shows the budget used', async () => {
    // The tests above created 12 accounts; the budget is 14.
    expect(await metric('auth_limited_actions_total', 'action="signup"')).toBe(12);
    const results: number[] = [];
    for (let i = 0; i < 3; i++)
      results.push((await registerEmail(address(`global${i}.test`), `100.64.${i}.1`)).statusCode);
    expect(results).toEqual([200, 200, 429]);
    expect(await metric('auth_limited_actions_total', 'action="signup"')).toBe(14);
    expect(await metric('auth_global_budget_used_ratio', 'action="signup"')).toBe(1);
    expect(await metric('auth_limit_trips_total', 'limit="signup:global"')).toBe(1);
  });
});

describe('SMS limits that do not trust the client', () => {
  it('per /24, then site-wide', async () => {
    for (const [i, host] of [1, 2, 3].entries())
      expect((await smsCode(`61234567${i}`, `198.18.0.${host}`)).statusCode).toBe(200);
    const fourth = await smsCode('612345679', '198.18.0.4');
    expect([fourth.statusCode, errorOf(fourth)]).toEqual([429, 'too_many_requests']);
    expect(await metric('auth_limit_trips_total', 'limit="sms:ip_prefix"')).toBe(1);

    for (const [i, net] of [1, 2, 3].entries())
      expect((await smsCode(`61234568${i}`, `198.19.${net}.1`)).statusCode).toBe(200);
    const seventh = await smsCode('612345689', '198.19.9.1');
    expect([seventh.statusCode, errorOf(seventh)]).toEqual([429, 'too_many_requests']);
    expect(await metric('auth_limit_trips_total', 'limit="sms:global"')).toBe(1);
    expect(await metric('auth_global_budget_used_ratio', 'action="sms"')).toBe(1);
  });
});
