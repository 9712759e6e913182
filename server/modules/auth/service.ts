import Bowser from 'bowser';
import { randomInt } from 'node:crypto';
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { AppError } from '../../../common/errors';
import { localizedPath } from '../../../common/routes';
import type { Locale } from '../../../common/locales';
import type { RequestMeta } from './meta';
import { isEmail } from '../../../common/validation';
import type { Db } from '../../db/client';
import { translate } from '../../i18n';
import type { Kv } from '../../infra/kv';
import type { Mailer } from '../../infra/mail';
import { enforceLimits, LIMITS } from '../../infra/ratelimit';
import { escapeHtml } from '../../../common/html';
import { Captchas } from './captcha/captchas';
import { checkCaptcha, issueAccessToken, openPassword } from './checks';
import { hashToken, newToken, type TransportKey } from './crypto';
import { LoginFailures } from './login-failures';
import { isPhoneName, phoneFromE164 } from './phone';
import { authRepo, type UserRow } from './repo';
import type { RiskProvider } from './risk';
import type { LiveSession, SessionCache } from './session-cache';
import type { SignupLimits } from './signup-limits';

/** The library's const enum value for argon2id (const enums cannot be imported under isolated modules). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- the literal is the enum's declared value
const ARGON2ID = 2 as Algorithm.Argon2id;

/** OWASP's recommended argon2id parameters: 19 MiB, 2 passes, 1 lane. */
export const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const SESSION_TTL_KEEP_S = 90 * 24 * 3600;
export const SESSION_TTL_S = 24 * 3600;
const ACTIVATE_TTL_S = 24 * 3600;
const RESET_TTL_S = 3600;

export type { RequestMeta } from './meta';

/**
 * Told the ids of sessions that just ended (after the change is committed), so their realtime
 * connections close on every node (server/realtime/sessions.ts). Must not throw.
 */
export type SessionsEnded = (sessionIds: number[]) => Promise<void>;

export interface NewSession {
  token: string;
  uid: number;
  deviceId: string;
  keep: boolean;
  expiresAt: Date;
}

/** A hash to compare against when the account does not exist, so timing does not tell. */
let dummyHash: Promise<string> | null = null;

function normalizeEmail(name: string): string {
  const email = name.trim().toLowerCase();
  if (!isEmail(email)) throw new AppError('invalid_email');
  return email;
}

export class AuthService {
  readonly #failures: LoginFailures;

  constructor(
    private readonly db: Db,
    private readonly kv: Kv,
    private readonly mailer: Mailer,
    private readonly key: TransportKey,
    private readonly risk: RiskProvider,
    private readonly site: {
      name: string;
      baseUrl: string;
      limitScale?: number;
      signups: SignupLimits;
      sessionsEnded?: SessionsEnded;
      /** Sessions kept in this process (the wiring drops ended ones from it on every node). */
      sessions?: SessionCache;
      /** Refuses a sign-in of an account staff banned (server/modules/safety owns the rule). */
      mayBeSignedIn?: (uid: number) => Promise<void>;
    },
  ) {
    this.captchas = new Captchas(kv, site.limitScale ?? 1);
    this.#failures = new LoginFailures(kv, site.limitScale ?? 1);
  }

  readonly captchas: Captchas;

  #limit(checks: Parameters<typeof enforceLimits>[1]): Promise<void> {
    return enforceLimits(this.kv, checks, this.site.limitScale ?? 1);
  }

  publicKey(): string {
    return this.key.publicKey;
  }

  /** Spec §4: sign-in and sign-up start by asking whether the account exists. */
  async exists(name: string, meta: RequestMeta): Promise<boolean> {
    await this.#limit([
      { limit: LIMITS.existsIp, key: meta.ip },
      { limit: LIMITS.existsDevice, key: meta.deviceId },
    ]);
    return (await this.#account(name, meta)).user !== null;
  }

  /** An image captcha (see captcha/image.ts); the answer can be used once within 5 minutes. */
  captcha(meta: RequestMeta): Promise<{ id: string; image: string }> {
    return this.captchas.create(meta);
  }

  #checkCaptcha(id: string | undefined, answer: string | undefined): Promise<void> {
    return checkCaptcha(this.kv, id, answer);
  }

  #password(verifyPwd: string): Promise<string> {
    return openPassword(this.key, this.kv, verifyPwd);
  }

  /** A sign-in name: an e-mail address, or a phone number with its dial code (+8613…). */
  async #account(name: string, meta: RequestMeta): Promise<{ key: string; user: UserRow | null }> {
    if (isPhoneName(name)) {
      const phone = phoneFromE164(name.trim(), meta.country);
      return { key: phone, user: await authRepo.userByPhone(this.db, phone) };
    }
    const email = normalizeEmail(name);
    return { key: email, user: await authRepo.userByEmail(this.db, email) };
  }

  /**
   * Spec §4 login sequence, first half: checks the password and answers a short-lived access
   * token to exchange for a session. Every attempt counts against its source (address, device);
   * only a password that could be checked counts against the account (see LoginFailures): after
   * repeated failures the account asks for a captcha, and a source that keeps failing is stopped.
   */
  async verifyLogin(
    input: { name: string; verifyPwd: string; captchaId?: string; captcha?: string },
    meta: RequestMeta,
  ): Promise<{ accessToken: string }> {
    await this.#limit([
      { limit: LIMITS.loginIp, key: meta.ip },
      { limit: LIMITS.loginDevice, key: meta.deviceId },
    ]);
    const password = await this.#password(input.verifyPwd);
    const { key: account, user } = await this.#account(input.name, meta);
    const { needCaptcha } = await this.#failures.check(account, meta.ip);
    if (needCaptcha) await this.#checkCaptcha(input.captchaId, input.captcha);

    dummyHash ??= hash('not-a-real-password', ARGON2_OPTIONS);
    const ok = await verify(user?.password_hash ?? (await dummyHash), password);
    if (!user || !ok) {
      const now = await this.#failures.failed(account, meta.ip);
      throw new AppError('wrong_credentials', now.needCaptcha ? { need_captcha: 1 } : undefined);
    }
    await this.#failures.succeeded(account, meta.ip);
    // Phone accounts proved their number with an SMS code when they signed up.
    if (user.email === account && !user.email_verified_at)
      throw new AppError('email_not_activated', { email: account });
    return { accessToken: await issueAccessToken(this.db, user.uid) };
  }

  /** Second half: exchanges the access token (once) for a session. keep gives a long session. */
  /** `from`: the client's address and browser, shown to staff beside the session. */
  async createSession(
    accessToken: string,
    keep: boolean,
    deviceId: string,
    from?: { ip: string; userAgent?: string | undefined },
  ): Promise<NewSession> {
    const uid = await authRepo.consumeToken(this.db, hashToken(accessToken), 'access');
    if (uid === null) throw new AppError('access_token_invalid');
    // Every way in (password, SMS code, Google) ends here: a banned account gets no session.
    await this.site.mayBeSignedIn?.(uid);
    const token = newToken();
    const ttl = keep ? SESSION_TTL_KEEP_S : SESSION_TTL_S;
    const row = await authRepo.insertSession(this.db, {
      tokenHash: hashToken(token),
      uid,
      deviceId,
      keep,
      ttlSeconds: ttl,
      ip: from?.ip ?? null,
      userAgent: from?.userAgent ?? null,
    });
    return { token, uid, deviceId, keep, expiresAt: new Date(row.expires_at) };
  }

  /** The session behind a token, or null when unknown, expired or revoked. */
  /**
   * The live session of a token: from this process's cache when it has it (sessions ended
   * anywhere are dropped from it, see SessionCache), else from the database.
   */
  async session(token: string): Promise<LiveSession | null> {
    // Kept by the token itself (this process's memory holds requests' tokens anyway); only the
    // database sees just its hash.
    const cached = this.site.sessions?.get(token);
    if (cached !== undefined) return cached || null;
    const row = await authRepo.liveSession(this.db, hashToken(token));
    const session = row
      ? { id: row.id, uid: row.uid, deviceId: row.device_id, expiresAt: row.expires_at.getTime() }
      : null;
    this.site.sessions?.set(token, session);
    return session;
  }

  /** Of these session ids, the ones still live (the realtime gateway's periodic check). */
  async liveSessions(ids: number[]): Promise<Set<number>> {
    return new Set(await authRepo.liveSessionIds(this.db, ids));
  }

  async signOut(sessionId: number): Promise<void> {
    await this.#ended(await authRepo.revokeSession(this.db, sessionId));
  }

  /**
   * A person's signed-in sessions now, for staff: the device of each, the address and browser it
   * was signed in from, when it began and ends.
   */
  async activeSessions(uid: number) {
    return (await authRepo.activeSessions(this.db, uid)).map(({ user_agent, ...s }) => ({
      ...s,
      ...browserOf(user_agent),
    }));
  }

  /** Ends every session of the user; answers how many there were. */
  async signOutEverywhere(uid: number): Promise<number> {
    const ended = await authRepo.revokeAllSessions(this.db, uid);
    await this.#ended(ended);
    return ended.length;
  }

  async #ended(sessionIds: number[]): Promise<void> {
    if (sessionIds.length) await this.site.sessionsEnded?.(sessionIds);
  }

  async user(uid: number): Promise<UserRow | null> {
    return authRepo.userByUid(this.db, uid);
  }

  /** Register by e-mail (spec §4): image captcha, then an activation link by mail. */
  async registerEmail(
    input: {
      email: string;
      verifyPwd: string;
      captchaId?: string;
      captcha?: string;
      country: string;
      riskToken?: string;
    },
    meta: RequestMeta,
  ): Promise<void> {
    const email = normalizeEmail(input.email);
    await this.#limit([
      { limit: LIMITS.mailAccount, key: email },
      { limit: LIMITS.mailIp, key: meta.ip },
    ]);
    await this.site.signups.signupAttempt(meta.ip, email);
    await this.risk.check(input.riskToken, meta, 'register');
    await this.#checkCaptcha(input.captchaId, input.captcha);
    const password = await this.#password(input.verifyPwd);
    if (await authRepo.userByEmail(this.db, email)) throw new AppError('account_exists');
    await this.site.signups.signup();
    const passwordHash = await hash(password, ARGON2_OPTIONS);
    const nickname = (email.split('@')[0] ?? '').replace(/[^\p{L}\p{N}]/gu, '').slice(0, 20) || 'Beamer';
    let user: UserRow | null = null;
    for (let i = 0; i < 5 && !user; i++) {
      user = await authRepo.insertEmailUser(this.db, {
        email,
        passwordHash,
        nickname,
        shortId: String(randomInt(10_000_000, 99_999_999)),
        country: input.country,
      });
      if (!user && (await authRepo.userByEmail(this.db, email))) throw new AppError('account_exists');
    }
    if (!user) throw new AppError('internal');
    await this.#sendLink(user, 'activate', meta.locale);
  }

  /**
   * Whether an address's account is activated (spec: 'complete registration' asks). Limited per
   * source, and an unknown address answers as one not yet activated.
   */
  async activationStatus(email: string, meta: RequestMeta): Promise<boolean> {
    await this.#limit([
      { limit: LIMITS.activationIp, key: meta.ip },
      { limit: LIMITS.activationDevice, key: meta.deviceId },
    ]);
    const user = await authRepo.userByEmail(this.db, normalizeEmail(email));
    return Boolean(user?.email_verified_at);
  }

  /** The account a mail is asked for, within the mail limits; not_registered when there is none. */
  async #mailRecipient(email: string, meta: RequestMeta): Promise<UserRow> {
    const address = normalizeEmail(email);
    await this.#limit([
      { limit: LIMITS.mailAccount, key: address },
      { limit: LIMITS.mailIp, key: meta.ip },
    ]);
    const user = await authRepo.userByEmail(this.db, address);
    if (!user) throw new AppError('not_registered');
    return user;
  }

  /** Sends the activation mail again; the answer is the same for addresses without an account. */
  async resendActivation(email: string, meta: RequestMeta): Promise<void> {
    const user = await this.#mailRecipient(email, meta).catch((err: unknown) => {
      if (err instanceof AppError && err.errorName === 'not_registered') return null;
      throw err;
    });
    if (!user || user.email_verified_at) return;
    await this.#sendLink(user, 'activate', meta.locale);
  }

  /** Follows an activation link (single use, 24 h). */
  async activate(token: string): Promise<UserRow> {
    return this.db.transaction(async (tx) => {
      const uid = await authRepo.consumeToken(tx, hashToken(token), 'activate');
      if (uid === null) throw new AppError('link_expired');
      await authRepo.markEmailVerified(tx, uid);
      const user = await authRepo.userByUid(tx, uid);
      if (!user) throw new AppError('link_expired');
      return user;
    });
  }

  /** Forget by e-mail: a reset link (single use, 1 h). */
  async forgotEmail(email: string, meta: RequestMeta): Promise<void> {
    await this.#sendLink(await this.#mailRecipient(email, meta), 'reset', meta.locale);
  }

  /** Sets a new password from a reset link; every session of the account ends. */
  async resetPassword(token: string, verifyPwd: string): Promise<UserRow> {
    const password = await this.#password(verifyPwd);
    const passwordHash = await hash(password, ARGON2_OPTIONS);
    const { user, ended } = await this.db.transaction(async (tx) => {
      const uid = await authRepo.consumeToken(tx, hashToken(token), 'reset');
      if (uid === null) throw new AppError('link_expired');
      await authRepo.setPassword(tx, uid, passwordHash);
      // Following the link proved the address.
      await authRepo.markEmailVerified(tx, uid);
      const ended = await authRepo.revokeAllSessions(tx, uid);
      const user = await authRepo.userByUid(tx, uid);
      if (!user) throw new AppError('link_expired');
      return { user, ended };
    });
    await this.#ended(ended);
    return user;
  }

  async #sendLink(user: UserRow, purpose: 'activate' | 'reset', locale: Locale): Promise<void> {
    if (!user.email) return;
    const token = newToken();
    await authRepo.retireTokens(this.db, user.uid, purpose);
    await authRepo.insertToken(
      this.db,
      hashToken(token),
      user.uid,
      purpose,
      purpose === 'activate' ? ACTIVATE_TTL_S : RESET_TTL_S,
    );
    const path = purpose === 'activate' ? `/activate/${token}` : `/reset-password/${token}`;
    const link = this.site.baseUrl + localizedPath(locale, path);
    const values = { site: this.site.name, name: user.nickname, link };
    const subject = translate(locale, `mail.${purpose}.subject`, values);
    const text = translate(locale, `mail.${purpose}.body`, values);
    const html = text
      .split('\n\n')
      .map(
        (p) =>
          `<p>${escapeHtml(p).replace(escapeHtml(link), `<a href="${escapeHtml(link)}">${escapeHtml(link)}</a>`)}</p>`,
      )
      .join('');
    await this.mailer.send({ to: user.email, subject, text, html });
  }
}

/** "Chrome 131" and "Android 14" from a User-Agent (bowser), or nulls where it says nothing. */
function browserOf(ua: string | null): { browser: string | null; os: string | null } {
  if (!ua) return { browser: null, os: null };
  const { browser, os } = Bowser.parse(ua);
  const named = (name: string | undefined, version: string | undefined) =>
    name ? [name, version?.split('.')[0]].filter(Boolean).join(' ') : null;
  return { browser: named(browser.name, browser.version), os: named(os.name, os.version ?? os.versionName) };
}
