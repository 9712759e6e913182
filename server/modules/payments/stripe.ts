import Stripe from 'stripe';
import { AppError } from '../../../common/errors';
import type {
  Checkout,
  CheckoutRequest,
  CheckoutState,
  PaymentEvent,
  PaymentOutcome,
  PaymentProvider,
} from './provider';

/** Stripe's Checkout locales that match ours (others get 'auto'). */
const STRIPE_LOCALES = new Set(['ar', 'de', 'en', 'es', 'id', 'ja', 'vi', 'zh', 'zh-TW']);

function outcomeOf(session: Stripe.Checkout.Session): PaymentOutcome {
  if (session.status === 'expired') return 'expired';
  if (session.payment_status === 'paid' || session.payment_status === 'no_payment_required')
    return 'succeeded';
  return 'pending';
}

/** An expandable reference's id (the SDK types them as the id or the expanded object). */
function idOf(ref: string | { id: string } | null | undefined): string | null {
  return typeof ref === 'string' ? ref : (ref?.id ?? null);
}

/**
 * Stripe Checkout through the official SDK: a hosted page per order, and webhooks verified with
 * the endpoint's signing secret (Stripe-Signature, five minutes of tolerance).
 */
export class StripeProvider implements PaymentProvider {
  readonly name = 'stripe' as const;
  readonly #stripe: Stripe;

  constructor(
    secretKey: string,
    private readonly webhookSecret: string,
    options: { host?: string; port?: number; protocol?: 'http' | 'https' } = {},
  ) {
    this.#stripe = new Stripe(secretKey, { maxNetworkRetries: 2, timeout: 20_000, ...options });
  }

  async createCheckout(req: CheckoutRequest): Promise<Checkout> {
    const session = await this.#stripe.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: req.currency,
              unit_amount: req.amountCents,
              product_data: { name: req.description },
            },
          },
        ],
        client_reference_id: req.orderId,
        metadata: { order_id: req.orderId },
        payment_intent_data: { metadata: { order_id: req.orderId } },
        success_url: req.returnUrl,
        cancel_url: req.cancelUrl,
        locale: STRIPE_LOCALES.has(req.locale) ? req.locale : 'auto',
      },
      // Stripe's own idempotency: a retried create answers the same session.
      { idempotencyKey: `checkout-${req.orderId}` },
    );
    if (!session.url) throw new AppError('get_order_fail');
    return { ref: session.id, url: session.url };
  }

  parseWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): PaymentEvent {
    const signature = headers['stripe-signature'];
    let event: Stripe.Event;
    try {
      if (typeof signature !== 'string') throw new Error('no signature');
      event = this.#stripe.webhooks.constructEvent(rawBody, signature, this.webhookSecret);
    } catch {
      throw new AppError('bad_signature');
    }
    const base = { id: event.id, type: event.type };
    switch (event.type) {
      case 'checkout.session.completed':
      case 'checkout.session.async_payment_succeeded':
      case 'checkout.session.async_payment_failed':
      case 'checkout.session.expired': {
        const session = event.data.object;
        const outcome: PaymentOutcome =
          event.type === 'checkout.session.async_payment_failed' ? 'failed' : outcomeOf(session);
        return {
          ...base,
          orderId: session.metadata?.['order_id'] ?? session.client_reference_id ?? null,
          ref: session.id,
          outcome,
          amountCents: session.amount_total,
          currency: session.currency,
          // Stored with the order: refunds and disputes name the PaymentIntent, not the session.
          paymentRef: idOf(session.payment_intent),
          reversal: null,
        };
      }
      // A refund (full or partial: amount_refunded is the total so far) or a chargeback. They are
      // about the charge: matched to the order by its PaymentIntent (the order id is in the
      // charge's metadata only if Stripe copied the PaymentIntent's there).
      case 'charge.refunded': {
        const charge = event.data.object;
        return {
          ...base,
          orderId: charge.metadata?.['order_id'] ?? null,
          ref: null,
          outcome: null,
          amountCents: charge.amount,
          currency: charge.currency,
          paymentRef: idOf(charge.payment_intent),
          reversal: { reason: 'refund', refundedCents: charge.amount_refunded },
        };
      }
      case 'charge.dispute.created': {
        const dispute = event.data.object;
        return {
          ...base,
          orderId: null,
          ref: null,
          outcome: null,
          amountCents: dispute.amount,
          currency: dispute.currency,
          paymentRef: idOf(dispute.payment_intent),
          reversal: { reason: 'dispute', refundedCents: null },
        };
      }
      default:
        return {
          ...base,
          orderId: null,
          ref: null,
          outcome: null,
          amountCents: null,
          currency: null,
          paymentRef: null,
          reversal: null,
        };
    }
  }

  async lookup(ref: string): Promise<CheckoutState> {
    const session = await this.#stripe.checkout.sessions.retrieve(ref);
    return {
      outcome: outcomeOf(session),
      amountCents: session.amount_total,
      currency: session.currency,
      paymentRef: idOf(session.payment_intent),
    };
  }

  async refundOrder(req: { ref: string; paymentRef: string | null; key: string }): Promise<void> {
    // A refund names the payment; an order paid before its PaymentIntent was recorded asks the
    // checkout for it.
    const payment = req.paymentRef ?? (await this.lookup(req.ref)).paymentRef;
    if (!payment) throw new AppError('order_not_refundable');
    await this.#stripe.refunds.create({ payment_intent: payment }, { idempotencyKey: req.key });
  }
}
