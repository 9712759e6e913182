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
}

/**
 * A payment provider: opens a hosted checkout, verifies and reads its webhooks, and answers what
 * became of a checkout (to repair an order whose webhook never arrived).
 */
export interface PaymentProvider {
  readonly name: 'sandbox' | 'stripe';
  createCheckout(req: CheckoutRequest): Promise<Checkout>;
  /** Verifies the signature over the raw body; throws AppError('bad_signature') when it fails. */
  parseWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): PaymentEvent;
  /** What the provider says now about a checkout. */
  lookup(
    ref: string,
  ): Promise<{ outcome: PaymentOutcome; amountCents: number | null; currency: string | null }>;
}
