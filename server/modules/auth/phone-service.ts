import { randomInt } from 'node:crypto';
import { hash } from '@node-rs/argon2';
import { AppError } from '../../../common/errors';
import { SMS_TYPE, type SmsType } from '../../../common/phone';
import type { Db } from '../../db/client';
import type { Kv } from '../../infra/kv';
import { enforceLimits, LIMITS } from '../../infra/ratelimit';
import type { SmsSender } from '../../infra/sms';
import { checkCaptcha, issueAccessToken, openPassword } from './checks';
import { hashToken, newToken, type TransportKey } from './crypto';
import { phoneFromParts } from './phone';
import { authRepo, type UserRow } from './repo';
import { SmsCodes } from './sms-codes';
import type { RiskProvider } from './risk';
import type { SignupLimits } from './signup-limits';
import { ARGON2_OPTIONS, type RequestMeta, type SessionsEnded } from './service';

/** After the code proved the phone, the new password must be chosen within this. */
const PHONE_RESET_TTL_S = 600;

export interface PhoneInput {
  /** ISO 3166 region of the chosen dial code (the country selector). */
  country: string;
  /** The national number as typed (digits; leading zeros are stripped). */
  phone: string;
}

/** Spec §4 phone flows: SMS codes, register by phone, forget by phone → confirm new password. */
export class PhoneAuthService {
  constructor(
    private readonly db: Db,
    private readonly kv: Kv,
    private readonly sms: SmsSender,
    private readonly key: TransportKey,
    private readonly risk: RiskProvider,
    private readonly site: {
      name: string;
      limitScale?: number;
      log?: (err: unknown) => void;
      signups: SignupLimits;
      sessionsEnded?: SessionsEnded;
    },
    private readonly codes = new SmsCodes(kv, sms, site),
  ) {}

  #limit(checks: Parameters<typeof enforceLimits>[1]): Promise<void> {
    return enforceLimits(this.kv, checks, this.site.limitScale ?? 1);
  }

  /**
   * Sends a 6-digit code (spec §7 verify_sms). The phone and the image captcha are checked first;
   * registering needs a number nobody has, recovering one that exists.
   */
  async sendCode(
    input: PhoneInput & { type: SmsType; captchaId?: string | undefined; captcha?: string | undefined },
    meta: RequestMeta,
  ): Promise<{ phone: string; resendIn: number }> {
    const phone = phoneFromParts(input.country, input.phone, meta.country);
    await this.#limit([
      { limit: LIMITS.smsPhone, key: phone },
      { limit: LIMITS.smsIp, key: meta.ip },
      { limit: LIMITS.smsDevice, key: meta.deviceId },
    ]);
    await this.site.signups.smsAttempt(meta.ip);
    await checkCaptcha(this.kv, input.captchaId, input.captcha);
    const user = await authRepo.userByPhone(this.db, phone);
    if (input.type === SMS_TYPE.register && user) throw new AppError('phone_exists');
    if (input.type === SMS_TYPE.forget && !user) throw new AppError('not_registered');
    return { phone, ...(await this.codes.send(String(input.type), phone, meta.locale)) };
  }

  /** Register by phone (spec §4): risk token, SMS code, password; signs in (access token). */
  async register(
    input: PhoneInput & { verifyPwd: string; verifyCode: string; riskToken?: string | undefined },
    meta: RequestMeta & { userAgent?: string | undefined },
  ): Promise<{ accessToken: string; user: UserRow }> {
    const phone = phoneFromParts(input.country, input.phone, meta.country);
    await this.#limit([
      { limit: LIMITS.loginAccount, key: phone },
      { limit: LIMITS.loginIp, key: meta.ip },
    ]);
    await this.site.signups.signupAttempt(meta.ip);
    await this.risk.check(input.riskToken, meta, 'register');
    const password = await openPassword(this.key, this.kv, input.verifyPwd);
    if (await authRepo.userByPhone(this.db, phone)) throw new AppError('phone_exists');
    await this.codes.use(String(SMS_TYPE.register), phone, input.verifyCode);
    await this.site.signups.signup();
    const passwordHash = await hash(password, ARGON2_OPTIONS);
    let user: UserRow | null = null;
    for (let i = 0; i < 5 && !user; i++) {
      user = await authRepo.insertPhoneUser(this.db, {
        phone,
        passwordHash,
        nickname: `Beamer${phone.slice(-4)}`,
        shortId: String(randomInt(10_000_000, 99_999_999)),
        country: input.country,
      });
      if (!user && (await authRepo.userByPhone(this.db, phone))) throw new AppError('phone_exists');
    }
    if (!user) throw new AppError('internal');
    return { accessToken: await issueAccessToken(this.db, user.uid), user };
  }

  /** Forget by phone, first half: the code proves the phone; answers a 10-minute reset token. */
  async verifyForgot(
    input: PhoneInput & { verifyCode: string },
    meta: RequestMeta,
  ): Promise<{ token: string }> {
    const phone = phoneFromParts(input.country, input.phone, meta.country);
    await this.#limit([
      { limit: LIMITS.loginAccount, key: phone },
      { limit: LIMITS.loginIp, key: meta.ip },
    ]);
    const user = await authRepo.userByPhone(this.db, phone);
    if (!user) throw new AppError('not_registered');
    await this.codes.use(String(SMS_TYPE.forget), phone, input.verifyCode);
    const token = newToken();
    await authRepo.retireTokens(this.db, user.uid, 'phone_reset');
    await authRepo.insertToken(this.db, hashToken(token), user.uid, 'phone_reset', PHONE_RESET_TTL_S);
    return { token };
  }

  /**
   * Second half (confirm new password): sets it, ends every other session, and answers an
   * access token so the user is signed in at once (spec §4: then automatic login).
   */
  async resetPassword(token: string, verifyPwd: string): Promise<{ accessToken: string }> {
    const password = await openPassword(this.key, this.kv, verifyPwd);
    const passwordHash = await hash(password, ARGON2_OPTIONS);
    const { accessToken, ended } = await this.db.transaction(async (tx) => {
      const uid = await authRepo.consumeToken(tx, hashToken(token), 'phone_reset');
      if (uid === null) throw new AppError('link_expired');
      await authRepo.setPassword(tx, uid, passwordHash);
      const ended = await authRepo.revokeAllSessions(tx, uid);
      return { accessToken: await issueAccessToken(tx, uid), ended };
    });
    if (ended.length) await this.site.sessionsEnded?.(ended);
    return { accessToken };
  }
}
