import { randomInt } from 'node:crypto';
import * as oidc from 'openid-client';
import { AppError } from '../../../common/errors';
import { isEmail, safeRedirect } from '../../../common/validation';
import type { Db } from '../../db/client';
import type { Kv } from '../../infra/kv';
import { issueAccessToken } from './checks';
import { authRepo, type UserRow } from './repo';
import type { SessionsEnded } from './service';

/** Spec §3 third-party login codes. */
export const PROVIDER_GOOGLE = 102;
/** A sign-in started at the provider must come back within this. */
const FLOW_TTL_S = 600;

interface Flow {
  verifier: string;
  nonce: string;
  returnTo: string;
}

export interface ThirdPartyResult {
  returnTo: string;
  accessToken: string;
  isNew: boolean;
}

/**
 * Google sign-in over OpenID Connect (authorization code + PKCE + nonce) with openid-client. The
 * issuer is configurable, so tests and staging can point it at any OpenID provider.
 */
export class GoogleSignIn {
  #config: Promise<oidc.Configuration> | null = null;

  constructor(
    private readonly db: Db,
    private readonly kv: Kv,
    private readonly opts: {
      issuer: string;
      clientId: string;
      clientSecret: string | undefined;
      /** Our callback: {public base URL}/api/v1/auth/third/callback */
      redirectUri: string;
      sessionsEnded?: SessionsEnded;
    },
  ) {}

  #configuration(): Promise<oidc.Configuration> {
    const issuer = new URL(this.opts.issuer);
    this.#config ??= oidc
      .discovery(issuer, this.opts.clientId, this.opts.clientSecret, undefined, {
        // Plain http is only accepted for a provider on this machine (tests, development); the
        // library marks the helper deprecated to discourage exactly any other use.
        execute:
          issuer.protocol === 'http:' && ['127.0.0.1', 'localhost'].includes(issuer.hostname)
            ? // eslint-disable-next-line @typescript-eslint/no-deprecated
              [oidc.allowInsecureRequests]
            : [],
        timeout: 10,
      })
      .catch((err: unknown) => {
        this.#config = null;
        throw err;
      });
    return this.#config;
  }

  /** Where to send the browser (spec §7: authorize with plat, display, redirect). */
  async authorizeUrl(returnTo: string): Promise<string> {
    const config = await this.#configuration();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const flow: Flow = { verifier, nonce, returnTo: safeRedirect(returnTo) ?? '/' };
    await this.kv.set(`oidc:${state}`, JSON.stringify(flow), FLOW_TTL_S);
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.opts.redirectUri,
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    }).href;
  }

  /** Where a flow started (to send the browser back there even when it failed). */
  async #flow(state: string | null): Promise<Flow | null> {
    if (!state || state.length > 128) return null;
    const raw = await this.kv.take(`oidc:${state}`);
    return raw ? (JSON.parse(raw) as Flow) : null;
  }

  /**
   * The provider's redirect back: exchanges the code (checking state, PKCE and nonce), finds or
   * creates the account, and answers a single-use access token for the browser to exchange.
   */
  async callback(currentUrl: URL): Promise<ThirdPartyResult | { returnTo: string; error: unknown }> {
    const state = currentUrl.searchParams.get('state');
    const flow = await this.#flow(state);
    if (!flow || !state) return { returnTo: '/', error: new AppError('third_party_failed') };
    try {
      const config = await this.#configuration();
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: flow.verifier,
        expectedState: state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (!idClaims?.sub) throw new AppError('third_party_failed');
      // Google puts e-mail and name in the ID token; other providers may keep them for userinfo.
      const claims =
        idClaims.email === undefined
          ? { ...(await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub)), sub: idClaims.sub }
          : idClaims;
      const email =
        claims.email_verified === true &&
        typeof claims.email === 'string' &&
        isEmail(claims.email.toLowerCase())
          ? claims.email.toLowerCase()
          : null;
      const name = typeof claims.name === 'string' ? claims.name : '';
      const { user, isNew, ended } = await this.#account(claims.sub, email, name);
      if (ended.length) await this.opts.sessionsEnded?.(ended);
      return { returnTo: flow.returnTo, accessToken: await issueAccessToken(this.db, user.uid), isNew };
    } catch (err) {
      return { returnTo: flow.returnTo, error: err };
    }
  }

  /**
   * The account behind a Google identity: linked before; else the account with the same
   * (Google-verified) address; else a new one. An unverified account holding that address was
   * never proven by its creator: its password is cleared and its sessions end, so whoever made
   * it cannot get into the real owner's account.
   */
  async #account(
    subject: string,
    email: string | null,
    name: string,
  ): Promise<{ user: UserRow; isNew: boolean; ended: number[] }> {
    return this.db.transaction(async (tx) => {
      const linked = await authRepo.identityUser(tx, PROVIDER_GOOGLE, subject);
      if (linked) return { user: linked, isNew: false, ended: [] };
      if (!email) throw new AppError('third_party_failed');
      const existing = await authRepo.userByEmail(tx, email);
      if (existing) {
        let ended: number[] = [];
        if (!existing.email_verified_at) {
          await authRepo.setPassword(tx, existing.uid, null);
          ended = await authRepo.revokeAllSessions(tx, existing.uid);
        }
        await authRepo.markEmailVerified(tx, existing.uid);
        await authRepo.linkIdentity(tx, PROVIDER_GOOGLE, subject, existing.uid, email);
        return { user: existing, isNew: false, ended };
      }
      const nickname = name.replace(/[^\p{L}\p{N}]/gu, '').slice(0, 20) || 'Beamer';
      let user: UserRow | null = null;
      for (let i = 0; i < 5 && !user; i++) {
        user = await authRepo.insertVerifiedEmailUser(tx, {
          email,
          nickname,
          shortId: String(randomInt(10_000_000, 99_999_999)),
        });
      }
      if (!user) throw new AppError('internal');
      await authRepo.linkIdentity(tx, PROVIDER_GOOGLE, subject, user.uid, email);
      return { user, isNew: true, ended: [] };
    });
  }
}
