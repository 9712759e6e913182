import { createHash, randomInt } from 'node:crypto';
import { AppError } from '../../../common/errors';
import type { Locale } from '../../../common/locales';
import { translate } from '../../i18n';
import type { Kv } from '../../infra/kv';
import type { SmsSender } from '../../infra/sms';
import { safeEqual } from './crypto';

/** An SMS code is good for 10 minutes and 5 tries, and is used once. */
const CODE_TTL_S = 600;
const CODE_TRIES = 5;
/** Spec §9: the code button is blocked for 60 s; the server holds the same line. */
export const RESEND_S = 60;

function codeHash(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

/**
 * Six-digit codes sent by SMS to prove a phone: signing up and recovering by phone, and connecting
 * a payee account. `purpose` keeps one flow's code from being used in another.
 */
export class SmsCodes {
  constructor(
    private readonly kv: Kv,
    private readonly sms: SmsSender,
    private readonly site: {
      name: string;
      log?: ((err: unknown) => void) | undefined;
      /** Called before each SMS goes out; throws to refuse it (the site-wide SMS budget). */
      beforeSend?: (() => Promise<void>) | undefined;
    },
  ) {}

  /** Sends a fresh code (once a minute per phone and purpose). */
  async send(purpose: string, phone: string, locale: Locale): Promise<{ resendIn: number }> {
    if ((await this.kv.incr(`smswait:${purpose}:${phone}`, RESEND_S)) > 1)
      throw new AppError('too_many_requests');
    try {
      await this.site.beforeSend?.();
    } catch (err) {
      // Refused before anything was sent: the person may ask again once the budget allows.
      await this.kv.del(`smswait:${purpose}:${phone}`);
      throw err;
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await this.kv.del(`smstries:${purpose}:${phone}`);
    await this.kv.set(`sms:${purpose}:${phone}`, codeHash(code), CODE_TTL_S);
    const text = translate(locale, 'sms.code', { site: this.site.name, code, minutes: CODE_TTL_S / 60 });
    try {
      await this.sms.send(phone, text);
    } catch (err) {
      this.site.log?.(err);
      await this.kv.del(`smswait:${purpose}:${phone}`);
      throw new AppError('sms_failed');
    }
    return { resendIn: RESEND_S };
  }

  /** Checks and uses up a code; too many wrong tries throw the code away. */
  async use(purpose: string, phone: string, code: string | undefined): Promise<void> {
    if (!code || !/^[0-9]{4,8}$/.test(code.trim())) throw new AppError('wrong_code');
    const key = `sms:${purpose}:${phone}`;
    const expected = await this.kv.get(key);
    if (!expected) throw new AppError('wrong_code');
    if ((await this.kv.incr(`smstries:${purpose}:${phone}`, CODE_TTL_S)) > CODE_TRIES) {
      await this.kv.del(key);
      throw new AppError('wrong_code');
    }
    if (!safeEqual(expected, codeHash(code.trim()))) throw new AppError('wrong_code');
    // Single use: a second request with the same code finds nothing.
    if ((await this.kv.take(key)) === null) throw new AppError('wrong_code');
  }
}
