import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { AppError } from '../../../common/errors';
import { COIN_PACKAGES, PAY_APP_PATH } from '../../../common/money';
import { htmlLang, type Locale } from '../../../common/locales';
import type { Db, Queryable } from '../../db/client';
import { translate } from '../../i18n';
import type { Ledger } from '../ledger/ledger';
import { collectibles } from '../wallet/collectibles';
import type { PaymentEvent, PaymentOutcome, PaymentProvider, PaymentReversal } from './provider';
import {
  paymentsRepo,
  type MismatchRow,
  type OpenShortfallRow,
  type OrderRow,
  type OrderState,
} from './repo';

/** How often a polled order that is still pending is looked up at the provider. */
const LOOKUP_EVERY_MS = 3_000;
/** An order still pending this long after its last news is asked about (the repair). */
const STALE_S = 120;
/** Tries of a reversal that lost a race (the buyer spent coins meanwhile, or another reversal). */
const REVERSAL_TRIES = 5;
/** How many of each kind the staff page lists (newest first). */
const STAFF_LIST_LIMIT = 50;

/** Rolls back a credit: the order was refunded, disputed or mismatched before it could be paid. */
class NotCreditable extends Error {}
/** Rolls back a reversal: another one changed what is covered since this one looked. */
class ReversalMoved extends Error {}

const reversalSchema = z.object({
  reason: z.enum(['refund', 'dispute']),
  refundedCents: z.number().int().nullable(),
});

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

export interface OrderView {
  id: string;
  status: OrderState;
  coins: number;
  amount_cents: number;
  currency: string;
  created_at: Date;
}

function view(o: OrderRow): OrderView {
  return {
    id: o.id,
    status: o.status,
    coins: o.coins,
    amount_cents: o.amount_cents,
    currency: o.currency,
    created_at: o.created_at,
  };
}

/**
 * Recharge (spec §2, §6): a coin package is bought through the payment provider's hosted
 * checkout; the provider's webhook credits the coins. Coins are credited exactly once per paid
 * order, by the ledger transaction `recharge:<order>`: duplicate, late or out-of-order webhooks
 * and the repair below all end in that same idempotent movement.
 */
export class PaymentService {
  readonly #asked = new LRUCache<string, true>({ max: 10_000, ttl: LOOKUP_EVERY_MS });

  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
    readonly provider: PaymentProvider,
    private readonly opts: { publicBaseUrl: string; log?: (msg: string, detail: unknown) => void },
  ) {}

  /** Spec §6: recharge needs a phone or a verified e-mail bound to the account. */
  async contactBound(uid: number): Promise<boolean> {
    return paymentsRepo.hasBoundContact(this.db, uid);
  }

  /** Opens a checkout for a package; the same `key` answers the same order and checkout. */
  async createOrder(
    uid: number,
    input: { packageId: string; key: string },
    locale: Locale,
  ): Promise<{ order: OrderView; url: string }> {
    if (!(await this.contactBound(uid))) throw new AppError('contact_required');
    const pack = COIN_PACKAGES.find((p) => p.id === input.packageId);
    if (!pack) throw new AppError('package_not_found');
    const order = await paymentsRepo.insertOrder(this.db, {
      id: `po_${randomBytes(15).toString('base64url').replace(/[-_]/g, 'x')}`,
      uid,
      client_key: input.key,
      package_id: pack.id,
      coins: pack.coins,
      amount_cents: pack.cents,
      currency: 'usd',
      provider: this.provider.name,
    });
    if (order.package_id !== pack.id) throw new AppError('idempotency_conflict');
    // A declined card leaves the checkout open (another card may pay): the same click goes back
    // to it. Any other order is done; buying again is a new intent with a new key.
    if (order.status !== 'pending' && order.status !== 'declined') throw new AppError('idempotency_conflict');
    if (order.checkout_url) return { order: view(order), url: order.checkout_url };
    const back = `${this.opts.publicBaseUrl}${PAY_APP_PATH}?order=${order.id}`;
    let checkout;
    try {
      checkout = await this.provider.createCheckout({
        orderId: order.id,
        amountCents: order.amount_cents,
        currency: order.currency,
        // What the provider's page says is being bought, in the buyer's language ("700 coins").
        description: translate(locale, 'room.coins', {
          count: pack.coins,
          formatted: new Intl.NumberFormat(htmlLang(locale)).format(pack.coins),
        }),
        returnUrl: back,
        cancelUrl: `${back}&cancelled=1`,
        locale,
      });
    } catch (err) {
      this.opts.log?.('payment provider refused a checkout', err);
      throw new AppError('get_order_fail');
    }
    // Concurrent buys with one key may both get here: the provider answers them the same checkout
    // (createCheckout is idempotent per order), and the first one recorded stays the order's, so
    // a webhook for the checkout the buyer pays always matches.
    const stored = await paymentsRepo.setCheckout(this.db, order.id, checkout.ref, checkout.url);
    if (stored.provider_ref !== checkout.ref)
      this.opts.log?.('provider answered another checkout for the same order', {
        order: order.id,
        kept: stored.provider_ref,
        answered: checkout.ref,
      });
    return { order: view(order), url: stored.checkout_url };
  }

  /**
   * A webhook from the provider: verified, then applied (idempotently), then recorded. An event
   * about an order this database does not know (a staging site sharing the provider account, or a
   * refund that arrived before its payment's webhook) is acknowledged and kept, with what it said,
   * without an order: answering an error would only make the provider retry it for days.
   */
  async webhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<void> {
    const event = this.provider.parseWebhook(rawBody, headers);
    const order = await this.#orderOf(event);
    const matched =
      order !== null &&
      order.provider === this.provider.name &&
      (!event.ref || order.provider_ref === event.ref);
    const relevant = event.outcome !== null || event.reversal !== null;
    if (!matched || !relevant) {
      if (relevant)
        this.opts.log?.(
          order
            ? 'webhook about another checkout of the order: ignored'
            : 'webhook for an order this database does not know: ignored',
          event,
        );
      await this.#record(event, order?.id ?? null, relevant ? event : null);
      // A refund recorded just as its payment was credited: one of the two sees the other (the
      // credit looks for unmatched refunds after it commits; this looks again after recording).
      if (!order && event.reversal && event.paymentRef) {
        const late = await paymentsRepo.orderByPaymentRef(this.db, this.provider.name, event.paymentRef);
        if (late) await this.#reverseUnmatched(late, event.paymentRef);
      }
      return;
    }
    if (event.outcome)
      await this.#apply(order, event.outcome, event.amountCents, event.currency, event.paymentRef);
    else if (event.reversal) await this.#reverse(order, event.reversal);
    await this.#record(event, order.id, null);
  }

  /** The order an event is about: named by it, or found by its payment (refunds, disputes). */
  async #orderOf(event: PaymentEvent): Promise<OrderRow | null> {
    const named = event.orderId ? await paymentsRepo.order(this.db, event.orderId) : null;
    if (named || !event.paymentRef) return named;
    return paymentsRepo.orderByPaymentRef(this.db, this.provider.name, event.paymentRef);
  }

  async #record(event: PaymentEvent, orderId: string | null, detail: PaymentEvent | null): Promise<void> {
    await paymentsRepo.recordEvent(this.db, {
      provider: this.provider.name,
      id: event.id,
      orderId,
      type: event.type,
      paymentRef: event.paymentRef,
      detail,
    });
  }

  async #apply(
    order: OrderRow,
    outcome: PaymentOutcome,
    amountCents: number | null,
    currency: string | null,
    paymentRef: string | null,
  ) {
    if (outcome === 'succeeded') {
      if (amountCents !== order.amount_cents || currency?.toLowerCase() !== order.currency) {
        // Never credit what was not paid. Final, so neither webhooks nor the sweep ask again:
        // staff see the order as 'mismatch' and settle it with the buyer (a refund, usually).
        this.opts.log?.('paid amount differs from the order', { order: order.id, amountCents, currency });
        await paymentsRepo.markMismatch(this.db, order.id, { cents: amountCents, currency });
        return;
      }
      try {
        const credit = await this.ledger.post({
          kind: 'recharge',
          key: `recharge:${order.id}`,
          actor: order.uid,
          meta: { order: order.id, package: order.package_id, cents: order.amount_cents },
          postings: [
            {
              from: { system: 'payments', currency: 'coin' },
              to: { uid: order.uid, currency: 'coin' },
              amount: order.coins,
            },
          ],
          also: async (tx, txId) => {
            if (!(await paymentsRepo.markPaid(tx, order.id, txId, paymentRef))) throw new NotCreditable();
            await collectibles.award(tx, order.uid, 'first_light');
          },
        });
        if (credit.replay && paymentRef) await paymentsRepo.setPaymentRef(this.db, order.id, paymentRef);
      } catch (err) {
        if (!(err instanceof NotCreditable)) throw err;
        this.opts.log?.('payment for an order that can no longer be credited: ignored', {
          order: order.id,
        });
        return;
      }
      if (paymentRef) await this.#reverseUnmatched(order, paymentRef);
    } else if (outcome === 'failed' || outcome === 'expired') {
      await paymentsRepo.markUnpaid(this.db, order.id, outcome === 'failed' ? 'declined' : 'expired');
    }
  }

  /**
   * The provider gave a payment back (a refund) or the card holder claimed it back (a dispute):
   * the coins it bought are taken back from the buyer, as far as they still have them (balances
   * never go negative); what they already spent is the shortfall, kept on payment_reversals, and
   * their cash-outs are refused until staff settle it. One database transaction, under the ledger
   * key `recharge-reversal:<order>:<coins covered>`; what is covered only grows, so a duplicate,
   * late or out-of-order event (a smaller refund after a larger one) changes nothing.
   */
  async #reverse(order: OrderRow, reversal: PaymentReversal): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (attempt > REVERSAL_TRIES) throw new Error(`reversal of ${order.id} kept losing races`);
      const now = await paymentsRepo.order(this.db, order.id);
      if (!now) return;
      if (now.ledger_tx_id === null) {
        // Never credited (the refund came before the payment's webhook, or the amount differed):
        // nothing to take back, and the order can no longer be credited. Credited meanwhile: again.
        if (await paymentsRepo.markReversedUncredited(this.db, now.id, reversal.reason)) return;
        continue;
      }
      const target = coveredCoins(now, reversal);
      const before = await paymentsRepo.reversal(this.db, now.id);
      const covered = before?.coins ?? 0;
      if (target <= covered) {
        if (reversal.reason === 'dispute') await paymentsRepo.markDisputed(this.db, now.id);
        return;
      }
      const take = Math.min(target - covered, (await this.ledger.balances(now.uid)).coin);
      const write = async (tx: Queryable) => {
        await paymentsRepo.lockOrder(tx, now.id);
        const locked = await paymentsRepo.reversal(tx, now.id);
        if ((locked?.coins ?? 0) !== covered) throw new ReversalMoved();
        await paymentsRepo.saveReversal(tx, {
          order_id: now.id,
          uid: now.uid,
          reason: reversal.reason,
          coins: target,
          taken: (locked?.taken ?? 0) + take,
        });
      };
      let replay = false;
      try {
        if (take > 0)
          ({ replay } = await this.ledger.post({
            kind: 'recharge_reversal',
            key: `recharge-reversal:${now.id}:${target}`,
            actor: now.uid,
            // The same for every event covering as much: a concurrent duplicate replays.
            meta: { order: now.id, covers: target },
            postings: [
              {
                from: { uid: now.uid, currency: 'coin' },
                to: { system: 'payments', currency: 'coin' },
                amount: take,
              },
            ],
            also: write,
          }));
        else await this.db.transaction(write);
      } catch (err) {
        // The buyer spent coins since their balance was read, or another reversal got in first.
        const raced =
          err instanceof ReversalMoved || (err instanceof AppError && err.errorName === 'insufficient_coins');
        if (raced) continue;
        throw err;
      }
      // A concurrent event covering as much made the movement (a refund and a dispute at once):
      // a dispute still shows on the order.
      if (replay) {
        if (reversal.reason === 'dispute') await paymentsRepo.markDisputed(this.db, now.id);
        return;
      }
      if (take < target - covered)
        this.opts.log?.('reversed recharge left a shortfall (coins already spent)', {
          order: now.id,
          uid: now.uid,
          shortfall: target - covered - take,
        });
      return;
    }
  }

  /** Refunds and disputes of this payment that came before it was known here, applied now. */
  async #reverseUnmatched(order: OrderRow, paymentRef: string): Promise<void> {
    for (const e of await paymentsRepo.unmatchedEvents(this.db, this.provider.name, paymentRef)) {
      const detail = z.object({ reversal: reversalSchema }).safeParse(e.detail);
      if (detail.success) await this.#reverse(order, detail.data.reversal);
      await paymentsRepo.matchEvent(this.db, this.provider.name, e.event_id, order.id);
    }
  }

  /**
   * What staff look at (the staff page, docs/money.md "Staff actions"): shortfalls still open and
   * orders parked as 'mismatch', newest first, at most `limit` of each.
   */
  async staffReview(limit = STAFF_LIST_LIMIT): Promise<{
    shortfalls: OpenShortfallRow[];
    mismatches: MismatchRow[];
  }> {
    return {
      shortfalls: await paymentsRepo.openShortfalls(this.db, limit),
      mismatches: await paymentsRepo.mismatchedOrders(this.db, limit),
    };
  }

  /**
   * Staff settled a reversal's shortfall (recovered it, or wrote it off): the buyer's cash-out is
   * open again (unless another shortfall of theirs is still open). `not_found` when the order has
   * no open shortfall (none, or already settled: a second click, another member of staff first);
   * nobody settles their own (`review_own`).
   */
  async settleShortfall(orderId: string, staffUid: number): Promise<void> {
    const r = await paymentsRepo.reversal(this.db, orderId);
    if (!r || r.shortfall <= 0 || r.settled_at !== null) throw new AppError('not_found');
    if (r.uid === staffUid) throw new AppError('review_own');
    // Who settled it and when are kept on the reversal (settled_by, settled_at).
    if (!(await paymentsRepo.settleShortfall(this.db, orderId, staffUid))) throw new AppError('not_found');
  }

  /**
   * The buyer's order, as the payment app polls it on return. A pending order is asked about at
   * the provider, so a lost webhook (or a crash between payment and credit) is repaired here.
   */
  async order(uid: number, id: string): Promise<OrderView> {
    let order = await paymentsRepo.order(this.db, id);
    if (!order || order.uid !== uid) throw new AppError('not_found');
    // The payment app polls every second: the provider is asked at most every few seconds.
    if (
      (order.status === 'pending' || order.status === 'declined') &&
      order.provider_ref &&
      !this.#asked.has(id)
    ) {
      this.#asked.set(id, true);
      try {
        await this.#repair(order);
      } catch (err) {
        // The provider is down: the buyer sees the order as it is, and the poll asks again.
        this.opts.log?.('payment repair failed', err);
      }
      order = (await paymentsRepo.order(this.db, id)) ?? order;
    }
    return view(order);
  }

  async #repair(order: OrderRow): Promise<void> {
    if (!order.provider_ref) return;
    const now = await this.provider.lookup(order.provider_ref);
    if (now.outcome !== 'pending')
      await this.#apply(order, now.outcome, now.amountCents, now.currency, now.paymentRef);
    // Still open (an abandoned checkout, until the provider expires it): to the back of the
    // sweep's queue, so it cannot keep newer orders from being looked at.
    else await paymentsRepo.touch(this.db, order.id);
  }

  /** Asks the provider about orders that heard nothing for a while (run every minute). */
  async repairStale(limit = 50): Promise<number> {
    const stale = await paymentsRepo.stale(this.db, STALE_S, limit);
    for (const order of stale) {
      try {
        await this.#repair(order);
      } catch (err) {
        // To the back of the queue as well: a few orders whose lookup keeps failing must not
        // take every sweep's places from the others.
        this.opts.log?.('payment repair failed', { order: order.id, err });
        await paymentsRepo.touch(this.db, order.id).catch((e: unknown) => {
          this.opts.log?.('payment repair failed', e);
        });
      }
    }
    return stale.length;
  }

  async recent(uid: number): Promise<OrderView[]> {
    return (await paymentsRepo.recentOrders(this.db, uid, 10)).map(view);
  }
}
