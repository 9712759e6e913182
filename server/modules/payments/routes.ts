import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { okSchema } from '../../../common/api/envelope';
import {
  orderAnswer,
  orderBody,
  orderParams,
  packagesAnswer,
  paymentErrors as errors,
  polledOrderAnswer,
  refundAnswer,
  settleAnswer,
  settleBody,
  settleParams,
  staffPaymentsAnswer,
  staffOrdersAnswer,
  staffOrdersQuery,
  refundBody,
  webhookAnswer,
} from '../../../common/api/payments';
import { COIN_PACKAGES } from '../../../common/money';
import { AppError } from '../../../common/errors';
import { requestLocale } from '../../http/locale';
import { requireAuth } from '../auth';
import type { Kv } from '../../infra/kv';
import { enforceLimits, LIMITS } from '../../infra/ratelimit';
import type { Ledger } from '../ledger';
import type { StaffGuard } from '../staff';
import type { PaymentService } from './service';

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
  staff: StaffGuard;
}): FastifyPluginAsyncZod {
  const { payments } = deps;
  return async (app) => {
    app.get(
      '/api/v1/payments/packages',
      {
        schema: {
          tags: ['wallet'],
          summary: 'Coin packages, and whether the caller may recharge (a bound phone or e-mail, spec §6)',
          response: { 200: okSchema(packagesAnswer) },
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
          body: orderBody,
          response: { 200: okSchema(orderAnswer), ...errors },
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
          params: orderParams,
          response: { 200: okSchema(polledOrderAnswer), ...errors },
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
          response: { 200: okSchema(staffPaymentsAnswer), ...errors },
        },
      },
      async (req, reply) => {
        await deps.staff.require(req, 'money.review');
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

    app.get(
      '/api/v1/staff/orders',
      {
        schema: {
          tags: ['staff'],
          summary:
            "Staff: a recharge by its order id, or a buyer's recharges by their short id (newest first)",
          querystring: staffOrdersQuery,
          response: { 200: okSchema(staffOrdersAnswer), ...errors },
        },
      },
      async (req, reply) => {
        await deps.staff.require(req, 'money.review');
        void reply.header('cache-control', 'no-store');
        const rows = await payments.staffOrders(req.query.q);
        return {
          status: 200 as const,
          data: {
            list: rows.map((o) => ({
              order_id: o.id,
              user: { uid: o.uid, nickname: o.nickname, short_id: o.short_id },
              package_id: o.package_id,
              coins: o.coins,
              amount_cents: o.amount_cents,
              currency: o.currency,
              status: o.status,
              provider: o.provider,
              created_at: o.created_at,
              paid_at: o.paid_at,
              needs_two: payments.refundNeedsTwo(o),
              refund_first:
                o.refund_first_by !== null && o.refund_first_at !== null
                  ? { uid: o.refund_first_by, nickname: o.refund_first_name ?? '', at: o.refund_first_at }
                  : null,
            })),
          },
        };
      },
    );

    app.post(
      '/api/v1/staff/payments/:orderId/refund',
      {
        schema: {
          tags: ['staff'],
          summary:
            "Staff: give a paid recharge's payment back through the provider (its refund webhook takes the coins back); a large one's first approval waits for a second member's",
          params: settleParams,
          body: refundBody,
          response: { 200: okSchema(refundAnswer), ...errors },
        },
      },
      async (req) => {
        const staff = await deps.staff.require(req, 'money.review');
        const target = `order:${req.params.orderId}`;
        const { note } = req.body;
        const done = await payments.refund(req.params.orderId, staff.uid, (tx) =>
          deps.staff.audit(staff, 'payment.refund_first', target, undefined, undefined, note, tx),
        );
        // The provider's refund is outside this database: recorded once it has been asked.
        if (!done.awaiting_second)
          await deps.staff.audit(staff, 'payment.refund', target, undefined, undefined, note);
        return { status: 200 as const, data: { ok: true, ...done } };
      },
    );

    app.post(
      '/api/v1/staff/payments/:orderId/settle',
      {
        schema: {
          tags: ['staff'],
          summary:
            "Staff: mark a reversed recharge's shortfall settled (recovered or written off), which lifts the buyer's cash-out block",
          params: settleParams,
          body: settleBody,
          response: { 200: okSchema(settleAnswer), ...errors },
        },
      },
      async (req) => {
        const staff = await deps.staff.require(req, 'money.review');
        const target = `order:${req.params.orderId}`;
        await payments.settleShortfall(req.params.orderId, staff.uid, (tx) =>
          deps.staff.audit(staff, 'payment.settle', target, undefined, undefined, req.body.note, tx),
        );
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
            response: { 200: okSchema(webhookAnswer), ...errors },
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
