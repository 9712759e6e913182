import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../../common/errors';
import { COIN_PACKAGES, PAY_APP_PATH, type OrderStatus } from '../../../common/money';
import { htmlLang, type Locale } from '../../../common/locales';
import type { Db } from '../../db/client';
import { translate } from '../../i18n';
import type { Ledger } from '../ledger/ledger';
import { collectibles } from '../wallet/collectibles';
import type { PaymentOutcome, PaymentProvider } from './provider';
import { paymentsRepo, type OrderRow } from './repo';

/** How often a polled order that is still pending is looked up at the provider. */
const LOOKUP_EVERY_MS = 3_000;
/** An order still pending this long after its last news is asked about (the repair). */
const STALE_S = 120;

export interface OrderView {
  id: string;
  status: OrderStatus;
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
    // to it. A paid or expired order is done; buying again is a new intent with a new key.
    if (order.status === 'paid' || order.status === 'expired') throw new AppError('idempotency_conflict');
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
    await paymentsRepo.setCheckout(this.db, order.id, checkout.ref, checkout.url);
    return { order: view(order), url: checkout.url };
  }

  /** A webhook from the provider: verified, then applied (idempotently), then recorded. */
  async webhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): Promise<void> {
    const event = this.provider.parseWebhook(rawBody, headers);
    if (event.orderId && event.outcome) {
      const order = await paymentsRepo.order(this.db, event.orderId);
      if (
        !order ||
        order.provider !== this.provider.name ||
        (event.ref && order.provider_ref !== event.ref)
      ) {
        this.opts.log?.('webhook for an unknown order', event);
      } else {
        await this.#apply(order, event.outcome, event.amountCents, event.currency);
      }
    }
    await paymentsRepo.recordEvent(this.db, {
      provider: this.provider.name,
      id: event.id,
      orderId: event.orderId,
      type: event.type,
    });
  }

  async #apply(
    order: OrderRow,
    outcome: PaymentOutcome,
    amountCents: number | null,
    currency: string | null,
  ) {
    if (outcome === 'succeeded') {
      if (amountCents !== order.amount_cents || currency?.toLowerCase() !== order.currency) {
        // Never credit what was not paid: left for staff to look at.
        this.opts.log?.('paid amount differs from the order', { order: order.id, amountCents, currency });
        return;
      }
      await this.ledger.post({
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
          await paymentsRepo.markPaid(tx, order.id, txId);
          await collectibles.award(tx, order.uid, 'first_light');
        },
      });
    } else if (outcome === 'failed' || outcome === 'expired') {
      await paymentsRepo.markUnpaid(this.db, order.id, outcome === 'failed' ? 'declined' : 'expired');
    }
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
      await this.#repair(order);
      order = (await paymentsRepo.order(this.db, id)) ?? order;
    }
    return view(order);
  }

  async #repair(order: OrderRow): Promise<void> {
    if (!order.provider_ref) return;
    const now = await this.provider.lookup(order.provider_ref);
    if (now.outcome !== 'pending') await this.#apply(order, now.outcome, now.amountCents, now.currency);
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
        this.opts.log?.('payment repair failed', err);
      }
    }
    return stale.length;
  }

  async recent(uid: number): Promise<OrderView[]> {
    return (await paymentsRepo.recentOrders(this.db, uid, 10)).map(view);
  }
}
