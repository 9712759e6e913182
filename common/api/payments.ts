// Recharge: coin packages, orders, the providers' webhooks, and the staff's view of payments to
// look at (server/modules/payments/routes.ts).
import { z } from 'zod';
import { ORDER_STATUSES } from '../money-statuses';
import { idempotencyKey, type Answer, errorResponses } from './envelope';

export const paymentErrors = errorResponses(400, 401, 403, 404, 409, 502);

/** A coin package of the payment app. Prices are in US cents (what the providers charge). */
export const coinPackageSchema = z.object({ id: z.string(), coins: z.number(), cents: z.number() });

/** GET /api/v1/payments/packages. */
export const packagesAnswer = z.object({
  packages: z.array(coinPackageSchema),
  provider: z.enum(['sandbox', 'stripe']),
  /** Null for a visitor. */
  contact_bound: z.boolean().nullable(),
  coins: z.number().nullable(),
});
export type PackagesAnswer = Answer<typeof packagesAnswer>;

export const orderSchema = z.object({
  id: z.string(),
  status: z.enum(ORDER_STATUSES),
  coins: z.number(),
  amount_cents: z.number(),
  currency: z.string(),
  created_at: z.date(),
});
export type Order = Answer<typeof orderSchema>;

/** POST /api/v1/payments/orders: the checkout to send the browser to. */
export const orderBody = z.object({ package_id: z.string().max(32), key: idempotencyKey });
export const orderAnswer = z.object({ order: orderSchema, url: z.string() });

/** GET /api/v1/payments/orders/:id. */
export const orderParams = z.object({ id: z.string().max(64) });
export const polledOrderAnswer = z.object({ order: orderSchema, coins: z.number() });

/** Who a staff list item is about. */
const person = { uid: z.number(), nickname: z.string(), short_id: z.string() };

/** A reversed recharge whose coins were partly spent: the buyer owes `owed` coins. */
export const shortfallSchema = z.object({
  order_id: z.string(),
  user: z.object(person),
  kind: z.enum(['refund', 'dispute']),
  /** Coins the reversals cover, taken back, and still owed (spent before the reversal). */
  coins: z.number(),
  taken: z.number(),
  owed: z.number(),
  created_at: z.date(),
});

/**
 * An order never credited and left for staff: the provider charged another amount (`amount`), or
 * reported a payment another order was already credited for (`payment_reused`).
 */
export const mismatchSchema = z.object({
  order_id: z.string(),
  user: z.object(person),
  package_id: z.string(),
  coins: z.number(),
  /** In the currency's smallest unit, as providers report amounts. */
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

/** GET /api/v1/staff/payments (newest first, at most 50 of each). */
export const staffPaymentsAnswer = z.object({
  shortfalls: z.array(shortfallSchema),
  mismatches: z.array(mismatchSchema),
});
export type StaffPayments = Answer<typeof staffPaymentsAnswer>;

/** GET /api/v1/staff/orders?q=: an order by its id, or a buyer's by their short id (newest first). */
export const staffOrdersQuery = z.object({ q: z.string().trim().min(1).max(64) });
export const staffOrderSchema = z.object({
  order_id: z.string(),
  user: z.object(person),
  package_id: z.string(),
  coins: z.number(),
  amount_cents: z.number(),
  currency: z.string(),
  status: z.enum(ORDER_STATUSES),
  provider: z.string(),
  created_at: z.date(),
  paid_at: z.date().nullable(),
  /** A refund of it needs two staff members (REFUND_SECOND_APPROVAL_USD). */
  needs_two: z.boolean(),
  /** The first of those, once given. */
  refund_first: z.object({ uid: z.number(), nickname: z.string(), at: z.date() }).nullable(),
});
export type StaffOrder = Answer<typeof staffOrderSchema>;
export const staffOrdersAnswer = z.object({ list: z.array(staffOrderSchema) });

/** POST /api/v1/staff/payments/:orderId/refund: the whole payment back, with the reason. */
export const refundBody = z.object({ note: z.string().trim().min(1).max(1000) });
/** POST /api/v1/staff/payments/:orderId/settle: how the shortfall was settled (recovered, written off). */
export const settleBody = z.object({ note: z.string().trim().min(1).max(1000) });

/** POST /api/v1/staff/payments/:orderId/settle. */
export const settleParams = z.object({ orderId: z.string().max(64) });
export const settleAnswer = z.object({ ok: z.boolean() });
/** What a refund answers: asked of the provider, or a first approval waiting for a second. */
export const refundAnswer = z.object({ ok: z.boolean(), awaiting_second: z.boolean() });

/** POST /api/v1/payments/webhook/{provider}. */
export const webhookAnswer = z.object({ received: z.boolean() });
