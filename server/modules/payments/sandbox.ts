import { createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../../../common/errors';
import type { Kv } from '../../infra/kv';
import { safeEqual } from '../auth';
import type { Checkout, CheckoutRequest, CheckoutState, PaymentEvent, PaymentProvider } from './provider';

/** A checkout lives a day, as Stripe's do; after that it reads as expired. */
const SESSION_TTL_S = 24 * 3600;
/** Signed webhooks older than this are refused (replays). */
const TOLERANCE_S = 300;
/** How long a press on Pay holds its checkout at most (see pay), and how often others look. */
const PAY_CLAIM_S = 10;
const PAY_WAIT_MS = 20;
/** Delivery attempts per event (then the order waits for the repair on return). */
const ATTEMPTS = 5;

/** Test cards, as Stripe's: these decline; any other well-formed number pays. */
export const SANDBOX_DECLINES: Record<string, string> = {
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
};

const sessionSchema = z.object({
  ref: z.string(),
  orderId: z.string(),
  amountCents: z.number(),
  currency: z.string(),
  description: z.string(),
  returnUrl: z.string(),
  cancelUrl: z.string(),
  locale: z.string(),
  status: z.enum(['open', 'succeeded']),
  declines: z.number(),
  /** The payment, once paid (what Stripe's PaymentIntent is): refunds and disputes name it. */
  paymentRef: z.string().nullable().default(null),
  /** Refunded so far, in all. */
  refundedCents: z.number().default(0),
  disputed: z.boolean().default(false),
});
export type SandboxSession = z.infer<typeof sessionSchema>;

const EVENT_TYPES = ['payment.succeeded', 'payment.failed', 'payment.refunded', 'payment.disputed'] as const;
type EventType = (typeof EVENT_TYPES)[number];

const eventSchema = z.object({
  id: z.string(),
  type: z.enum(EVENT_TYPES),
  created: z.number(),
  data: z.object({
    ref: z.string(),
    order_id: z.string(),
    amount: z.number(),
    currency: z.string(),
    payment: z.string().nullable().optional(),
    amount_refunded: z.number().optional(),
  }),
});

export interface SandboxOptions {
  /** Shared by every node (webhook signatures). */
  secret: string;
  /** Where checkouts are opened: `${publicBaseUrl}/sandbox-pay/<ref>`. */
  publicBaseUrl: string;
  /** Posts one signed webhook to our endpoint; answers the HTTP status. */
  deliver: (body: string, headers: Record<string, string>) => Promise<number>;
  /**
   * Like a real provider's network: each event is delivered twice (the same id), after random
   * delays, so duplicates and out-of-order arrivals are the normal case, not a test special.
   */
  chaos: boolean;
  /** Delivery delay range, milliseconds. */
  delayMs?: [number, number];
  /** The first retry's wait (doubling after), milliseconds. */
  retryMs?: number;
  log?: (err: unknown) => void;
}

export function sign(secret: string, body: string, t: number): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/**
 * A payment provider for development and tests that behaves like a real one: a hosted checkout
 * page (server/modules/payments/sandbox-page.ts) the browser is redirected to, test cards that
 * pay or decline, and the outcome reported by signed webhooks delivered asynchronously, retried on
 * failure, duplicated and out of order. Sessions live in the key-value store, so any node can
 * serve the page.
 */
export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox' as const;
  readonly #inflight = new Set<Promise<void>>();
  readonly #wakers = new Set<() => void>();
  #closed = false;

  constructor(
    private readonly kv: Kv,
    private readonly opts: SandboxOptions,
  ) {}

  /**
   * One checkout per order, as Stripe's idempotency key `checkout-<order>` makes it: the ref is
   * derived from the order (keyed by the secret, so it cannot be guessed), and only the first of
   * concurrent calls writes the session (a later write would reopen a paid one). The others wait
   * for it to be written.
   */
  async createCheckout(req: CheckoutRequest): Promise<Checkout> {
    const ref = `cs_sbx_${createHmac('sha256', this.opts.secret).update(`checkout:${req.orderId}`).digest('hex').slice(0, 24)}`;
    const checkout = { ref, url: `${this.opts.publicBaseUrl}/sandbox-pay/${ref}` };
    if ((await this.kv.incr(`sandboxpay:claim:${ref}`, SESSION_TTL_S)) === 1) {
      await this.#save({
        ...req,
        ref,
        status: 'open',
        declines: 0,
        paymentRef: null,
        refundedCents: 0,
        disputed: false,
      });
      return checkout;
    }
    for (let i = 0; i < 50 && !(await this.session(ref)); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    return checkout;
  }

  async session(ref: string): Promise<SandboxSession | null> {
    if (!/^cs_sbx_[0-9a-f]{24}$/.test(ref)) return null;
    const raw = await this.kv.get(`sandboxpay:${ref}`);
    return raw ? sessionSchema.parse(JSON.parse(raw)) : null;
  }

  async #save(s: SandboxSession): Promise<void> {
    await this.kv.set(`sandboxpay:${s.ref}`, JSON.stringify(s), SESSION_TTL_S);
  }

  /**
   * The buyer pressed Pay with this card number: a decline leaves the checkout open (they may try
   * another card), a success closes it. Either way a webhook follows, asynchronously.
   *
   * One press at a time per checkout, on any node: a press takes the checkout's claim in the
   * key-value store, and reads the checkout only once it holds it; presses that find it taken
   * wait for it, then see what the first did. So a checkout is paid once, however many presses
   * arrive at once (a double click, two tabs): a real provider would charge each payment it made.
   */
  async pay(
    ref: string,
    card: string,
  ): Promise<{ outcome: 'succeeded' | 'declined'; session: SandboxSession }> {
    const digits = card.replace(/[\s-]/g, '');
    const claim = `sandboxpay:paying:${ref}`;
    // The claim expires by itself (a node that died holding it); waiting longer than that is
    // never needed.
    for (let i = 0; i < (PAY_CLAIM_S * 1000) / PAY_WAIT_MS + 10; i++) {
      const s = await this.session(ref);
      if (!s) throw new AppError('not_found');
      if (s.status === 'succeeded') return { outcome: 'succeeded', session: s };
      if (!/^[0-9]{12,19}$/.test(digits)) throw new AppError('validation_failed', { field: 'card' });
      if ((await this.kv.incr(claim, PAY_CLAIM_S)) === 1) {
        try {
          return await this.#charge(ref, digits);
        } finally {
          await this.kv.del(claim);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, PAY_WAIT_MS));
    }
    throw new Error(`sandbox checkout ${ref} stayed claimed`);
  }

  /** One press, holding the checkout's claim: the checkout as it is now decides. */
  async #charge(
    ref: string,
    digits: string,
  ): Promise<{ outcome: 'succeeded' | 'declined'; session: SandboxSession }> {
    const s = await this.session(ref);
    if (!s) throw new AppError('not_found');
    if (s.status === 'succeeded') return { outcome: 'succeeded', session: s };
    const declined = digits in SANDBOX_DECLINES;
    const next: SandboxSession = declined
      ? { ...s, declines: s.declines + 1 }
      : { ...s, status: 'succeeded', paymentRef: `pi_sbx_${randomBytes(12).toString('hex')}` };
    await this.#save(next);
    this.#send(declined ? 'payment.failed' : 'payment.succeeded', next);
    return { outcome: declined ? 'declined' : 'succeeded', session: next };
  }

  /**
   * Gives back a paid checkout's payment, or `cents` of it (staff in the provider's dashboard, in
   * a real one): a `payment.refunded` webhook follows, with the amount refunded so far in all.
   */
  async refund(ref: string, cents?: number): Promise<SandboxSession> {
    const s = await this.session(ref);
    if (!s) throw new AppError('not_found');
    const left = s.amountCents - s.refundedCents;
    const amount = cents ?? left;
    if (s.status !== 'succeeded' || !Number.isSafeInteger(amount) || amount <= 0 || amount > left)
      throw new AppError('validation_failed', { field: 'cents' });
    const next: SandboxSession = { ...s, refundedCents: s.refundedCents + amount };
    await this.#save(next);
    this.#send('payment.refunded', next);
    return next;
  }

  /** The PaymentProvider's refund: the whole payment, once (a second asks for nothing left). */
  async refundOrder(req: { ref: string }): Promise<void> {
    const s = await this.session(req.ref);
    if (!s || s.status !== 'succeeded' || s.refundedCents >= s.amountCents)
      throw new AppError('order_not_refundable');
    await this.refund(req.ref);
  }

  /** The card holder disputes a paid checkout (a chargeback): a `payment.disputed` webhook follows. */
  async dispute(ref: string): Promise<SandboxSession> {
    const s = await this.session(ref);
    if (!s) throw new AppError('not_found');
    if (s.status !== 'succeeded' || s.disputed) throw new AppError('validation_failed', { field: 'ref' });
    const next: SandboxSession = { ...s, disputed: true };
    await this.#save(next);
    this.#send('payment.disputed', next);
    return next;
  }

  #send(type: EventType, s: SandboxSession): void {
    const body = JSON.stringify({
      id: `evt_sbx_${randomBytes(12).toString('hex')}`,
      type,
      created: Math.floor(Date.now() / 1000),
      data: {
        ref: s.ref,
        order_id: s.orderId,
        amount: s.amountCents,
        currency: s.currency,
        payment: s.paymentRef,
        ...(type === 'payment.refunded' ? { amount_refunded: s.refundedCents } : {}),
      },
    });
    for (let copy = 0; copy < (this.opts.chaos ? 2 : 1); copy++) {
      const p = this.#deliver(body).finally(() => this.#inflight.delete(p));
      this.#inflight.add(p);
    }
  }

  async #deliver(body: string): Promise<void> {
    const [lo, hi] = this.opts.delayMs ?? [20, 400];
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const wait =
        attempt === 0 ? lo + Math.random() * (hi - lo) : (this.opts.retryMs ?? 500) * 2 ** (attempt - 1);
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#wakers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, wait);
        this.#wakers.add(wake);
      });
      if (this.#closed) return;
      try {
        const t = Math.floor(Date.now() / 1000);
        const status = await this.opts.deliver(body, {
          'content-type': 'application/json',
          'sandbox-signature': sign(this.opts.secret, body, t),
        });
        if (status >= 200 && status < 300) return;
      } catch (err) {
        this.opts.log?.(err);
      }
    }
  }

  /** Stops delivering (shutdown): webhooks not yet sent are dropped, as a provider's would wait. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wake of [...this.#wakers]) wake();
    await this.settled();
  }

  /** Resolves when every webhook scheduled so far was delivered or given up (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#inflight.size) await Promise.allSettled([...this.#inflight]);
  }

  parseWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>): PaymentEvent {
    const header = headers['sandbox-signature'];
    const m = typeof header === 'string' ? /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) : null;
    const t = Number(m?.[1]);
    const body = rawBody.toString('utf8');
    if (
      !m ||
      Math.abs(Date.now() / 1000 - t) > TOLERANCE_S ||
      !safeEqual(sign(this.opts.secret, body, t), header as string)
    )
      throw new AppError('bad_signature');
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new AppError('validation_failed', { field: 'body' });
    }
    const parsed = eventSchema.safeParse(json);
    if (!parsed.success) throw new AppError('validation_failed', { field: 'body' });
    const e = parsed.data;
    const base = {
      id: e.id,
      type: e.type,
      orderId: e.data.order_id,
      ref: e.data.ref,
      amountCents: e.data.amount,
      currency: e.data.currency,
      paymentRef: e.data.payment ?? null,
    };
    switch (e.type) {
      case 'payment.succeeded':
      case 'payment.failed':
        return { ...base, outcome: e.type === 'payment.succeeded' ? 'succeeded' : 'failed', reversal: null };
      case 'payment.refunded':
        return {
          ...base,
          outcome: null,
          reversal: { reason: 'refund', refundedCents: e.data.amount_refunded ?? e.data.amount },
        };
      case 'payment.disputed':
        return { ...base, outcome: null, reversal: { reason: 'dispute', refundedCents: null } };
    }
  }

  async lookup(ref: string): Promise<CheckoutState> {
    const s = await this.session(ref);
    if (!s) return { outcome: 'expired', amountCents: null, currency: null, paymentRef: null };
    return {
      outcome: s.status === 'succeeded' ? 'succeeded' : 'pending',
      amountCents: s.amountCents,
      currency: s.currency,
      paymentRef: s.paymentRef,
    };
  }
}
