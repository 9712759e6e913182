import { AppError } from '../../common/errors';
import type { Kv } from './kv';

export interface Limit {
  /** What is being limited, e.g. `login:account`. */
  name: string;
  max: number;
  windowSeconds: number;
}

/**
 * Fixed-window limits per account, IP and device. Each key is checked; the first over its limit
 * refuses with too_many_requests ('Please slow down').
 */
export async function enforceLimits(
  kv: Kv,
  checks: { limit: Limit; key: string | null | undefined }[],
  scale = 1,
): Promise<void> {
  for (const { limit, key } of checks) {
    if (!key) continue;
    const count = await kv.incr(`rl:${limit.name}:${key}`, limit.windowSeconds);
    if (count > Math.ceil(limit.max * scale)) throw new AppError('too_many_requests');
  }
}

export const LIMITS = {
  existsIp: { name: 'exists:ip', max: 60, windowSeconds: 60 },
  existsDevice: { name: 'exists:device', max: 30, windowSeconds: 60 },
  loginAccount: { name: 'login:account', max: 10, windowSeconds: 600 },
  loginIp: { name: 'login:ip', max: 60, windowSeconds: 600 },
  loginDevice: { name: 'login:device', max: 30, windowSeconds: 600 },
  /** The activation-state check (GET /auth/activation): a person asks a few times, a list is refused. */
  activationIp: { name: 'activation:ip', max: 30, windowSeconds: 600 },
  activationDevice: { name: 'activation:device', max: 20, windowSeconds: 600 },
  mailAccount: { name: 'mail:account', max: 5, windowSeconds: 3600 },
  mailIp: { name: 'mail:ip', max: 30, windowSeconds: 3600 },
  captchaIp: { name: 'captcha:ip', max: 60, windowSeconds: 60 },
  /** The same per /24 or /64 (server/modules/auth/signup-limits.ts): an attacker's addresses share one. */
  captchaPrefix: { name: 'captcha:prefix', max: 300, windowSeconds: 60 },
  smsPhone: { name: 'sms:phone', max: 5, windowSeconds: 3600 },
  smsIp: { name: 'sms:ip', max: 20, windowSeconds: 3600 },
  smsDevice: { name: 'sms:device', max: 10, windowSeconds: 3600 },
  riskIp: { name: 'risk:ip', max: 60, windowSeconds: 600 },
  /** Checkouts opened per buyer: each one is a call to the payment provider. */
  orderUser: { name: 'order:user', max: 30, windowSeconds: 3600 },
} satisfies Record<string, Limit>;

/**
 * Fixed-window limits counted in this process: for checks on a hot path (every chat message)
 * where a round trip to the shared store for each would cost more than the limit is worth. A
 * person whose connections land on several nodes gets the limit on each; where that matters
 * (sign-in, codes, money) use enforceLimits.
 */
export class LocalLimits {
  readonly #windows = new Map<string, { until: number; count: number }>();
  #swept = 0;

  constructor(
    private readonly scale = 1,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one for `key`; too_many_requests ('Please slow down') once over the limit. */
  enforce(limit: Limit, key: string): void {
    const now = this.now();
    this.#sweep(now);
    const name = `${limit.name}:${key}`;
    let w = this.#windows.get(name);
    if (!w || w.until <= now)
      this.#windows.set(name, (w = { until: now + limit.windowSeconds * 1000, count: 0 }));
    if (++w.count > Math.ceil(limit.max * this.scale)) throw new AppError('too_many_requests');
  }

  /** Drops windows that ended, now and then (a room of thousands leaves thousands behind). */
  #sweep(now: number): void {
    if (now - this.#swept < 10_000) return;
    this.#swept = now;
    for (const [name, w] of this.#windows) if (w.until <= now) this.#windows.delete(name);
  }
}
