/** What the payment service asks a provider to charge. */
export interface CheckoutRequest {
  orderId: string;
  amountCents: number;
  currency: string;
  /** Shown on the provider's page ("700 coins"). */
  description: string;
  /** Where the provider sends the browser back, paid or not. */
  returnUrl: string;
  cancelUrl: string;
  /** The buyer's language for the provider's page. */
  locale: string;
}

export interface Checkout {
  /** The provider's id for this checkout (Stripe: the Checkout Session id). */
  ref: string;
  /** Where to send the browser to pay. */
  url: string;
}

/** What happened to a checkout, as the payment service understands it. */
export type PaymentOutcome = 'succeeded' | 'failed' | 'expired' | 'pending';

/** A paid payment given back: refunded by us, or disputed (a chargeback) by the card holder. */
export interface PaymentReversal {
  reason: 'refund' | 'dispute';
  /**
   * A refund: the cents refunded so far in all (Stripe's `amount_refunded`; a later, partial
   * refund grows it). A dispute: null, the whole payment is at stake.
   */
  refundedCents: number | null;
}

/** What the provider says now about a checkout. */
export interface CheckoutState {
  outcome: PaymentOutcome;
  amountCents: number | null;
  currency: string | null;
  /** The payment made through it, once paid (Stripe: the PaymentIntent). */
  paymentRef: string | null;
}

/** A verified webhook event, in the provider's terms mapped to ours. */
export interface PaymentEvent {
  /** The provider's event id: a duplicate delivery carries the same one. */
  id: string;
  /** Our order, as the provider echoes it back (null: an event about something else). */
  orderId: string | null;
  ref: string | null;
  outcome: PaymentOutcome | null;
  /** What the provider says it charged (checked against the order). */
  amountCents: number | null;
  currency: string | null;
  type: string;
  /**
   * The provider's id of the payment itself (Stripe: the PaymentIntent), where the event names it:
   * refunds and disputes are about the payment, and may not name the order.
   */
  paymentRef: string | null;
  /** A refund or dispute of a paid order (`outcome` is null then). */
  reversal: PaymentReversal | null;
}

/**
 * A payment provider: opens a hosted checkout, verifies and reads its webhooks, and answers what
 * became of a checkout (to repair an order whose webhook never arrived).
 */
export interface PaymentProvider {
  readonly name: 'sandbox' | 'stripe';
  /**
   * Idempotent per order: the same `orderId` answers the same checkout (while it lives), however
   * often and however concurrently it is asked. Two checkouts for one order would let the buyer
   * pay one the order does not track, and never be credited.
   */
  createCheckout(req: CheckoutRequest): Promise<Checkout>;
  /** Verifies the signature over the raw body; throws AppError('bad_signature') when it fails. */
  parseWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): PaymentEvent;
  /** What the provider says now about a checkout. */
  lookup(ref: string): Promise<CheckoutState>;
  /**
   * Gives a paid order's whole payment back (staff's refund). The provider's refund webhook
   * follows and takes the coins back as any refund does; `key` makes a retry refund once.
   */
  refundOrder(req: { ref: string; paymentRef: string | null; key: string }): Promise<void>;
}
