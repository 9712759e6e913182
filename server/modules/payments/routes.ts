import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { COIN_PACKAGES } from '../../../common/money';
import { errorSchema, okSchema } from '../../http/envelope';
import { requestLocale } from '../../http/locale';
import { requireAuth } from '../auth/context';
import type { Kv } from '../../infra/kv';
import { enforceLimits, LIMITS } from '../../infra/ratelimit';
import type { Ledger } from '../ledger/ledger';
import { ORDER_STATES } from './repo';
import type { PaymentService } from './service';

const errors = {
  400: errorSchema,
  401: errorSchema,
  403: errorSchema,
  404: errorSchema,
  409: errorSchema,
  502: errorSchema,
};
const order = z.object({
  id: z.string(),
  status: z.enum(ORDER_STATES),
  coins: z.number(),
  amount_cents: z.number(),
  currency: z.string(),
  created_at: z.date(),
});
/** Webhook bodies are small; anything bigger is not from a provider. */
const WEBHOOK_MAX_BYTES = 64 * 1024;

/** Recharge (spec §2 payment app): packages, orders, and the providers' webhooks. */
export function paymentRoutes(deps: {
  payments: PaymentService;
  ledger: Ledger;
  kv: Kv;
  limitScale: number;
}): FastifyPluginAsyncZod {
  const { payments } = deps;
  return async (app) => {
    app.get(
      '/api/v1/payments/packages',
      {
        schema: {
          tags: ['wallet'],
          summary: 'Coin packages, and whether the caller may recharge (a bound phone or e-mail, spec §6)',
          response: {
            200: okSchema(
              z.object({
                packages: z.array(z.object({ id: z.string(), coins: z.number(), cents: z.number() })),
                provider: z.enum(['sandbox', 'stripe']),
                contact_bound: z.boolean().nullable(),
                coins: z.number().nullable(),
              }),
            ),
          },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'no-store');
        const uid = req.auth?.uid;
        return {
          status: 200 as const,
          data: {
            packages: [...COIN_PACKAGES],
            provider: payments.provider.name,
            contact_bound: uid ? await payments.contactBound(uid) : null,
            coins: uid ? (await deps.ledger.balances(uid)).coin : null,
          },
        };
      },
    );

    app.post(
      '/api/v1/payments/orders',
      {
        schema: {
          tags: ['wallet'],
          summary:
            'Buy a coin package: answers the checkout to send the browser to. The same key, the same order',
          body: z.object({ package_id: z.string().max(32), key: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/) }),
          response: { 200: okSchema(z.object({ order, url: z.string() })), ...errors },
        },
      },
      async (req) => {
        const { uid } = requireAuth(req);
        await enforceLimits(deps.kv, [{ limit: LIMITS.orderUser, key: String(uid) }], deps.limitScale);
        const r = await payments.createOrder(
          uid,
          { packageId: req.body.package_id, key: req.body.key },
          requestLocale(req),
        );
        return { status: 200 as const, data: r };
      },
    );

    app.get(
      '/api/v1/payments/orders/:id',
      {
        schema: {
          tags: ['wallet'],
          summary:
            'An order as the payment app polls it on return (a pending one is checked at the provider)',
          params: z.object({ id: z.string().max(64) }),
          response: { 200: okSchema(z.object({ order, coins: z.number() })), ...errors },
        },
      },
      async (req, reply) => {
        const { uid } = requireAuth(req);
        void reply.header('cache-control', 'no-store');
        const o = await payments.order(uid, req.params.id);
        return { status: 200 as const, data: { order: o, coins: (await deps.ledger.balances(uid)).coin } };
      },
    );

    // Providers sign the exact bytes they send: the webhook keeps the raw body.
    await app.register(async (hooks) => {
      hooks.addContentTypeParser(
        'application/json',
        { parseAs: 'buffer', bodyLimit: WEBHOOK_MAX_BYTES },
        (_req, body, done) => {
          done(null, body);
        },
      );
      hooks.post(
        `/api/v1/payments/webhook/${payments.provider.name}`,
        {
          schema: {
            tags: ['wallet'],
            summary: "The payment provider's signed webhook (Stripe-Signature or sandbox-signature)",
            response: { 200: okSchema(z.object({ received: z.boolean() })), ...errors },
          },
        },
        async (req) => {
          await payments.webhook(req.body as Buffer, req.headers);
          return { status: 200 as const, data: { received: true } };
        },
      );
    });
  };
}
