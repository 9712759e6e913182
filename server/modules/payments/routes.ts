import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { COIN_PACKAGES } from '../../../common/money';
import { AppError } from '../../../common/errors';
import { errorSchema, okSchema } from '../../http/envelope';
import { requestLocale } from '../../http/locale';
import { requireAuth } from '../auth';
import type { Kv } from '../../infra/kv';
import { enforceLimits, LIMITS } from '../../infra/ratelimit';
import type { Ledger } from '../ledger';
import { requireStaff } from '../staff';
import type { Db } from '../../db/client';
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
const person = { uid: z.number(), nickname: z.string(), short_id: z.string() };
const shortfall = z.object({
  order_id: z.string(),
  user: z.object(person),
  kind: z.enum(['refund', 'dispute']),
  /** Coins the reversals cover, taken back, and still owed (spent before the reversal). */
  coins: z.number(),
  taken: z.number(),
  owed: z.number(),
  created_at: z.date(),
});
const mismatch = z.object({
  order_id: z.string(),
  user: z.object(person),
  package_id: z.string(),
  coins: z.number(),
  expected_cents: z.number(),
  currency: z.string(),
  received_cents: z.number().nullable(),
  received_currency: z.string().nullable(),
  /** Why it is parked: another amount, or a payment another order was credited for. */
  reason: z.enum(['amount', 'payment_reused']),
  /** The payment reported ('payment_reused'), and the order credited for it. */
  received_payment: z.string().nullable(),
  credited_order_id: z.string().nullable(),
  provider: z.string(),
  created_at: z.date(),
});
/** Webhook bodies are small; anything bigger is not from a provider. */
const WEBHOOK_MAX_BYTES = 64 * 1024;

/**
 * Recharge (spec §2 payment app): packages, orders, and the providers' webhooks; and the staff's
 * view of payments to look at (open shortfalls, mismatched orders).
 */
export function paymentRoutes(deps: {
  payments: PaymentService;
  ledger: Ledger;
  kv: Kv;
  limitScale: number;
  db: Db;
  staffEmails: readonly string[];
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

    app.get(
      '/api/v1/staff/payments',
      {
        schema: {
          tags: ['staff'],
          summary:
            'Staff: open shortfalls of refunded or disputed recharges, and orders parked as mismatch: paid for another amount, or reported with a payment another order was credited for (newest first, 50 each)',
          response: {
            200: okSchema(z.object({ shortfalls: z.array(shortfall), mismatches: z.array(mismatch) })),
            ...errors,
          },
        },
      },
      async (req, reply) => {
        await requireStaff(req, deps.db, deps.staffEmails);
        void reply.header('cache-control', 'no-store');
        const r = await payments.staffReview();
        return {
          status: 200 as const,
          data: {
            shortfalls: r.shortfalls.map((s) => ({
              order_id: s.order_id,
              user: { uid: s.uid, nickname: s.nickname, short_id: s.short_id },
              kind: s.reason,
              coins: s.coins,
              taken: s.taken,
              owed: s.shortfall,
              created_at: s.created_at,
            })),
            mismatches: r.mismatches.map((m) => ({
              order_id: m.id,
              user: { uid: m.uid, nickname: m.nickname, short_id: m.short_id },
              package_id: m.package_id,
              coins: m.coins,
              expected_cents: m.amount_cents,
              currency: m.currency,
              received_cents: m.received_cents,
              received_currency: m.received_currency,
              reason: m.reason,
              received_payment: m.received_payment_ref,
              credited_order_id: m.holder_order_id,
              provider: m.provider,
              created_at: m.created_at,
            })),
          },
        };
      },
    );

    app.post(
      '/api/v1/staff/payments/:orderId/settle',
      {
        schema: {
          tags: ['staff'],
          summary:
            "Staff: mark a reversed recharge's shortfall settled (recovered or written off), which lifts the buyer's cash-out block",
          params: z.object({ orderId: z.string().max(64) }),
          response: { 200: okSchema(z.object({ ok: z.boolean() })), ...errors },
        },
      },
      async (req) => {
        const staff = await requireStaff(req, deps.db, deps.staffEmails);
        await payments.settleShortfall(req.params.orderId, staff);
        return { status: 200 as const, data: { ok: true } };
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
          // No JSON body (another content type, or none): nothing signed to check.
          if (!Buffer.isBuffer(req.body)) throw new AppError('bad_signature');
          await payments.webhook(req.body, req.headers);
          return { status: 200 as const, data: { received: true } };
        },
      );
    });
  };
}
