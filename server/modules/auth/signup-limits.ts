import { AppError } from '../../../common/errors';
import type { Kv } from '../../infra/kv';
import { networkPrefix } from '../../infra/networks';

/**
 * Sign-up and SMS limits that do not trust the client. A device id, a canvas hash or a whole
 * fingerprint is whatever the browser says it is (a script sends a new one each time); the
 * address's network, the e-mail's domain and the site's own totals are not. Counted per hour:
 * - per IP prefix (/24 for IPv4, /64 for IPv6: what one subscriber or one host usually holds);
 * - per e-mail domain (a catch-all domain mints addresses without end);
 * - globally, as a circuit breaker that an alert watches (sign-ups and SMS sent).
 * Per-prefix and per-domain limits count every attempt; the global ones count only what passed
 * the captcha and the other checks, so junk requests cannot spend the whole site's budget.
 */
export interface SignupLimitsConfig {
  signupPerPrefix: number;
  signupPerDomain: number;
  signupGlobal: number;
  smsPerPrefix: number;
  smsGlobal: number;
  /** Multiplies every limit (RATE_LIMIT_SCALE). */
  scale: number;
}

/** What the limits report to /metrics. */
export interface LimitsTelemetry {
  /** A request refused, by limit name (e.g. `signup:ip_prefix`). */
  tripped(limit: string): void;
  /** A sign-up or SMS let through the global limit, and the share of the hour's budget used. */
  passed(action: 'signup' | 'sms', usedShare: number): void;
}

export type LimitLog = (msg: string, detail: Record<string, unknown>) => void;

const WINDOW_S = 3600;

/** The domain of an address as the limits count it (lower case, without a trailing dot). */
export function emailDomain(email: string): string {
  return (email.split('@').pop() ?? '').toLowerCase().replace(/\.$/, '');
}

export class SignupLimits {
  constructor(
    private readonly kv: Kv,
    private readonly config: SignupLimitsConfig,
    private readonly telemetry: LimitsTelemetry | null = null,
    private readonly log: LimitLog = () => undefined,
  ) {}

  /** Counts one try; over the limit it is logged, counted in /metrics and refused (too_many_requests). */
  async #count(limit: string, key: string, max: number): Promise<number> {
    const ceiling = Math.ceil(max * this.config.scale);
    const count = await this.kv.incr(`rl:${limit}:${key}`, WINDOW_S);
    if (count > ceiling) {
      this.telemetry?.tripped(limit);
      // One line per refusal, for the operator reading logs when the alert fires.
      this.log('sign-up limit reached', { limit, key, count, max: ceiling });
      throw new AppError('too_many_requests');
    }
    return count / ceiling;
  }

  /** A sign-up attempt (e-mail or phone): per IP prefix, and per e-mail domain when there is one. */
  async signupAttempt(ip: string, email?: string): Promise<void> {
    await this.#count('signup:ip_prefix', networkPrefix(ip), this.config.signupPerPrefix);
    if (email) await this.#count('signup:email_domain', emailDomain(email), this.config.signupPerDomain);
  }

  /** An account about to be created (after the captcha and checks): the site-wide hourly budget. */
  async signup(): Promise<void> {
    this.telemetry?.passed('signup', await this.#count('signup:global', 'all', this.config.signupGlobal));
  }

  /** An SMS code asked for from this address. */
  async smsAttempt(ip: string): Promise<void> {
    await this.#count('sms:ip_prefix', networkPrefix(ip), this.config.smsPerPrefix);
  }

  /** An SMS about to be sent (any purpose): the site-wide hourly budget. */
  async sms(): Promise<void> {
    this.telemetry?.passed('sms', await this.#count('sms:global', 'all', this.config.smsGlobal));
  }
}
