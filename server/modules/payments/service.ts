import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../../common/errors';
import { COIN_PACKAGES, PAY_APP_PATH } from '../../../common/money';
import { htmlLang, type Locale } from '../../../common/locales';
import type { AlsoInTransaction, Db } from '../../db/client';
import { translate } from '../../i18n';
import type { Ledger } from '../ledger';
import { collectibles } from '../collectibles';
import type { PaymentEvent, PaymentOutcome, PaymentProvider } from './provider';
import {
  paymentsRepo,
  type MismatchRow,
  type OpenShortfallRow,
  type OrderRow,
  type OrderState,
} from './repo';
import { eventsRepo } from './events-repo';
import { Reversals } from './reversals';

/** How often a polled order that is still pending is looked up at the provider. */
const LOOKUP_EVERY_MS = 3_000;
/** An order still pending this long after its last news is asked about (the repair). */
const STALE_S = 120;
/**
 * How long the sweep waits before asking again about an order it could not settle: twice as
 * long each time (2, 4, 8 … minutes), at most an hour (an abandoned checkout is asked about
 * some thirty times in its day, not every other minute).
 */
const REASK_BASE_S = 120;
const REASK_MAX_S = 3600;
/** How many of each kind the staff page lists (newest first). */
const STAFF_LIST_LIMIT = 50;

/** Rolls back a credit: the order was refunded, disputed or mismatched before it could be paid. */
class NotCreditable extends Error {}

/** PostgreSQL's unique violation of one order's payment being another's (payment_orders). */
function paymentHeldElsewhere(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && e.constraint === 'payment_orders_payment_ref_key';
}

/** An empty id names nothing: '' is no checkout and no payment (never matched, never stored). */
function normalized(event: PaymentEvent): PaymentEvent {
  return { ...event, ref: event.ref || null, paymentRef: event.paymentRef || null };
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
  readonly #reversals: Reversals;

  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
    readonly provider: PaymentProvider,
    private readonly opts: {
      publicBaseUrl: string;
      /** Refunds of orders of at least this many US cents need two staff members (unset: one). */
      refundSecondApprovalCents?: number;
      log?: (msg: string, detail: unknown) => void;
    },
  ) {
    this.#reversals = new Reversals(db, ledger, provider.name, opts.log);
  }

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
   *
   * A refund or dispute is stored first and acknowledged once stored, whatever happens next: it is
   * applied at once, and if that fails, by the retry from storage (retryReversals).
   */
  async webhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<void> {
    const event = normalized(this.provider.parseWebhook(rawBody, headers));
    const { order, named } = await this.#match(event);
    // A refund or dispute of an order is stored, then applied. One that matches no order is
    // stored to wait for its payment to be known here (a refund that came before the payment's
    // webhook), unless it cannot be: it names no payment, or a checkout other than that of the
    // order it names (about another checkout of the order).
    const waits = !order && event.paymentRef !== null && (!event.ref || !named);
    if (event.reversal && (order || waits)) {
      await this.#reversals.store(event, order?.id ?? null);
      let target = order;
      if (!target) {
        this.opts.log?.('refund or dispute of a payment not known here (yet): kept', event);
        // Its payment credited just as this was stored: one of the two sees the other (the
        // credit looks for stored reversals after it commits; this looks again after storing).
        target = event.paymentRef
          ? await paymentsRepo.orderByPaymentRef(this.db, this.provider.name, event.paymentRef)
          : null;
        if (!target || !event.paymentRef) return;
        await eventsRepo.matchPayment(this.db, this.provider.name, event.paymentRef, target.id);
      }
      try {
        await this.#reversals.apply(target.id);
      } catch (err) {
        // Stored: the retry applies it. The provider is answered 2xx (an error would only make it
        // deliver again, and a provider gives up after a few tries).
        this.opts.log?.('refund or dispute stored, not applied yet: the retry will', {
          order: target.id,
          err,
        });
      }
      return;
    }
    if (!order || !event.outcome) {
      if (event.outcome || event.reversal)
        this.opts.log?.(
          named
            ? 'webhook about another checkout of the order: ignored'
            : 'webhook for an order this database does not know: ignored',
          event,
        );
      await this.#record(event, named?.id ?? null, event.outcome || event.reversal ? event : null);
      return;
    }
    await this.#apply(order, event.outcome, event.amountCents, event.currency, event.paymentRef);
    await this.#record(event, order.id, null);
  }

  /**
   * The order an event is about, and the order it names (its order id, as the provider echoes it
   * back). An event about a checkout matches the order whose checkout it is, by the checkout's id;
   * a refund or dispute that names no checkout (Stripe's name the payment) matches the order paid
   * by that payment. Nothing else matches: not an order named by id alone, nor an empty id (which
   * would otherwise match any order), nor an order other than the one the event names.
   */
  async #match(event: PaymentEvent): Promise<{ order: OrderRow | null; named: OrderRow | null }> {
    const named = event.orderId ? await paymentsRepo.order(this.db, event.orderId) : null;
    let order = event.ref
      ? await paymentsRepo.orderByCheckout(this.db, this.provider.name, event.ref)
      : event.reversal && event.paymentRef
        ? await paymentsRepo.orderByPaymentRef(this.db, this.provider.name, event.paymentRef)
        : null;
    if (order && event.orderId && order.id !== event.orderId) order = null;
    // A refund or dispute of another payment than the one that paid the order is not about it.
    if (
      order &&
      event.reversal &&
      event.paymentRef &&
      order.payment_ref &&
      order.payment_ref !== event.paymentRef
    )
      order = null;
    return { order, named: named?.provider === this.provider.name ? named : null };
  }

  async #record(event: PaymentEvent, orderId: string | null, detail: PaymentEvent | null): Promise<void> {
    await eventsRepo.recordEvent(this.db, {
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
        await paymentsRepo.markMismatch(this.db, order.id, {
          reason: 'amount',
          cents: amountCents,
          currency,
        });
        return;
      }
      const holder = paymentRef
        ? await paymentsRepo.orderByPaymentRef(this.db, this.provider.name, paymentRef)
        : null;
      if (holder && holder.id !== order.id) {
        await this.#paymentReused(order, paymentRef, amountCents, currency, holder.id);
        return;
      }
      // A refund or dispute of this payment that came before it (kept without an order): applied
      // first, so the order is never credited (markPaid refuses a reversed order).
      if (paymentRef) await this.#reversals.paymentKnown(order, paymentRef);
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
        if (paymentHeldElsewhere(err)) {
          // Another order got this payment between the look above and the credit.
          await this.#paymentReused(order, paymentRef, amountCents, currency, null);
          return;
        }
        if (!(err instanceof NotCreditable)) throw err;
        this.opts.log?.('payment for an order that can no longer be credited: ignored', {
          order: order.id,
        });
        return;
      }
      // One stored while the credit was being made: taken back now.
      if (paymentRef) await this.#reversals.paymentKnown(order, paymentRef);
    } else if (outcome === 'failed' || outcome === 'expired') {
      await paymentsRepo.markUnpaid(this.db, order.id, outcome === 'failed' ? 'declined' : 'expired');
    }
  }

  /**
   * The provider reported, for this order, a payment another order was already credited for. One
   * payment pays one order: this one is not credited. Parked for staff ('mismatch', reason
   * 'payment_reused', with the payment) if it was not credited already, and answered 2xx: the
   * event is signed and will say the same however often it is delivered.
   */
  async #paymentReused(
    order: OrderRow,
    paymentRef: string | null,
    amountCents: number | null,
    currency: string | null,
    holder: string | null,
  ): Promise<void> {
    this.opts.log?.('payment reported for an order was credited to another order: parked for staff', {
      order: order.id,
      payment: paymentRef,
      holder,
    });
    await paymentsRepo.markMismatch(this.db, order.id, {
      reason: 'payment_reused',
      cents: amountCents,
      currency,
      paymentRef,
    });
  }

  /**
   * The retry from storage (run every few seconds): refunds and disputes stored but not applied
   * (a crash between storing and applying, the database gone for a moment) are applied now.
   */
  async retryReversals(): Promise<number> {
    return this.#reversals.retry();
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
   * nobody settles their own (`review_own`). `audit` is written in the transaction that settles it.
   */
  async settleShortfall(orderId: string, staffUid: number, audit?: AlsoInTransaction): Promise<void> {
    const r = await paymentsRepo.reversal(this.db, orderId);
    if (!r || r.shortfall <= 0 || r.settled_at !== null) throw new AppError('not_found');
    if (r.uid === staffUid) throw new AppError('review_own');
    // Who settled it and when are kept on the reversal (settled_by, settled_at).
    await this.db.transaction(async (tx) => {
      if (!(await paymentsRepo.settleShortfall(tx, orderId, staffUid))) throw new AppError('not_found');
      await audit?.(tx);
    });
  }

  /** Orders for staff to look at (and refund): by order id, or a buyer's by their short id. */
  staffOrders(q: string) {
    return paymentsRepo.staffOrders(this.db, q, STAFF_LIST_LIMIT);
  }

  /** Whether a refund of this order needs two staff members. */
  refundNeedsTwo(order: { amount_cents: number; currency: string }): boolean {
    const at = this.opts.refundSecondApprovalCents;
    // Orders are charged in US dollars; any other currency is not compared, and needs two.
    return at !== undefined && (order.currency.toLowerCase() !== 'usd' || order.amount_cents >= at);
  }

  /**
   * Staff give a paid recharge back (issue 24 item 5): the provider refunds the payment, and its
   * refund webhook takes the coins back as any refund does (a shortfall when they were spent).
   * Nobody refunds their own (`review_own`); an order not paid, or refunded or disputed already,
   * is `order_not_refundable`.
   *
   * A large one (REFUND_SECOND_APPROVAL_USD) needs two members: the first approval is recorded
   * (with `onFirst`, the audit entry, in its transaction) and answered `awaiting_second`; the
   * second, by someone else, asks the provider. The first approver again is refused
   * (`second_approver_required`).
   */
  async refund(
    orderId: string,
    staffUid: number,
    onFirst?: AlsoInTransaction,
  ): Promise<{ awaiting_second: boolean }> {
    const order = await paymentsRepo.order(this.db, orderId);
    if (!order) throw new AppError('not_found');
    if (order.uid === staffUid) throw new AppError('review_own');
    if (order.status !== 'paid' || !order.provider_ref || order.provider !== this.provider.name)
      throw new AppError('order_not_refundable');
    if (this.refundNeedsTwo(order)) {
      const first = order.refund_first_by;
      if (first === staffUid) throw new AppError('second_approver_required');
      if (first === null) {
        const given = await this.db.transaction(async (tx) => {
          const now = await paymentsRepo.refundFirstApproval(tx, order.id, staffUid);
          if (now) await onFirst?.(tx);
          return now;
        });
        if (given) return { awaiting_second: true };
        // Someone else gave the first meanwhile: this is the second (or the order moved on).
        return this.refund(orderId, staffUid, onFirst);
      }
    }
    await this.provider.refundOrder({
      ref: order.provider_ref,
      paymentRef: order.payment_ref,
      key: `refund:${order.id}`,
    });
    return { awaiting_second: false };
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
        // Still open: the buyer is still paying (or left); it heard from the provider just now.
        if (!(await this.#repair(order))) await paymentsRepo.touch(this.db, order.id);
      } catch (err) {
        // The provider is down: the buyer sees the order as it is, and the poll asks again.
        this.opts.log?.('payment repair failed', err);
      }
      order = (await paymentsRepo.order(this.db, id)) ?? order;
    }
    return view(order);
  }

  /** Asks the provider about the order and applies what it says; false if it is still open. */
  async #repair(order: OrderRow): Promise<boolean> {
    if (!order.provider_ref) return true;
    const now = await this.provider.lookup(order.provider_ref);
    if (now.outcome === 'pending') return false;
    await this.#apply(order, now.outcome, now.amountCents, now.currency, now.paymentRef);
    return true;
  }

  /**
   * Asks the provider about orders that heard nothing for a while (run every minute), those never
   * asked about first: a paid order whose webhook was lost looks like any other silent order, but
   * the ones asked about already were open then, and are mostly abandoned checkouts. An order the
   * sweep could not settle (still open, or the provider's answer failed) is asked about again
   * later and later (2, 4, 8 … minutes, at most hourly), behind the new ones, so abandoned
   * checkouts, however many, never delay a paid order: it is asked about in the first sweep after
   * it went silent (unless more than `limit` new orders went silent with it).
   */
  async repairStale(limit = 50): Promise<number> {
    const stale = await paymentsRepo.stale(this.db, STALE_S, limit);
    for (const order of stale) {
      let settled = false;
      try {
        settled = await this.#repair(order);
      } catch (err) {
        this.opts.log?.('payment repair failed', { order: order.id, err });
      }
      if (!settled)
        await paymentsRepo.askedInVain(this.db, order.id, REASK_BASE_S, REASK_MAX_S).catch((e: unknown) => {
          this.opts.log?.('payment repair failed', e);
        });
    }
    return stale.length;
  }

  async recent(uid: number): Promise<OrderView[]> {
    return (await paymentsRepo.recentOrders(this.db, uid, 10)).map(view);
  }
}
