import { z } from 'zod';
import type { Db, Queryable } from '../../db/client';
import type { Ledger, LockedAccounts } from '../ledger';
import type { PaymentEvent, PaymentReversal } from './provider';
import { eventsRepo } from './events-repo';
import { paymentsRepo, type OrderRow } from './repo';

/** Immediate tries of one application that lost to a deadlock (then the retry from storage). */
const DEADLOCK_TRIES = 3;
/** Stored reversals that found no order are matched to one for this long (see matchPending). */
const MATCH_DAYS = 3;

const reversalSchema = z.object({
  reason: z.enum(['refund', 'dispute']),
  refundedCents: z.number().int().nullable(),
});
const storedSchema = z.object({ reversal: reversalSchema });

/**
 * The coins a reversal covers in all: a dispute, the whole order; a refund, the refunded share of
 * the price in coins, rounded up (a partial refund of a coin package takes back at least its
 * worth). Integer arithmetic: prices and coins are small enough to multiply exactly.
 */
function coveredCoins(order: OrderRow, r: PaymentReversal): number {
  if (r.reason === 'dispute' || r.refundedCents === null) return order.coins;
  const cents = Math.min(Math.max(r.refundedCents, 0), order.amount_cents);
  return Math.floor((order.coins * cents + order.amount_cents - 1) / order.amount_cents);
}

/** PostgreSQL's deadlock and serialization failures: the same work again may succeed. */
function lostRace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * Refunds and chargebacks of recharges (docs/money.md "Refunds and chargebacks"). A reversal is
 * stored before the provider is answered, then applied from storage: at once, and if that fails
 * (a crash, the database gone for a moment) by `retry`, which the app runs every few seconds.
 *
 * Applying takes the buyer's coin account and the `payments` account locked first (Ledger.locked,
 * in id order, as every movement takes them), then the order's row: the balance it reads is the
 * balance it debits, so a buyer spending as fast as they can (gifts wait for the lock, then see
 * what was taken) can never make it fail, and whatever order it comes in, it is applied once.
 */
export class Reversals {
  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
    private readonly provider: string,
    private readonly log?: (msg: string, detail: unknown) => void,
  ) {}

  /** Keeps the event as delivered, to be applied (its order null: no order has its payment yet). */
  async store(event: PaymentEvent, orderId: string | null): Promise<void> {
    await eventsRepo.storeReversal(this.db, {
      provider: this.provider,
      id: event.id,
      orderId,
      type: event.type,
      paymentRef: event.paymentRef,
      detail: event,
    });
  }

  /**
   * Applies the order's stored reversals not yet applied, each once, in the order they came. Safe
   * to call any number of times, from any node, concurrently: appliers take turns on the order.
   */
  async apply(orderId: string): Promise<void> {
    const order = await paymentsRepo.order(this.db, orderId);
    if (!order) return;
    const buyer = { uid: order.uid, currency: 'coin' } as const;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.ledger.locked([buyer, { system: 'payments', currency: 'coin' }], async (tx, accounts) => {
          const locked = await paymentsRepo.lockOrder(tx, orderId);
          if (!locked) return;
          for (const e of await eventsRepo.pendingReversals(tx, this.provider, orderId)) {
            const stored = storedSchema.safeParse(e.detail);
            if (!stored.success) throw new Error(`stored reversal ${e.event_id} cannot be read`);
            await this.#applyOne(tx, accounts, locked, stored.data.reversal);
            await eventsRepo.markApplied(tx, this.provider, e.event_id);
          }
        });
        return;
      } catch (err) {
        if (attempt < DEADLOCK_TRIES && lostRace(err)) continue;
        throw err;
      }
    }
  }

  /**
   * One reversal, with the buyer's accounts and the order locked. What is covered only grows, so
   * a duplicate, late or out-of-order event (a smaller refund after a larger one) changes nothing;
   * a dispute always shows, on the order and on its reversal.
   */
  async #applyOne(tx: Queryable, accounts: LockedAccounts, order: OrderRow, reversal: PaymentReversal) {
    if (order.ledger_tx_id === null) {
      // Never credited (the refund came before the payment's webhook, or the amount differed):
      // nothing to take back, and the order can no longer be credited (markPaid refuses it).
      await paymentsRepo.markReversedUncredited(tx, order.id, reversal.reason);
      return;
    }
    const before = await paymentsRepo.reversal(tx, order.id);
    const covered = before?.coins ?? 0;
    const target = coveredCoins(order, reversal);
    if (target <= covered) {
      if (reversal.reason === 'dispute') await paymentsRepo.markDisputed(tx, order.id);
      return;
    }
    const buyer = { uid: order.uid, currency: 'coin' } as const;
    // Never below zero: what the buyer spent already is the shortfall, left for staff.
    const take = Math.min(target - covered, await accounts.available(buyer));
    if (take > 0) {
      const { replay } = await accounts.post({
        kind: 'recharge_reversal',
        key: `recharge-reversal:${order.id}:${target}`,
        actor: order.uid,
        meta: { order: order.id, covers: target },
        postings: [{ from: buyer, to: { system: 'payments', currency: 'coin' }, amount: take }],
      });
      // The movement and the record are written together, under the order's lock: a movement
      // without its record means something else wrote one. Stop rather than take twice.
      if (replay) throw new Error(`reversal of ${order.id} to ${target} coins was made without its record`);
    }
    await paymentsRepo.saveReversal(tx, {
      order_id: order.id,
      uid: order.uid,
      reason: reversal.reason === 'dispute' || before?.reason === 'dispute' ? 'dispute' : 'refund',
      coins: target,
      taken: (before?.taken ?? 0) + take,
    });
    if (take < target - covered)
      this.log?.('reversed recharge left a shortfall (coins already spent)', {
        order: order.id,
        uid: order.uid,
        shortfall: target - covered - take,
      });
  }

  /**
   * Stored reversals of this payment that came before it was known here (a refund before the
   * payment's own webhook), applied now that `order` was credited for it.
   */
  async paymentKnown(order: OrderRow, paymentRef: string): Promise<void> {
    await eventsRepo.matchPayment(this.db, this.provider, paymentRef, order.id);
    if (await eventsRepo.hasPendingReversals(this.db, this.provider, order.id)) await this.apply(order.id);
  }

  /**
   * The retry from storage: every stored reversal not yet applied is applied now (those that
   * found their order since first). One that fails again is logged and goes behind the others.
   * Answers how many orders it looked at.
   */
  async retry(limit = 100): Promise<number> {
    await eventsRepo.matchPending(this.db, this.provider, MATCH_DAYS);
    const orders = await eventsRepo.ordersWithPendingReversals(this.db, this.provider, limit);
    for (const id of orders) {
      try {
        await this.apply(id);
      } catch (err) {
        this.log?.('stored reversal could not be applied: tried again later', { order: id, err });
        await eventsRepo.reversalsFailed(this.db, this.provider, id);
      }
    }
    return orders.length;
  }
}
