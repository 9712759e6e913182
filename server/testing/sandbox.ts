import type { Kv } from '../infra/kv';
import { SandboxProvider } from '../modules/payments';
import { createTestApp, type TestApp } from './app';

/**
 * The whole app paid through the sandbox provider, as in development: checkouts it hosts, and
 * signed webhooks it delivers (each twice, in random order, after short random delays) through
 * the app's own HTTP stack. `connected` false makes deliveries fail like a dropped connection
 * (the sandbox retries); `delivered` sees every answer the app gave.
 */
export async function sandboxApp(
  kv: Kv,
  opts: {
    /** Signs the webhooks (a test signing its own needs it). */
    secret: string;
    env?: Record<string, string>;
    connected?: () => boolean;
    delivered?: (status: number, body: string) => void;
  },
): Promise<{ t: TestApp; sandbox: SandboxProvider }> {
  const { secret, env = {}, connected, delivered } = opts;
  let app: TestApp | null = null;
  const sandbox = new SandboxProvider(kv, {
    secret,
    publicBaseUrl: 'https://beamly.test',
    chaos: true,
    delayMs: [0, 30],
    retryMs: 5,
    deliver: async (body, headers) => {
      if (!app || connected?.() === false) throw new Error('connection reset');
      const res = await app.app.inject({
        method: 'POST',
        url: '/api/v1/payments/webhook/sandbox',
        payload: body,
        headers,
      });
      delivered?.(res.statusCode, res.body);
      return res.statusCode;
    },
  });
  app = await createTestApp({ kv, payments: sandbox }, { SANDBOX_PAY_SECRET: secret, ...env });
  return { t: app, sandbox };
}
