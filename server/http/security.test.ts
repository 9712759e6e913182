import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { createTestApp, type TestApp } from '../testing/app';
import { API_CSP, PERMISSIONS_POLICY, registerSecurityHeaders } from './security';

// Issue 16, item 7: Content-Security-Policy, Permissions-Policy and HSTS; /metrics behind a token;
// request bodies that never finish arriving are cut off.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { METRICS_TOKEN: 'metrics-token-for-tests' });
});
afterAll(async () => {
  await t.close();
});

/** The CSP's script-src sources. */
function scriptSources(csp: string | undefined): string[] {
  const directive = (csp ?? '').split(';').find((d) => d.trim().startsWith('script-src'));
  return directive?.trim().split(/\s+/).slice(1) ?? [];
}

/** Each executable inline script of a page (JSON data blocks do not run and need no source). */
function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/g)]
    .filter(([, attrs = '']) => !/\ssrc=/.test(attrs) && !/type="application\/json"/.test(attrs))
    .map(([, , body = '']) => body);
}

describe('Content-Security-Policy', () => {
  it("allows each page's inline script by its hash, and nothing else inline", async () => {
    for (const url of [
      '/en',
      '/ar/safety',
      '/en/search?q=x',
      '/en/v/nothing00000',
      '/en/studio',
      '/en/wallet',
    ]) {
      const res = await t.app.inject({ url });
      const csp = res.headers['content-security-policy'];
      const sources = scriptSources(csp);
      expect(sources, url).not.toContain("'unsafe-inline'");
      const scripts = inlineScripts(res.body);
      expect(scripts.length, url).toBeGreaterThan(0);
      for (const script of scripts) {
        const hash = `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
        expect(sources, url).toContain(hash);
      }
      expect(csp).toContain("object-src 'none'");
      expect(csp).toContain("frame-ancestors 'self'");
    }
  });

  it('covers the payment app and the sandbox checkout, which run no inline script', async () => {
    for (const url of ['/app/pay/dist/index.html', '/app/neww/dist/index.html', '/sandbox-pay/nothing']) {
      const res = await t.app.inject({ url });
      expect(res.headers['content-security-policy'], url).toBeDefined();
      expect(inlineScripts(res.body), url).toEqual([]);
    }
  });
});

describe("the API's answers", () => {
  it("load and run nothing and cannot be framed, without the pages' 700 bytes of policy", async () => {
    for (const url of ['/api/v1/explore', '/api/v1/search?q=nova', '/api/v1/no/such/route']) {
      const res = await t.app.inject({ url });
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
      expect(res.headers['content-security-policy'], url).toBe(API_CSP);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['permissions-policy'], url).toBeUndefined();
    }
    // A page on the same site keeps its own.
    const page = await t.app.inject({ url: '/en/explore' });
    expect(page.headers['content-security-policy']).toContain('script-src');
    expect(page.headers['permissions-policy']).toBe(PERMISSIONS_POLICY);
  });
});

describe('Permissions-Policy and HSTS', () => {
  it('lets this origin use the camera and microphone, and no one use what the site never needs', async () => {
    const res = await t.app.inject({ url: '/en/studio' });
    const policy = String(res.headers['permissions-policy']);
    expect(policy).toContain('camera=(self)');
    expect(policy).toContain('microphone=(self)');
    expect(policy).toContain('geolocation=()');
    // A test site at an https address is not a public one: no HSTS.
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('tells browsers to use HTTPS only on a public site at an https address', async () => {
    const online = {
      APP_ENV: 'online',
      DATABASE_URL: 'postgres://db.example/beamly',
      SMTP_URL: 'smtp://mail.example',
      SMS_URL: 'twilio://sid:token@+15550001111',
      PAYMENT_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_x',
      STRIPE_WEBHOOK_SECRET: 'whsec_x',
      METRICS_TOKEN: 'a-long-metrics-token',
    };
    for (const [base, hsts] of [
      ['https://beamly.example', 'max-age=31536000'],
      ['http://beamly.example', undefined],
    ] as const) {
      const app = Fastify();
      registerSecurityHeaders(app, loadConfig({ ...online, PUBLIC_BASE_URL: base }));
      app.get('/', async () => 'ok');
      app.get('/json', async () => ({ ok: true }));
      expect((await app.inject({ url: '/' })).headers['strict-transport-security'], base).toBe(hsts);
      expect((await app.inject({ url: '/json' })).headers['strict-transport-security'], base).toBe(hsts);
      await app.close();
    }
  });
});

describe('/metrics', () => {
  it('answers only the configured bearer token', async () => {
    expect((await t.app.inject({ url: '/metrics' })).statusCode).toBe(404);
    const wrong = await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer nope' } });
    expect(wrong.statusCode).toBe(404);
    const right = await t.app.inject({
      url: '/metrics',
      headers: { authorization: 'Bearer metrics-token-for-tests' },
    });
    expect(right.statusCode).toBe(200);
    expect(right.body).toContain('http_request_duration_seconds');
  });

  it('needs a token to start online or gray', () => {
    expect(() =>
      loadConfig({
        APP_ENV: 'gray',
        DATABASE_URL: 'postgres://db.example/beamly',
        PUBLIC_BASE_URL: 'https://beamly.example',
        SMTP_URL: 'smtp://mail.example',
        SMS_URL: 'twilio://sid:token@+15550001111',
        PAYMENT_PROVIDER: 'stripe',
        STRIPE_SECRET_KEY: 'sk_test_x',
        STRIPE_WEBHOOK_SECRET: 'whsec_x',
      }),
    ).toThrow(/METRICS_TOKEN/);
  });
});

describe('request timeouts', () => {
  it('cut off a body that never finishes arriving, and leave WebSockets open', async () => {
    const slow = await createTestApp({}, { REQUEST_TIMEOUT_SECONDS: '1', HEADERS_TIMEOUT_SECONDS: '0.5' });
    const sockets: { destroy(): void }[] = [];
    try {
      await slow.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = slow.app.server.address() as AddressInfo;
      // A WebSocket opened first: still open after the slow request was cut off.
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
      sockets.push({ destroy: () => ws.terminate() });
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      const socket = connect(port, '127.0.0.1');
      sockets.push(socket);
      let answer = '';
      socket.on('data', (d: Buffer) => (answer += d.toString()));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write(
        'POST /api/v1/client-errors HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"mess',
      );
      // Bounded: a request that is never cut off fails here instead of hanging the suite.
      const cutOff = await Promise.race([
        closed.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 30_000)),
      ]);
      expect(cutOff).toBe(true);
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(ws.readyState).toBe(WebSocket.OPEN);
      const pong = new Promise<void>((resolve) => ws.once('message', () => resolve()));
      ws.send(JSON.stringify({ t: 'ping' }));
      await pong;
    } finally {
      for (const s of sockets) s.destroy();
      await slow.close();
    }
  }, 60_000);
});
