import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  accessTokenAnswer,
  activationAnswer,
  activationQuery,
  authErrors as errors,
  captchaAnswer,
  captchaAudioAnswer,
  captchaAudioParams,
  captchaAudioQuery,
  emailBody,
  emptyAnswer,
  existsAnswer,
  existsQuery,
  logoutAllAnswer,
  publicKeyAnswer,
  registerEmailAnswer,
  registerEmailBody,
  resetAnswer,
  resetBody,
  sessionAnswer,
  sessionBody,
  verifyLoginBody,
} from '../../../common/api/auth';
import { okSchema } from '../../../common/api/envelope';
import { clearSessionCookies, requireAuth, setSessionCookies } from './context';
import { newToken } from './crypto';
import type { MetaReader } from './meta';
import { userInfo } from './schemas';
import { SESSION_TTL_KEEP_S, type AuthService } from './service';

export function authRoutes(
  auth: AuthService,
  opts: {
    secureCookies: boolean;
    meta: MetaReader;
  },
): FastifyPluginAsyncZod {
  const { meta } = opts;
  return async (app) => {
    const tags = ['auth'];

    app.get(
      '/api/v1/auth/public-key',
      {
        schema: {
          tags,
          summary: 'RSA-OAEP (SHA-256, 2048-bit) key for password transport',
          response: { 200: okSchema(publicKeyAnswer) },
        },
      },
      async () => ({
        status: 200 as const,
        data: { pubkey: auth.publicKey() },
      }),
    );

    app.get(
      '/api/v1/auth/exists',
      {
        schema: {
          tags,
          summary: 'Whether an account exists (decides sign-in or sign-up)',
          querystring: existsQuery,
          response: { 200: okSchema(existsAnswer), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: { exists: await auth.exists(req.query.name, meta(req)) },
      }),
    );

    app.get(
      '/api/v1/auth/captcha',
      {
        schema: {
          tags,
          summary: 'A new image captcha (a PNG data URL); answer it within 5 minutes, once',
          response: { 200: okSchema(captchaAnswer), ...errors },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'no-store');
        return { status: 200 as const, data: await auth.captcha(meta(req)) };
      },
    );

    app.get(
      '/api/v1/auth/captcha/:id/audio',
      {
        schema: {
          tags,
          summary:
            "The captcha's spoken alternative (audio/wav, digits in the page language); from then on the captcha's answer is those digits",
          params: captchaAudioParams,
          querystring: captchaAudioQuery,
          response: { 200: captchaAudioAnswer, ...errors },
        },
      },
      async (req, reply) => {
        const wav = await auth.captchas.audio(req.params.id, meta(req, req.query.locale));
        return reply.header('cache-control', 'no-store').type('audio/wav').send(wav);
      },
    );

    app.post(
      '/api/v1/auth/verify-login',
      {
        schema: {
          tags,
          summary: 'Check e-mail and encrypted password; answers an access token (2 min, single use)',
          body: verifyLoginBody,
          response: { 200: okSchema(accessTokenAnswer), ...errors },
        },
      },
      async (req) => {
        const { accessToken } = await auth.verifyLogin(
          {
            name: req.body.name,
            verifyPwd: req.body.verify_pwd,
            captchaId: req.body.captcha_id,
            captcha: req.body.captcha,
          },
          meta(req),
        );
        return { status: 200 as const, data: { access_token: accessToken } };
      },
    );

    app.post(
      '/api/v1/auth/session',
      {
        schema: {
          tags,
          summary: 'Exchange an access token for a session (cookie + token/deviceid/uid credentials)',
          body: sessionBody,
          response: { 200: okSchema(sessionAnswer), ...errors },
        },
      },
      async (req, reply) => {
        const ua = req.headers['user-agent'];
        const session = await auth.createSession(
          req.body.access_token,
          req.body.keep === 1,
          req.body.deviceid,
          {
            ip: req.ip,
            userAgent: typeof ua === 'string' ? ua : undefined,
          },
        );
        const user = await auth.user(session.uid);
        if (!user) throw new Error('session user vanished');
        setSessionCookies(
          reply,
          session.token,
          newToken(),
          session.keep ? SESSION_TTL_KEEP_S : null,
          opts.secureCookies,
        );
        return {
          status: 200 as const,
          data: {
            token: session.token,
            deviceid: session.deviceId,
            uid: session.uid,
            keep: session.keep ? 1 : 0,
            user: userInfo(user),
          },
        };
      },
    );

    app.post(
      '/api/v1/auth/register/email',
      {
        schema: {
          tags,
          summary: 'Register by e-mail (image captcha); sends the activation mail',
          body: registerEmailBody,
          response: { 200: okSchema(registerEmailAnswer), ...errors },
        },
      },
      async (req) => {
        await auth.registerEmail(
          {
            email: req.body.email,
            verifyPwd: req.body.verify_pwd,
            captchaId: req.body.captcha_id,
            captcha: req.body.captcha,
            country: req.body.country,
            riskToken: req.body.risk_token,
          },
          meta(req, req.body.locale),
        );
        return { status: 200 as const, data: { need_active: 1 as const } };
      },
    );

    app.get(
      '/api/v1/auth/activation',
      {
        schema: {
          tags,
          summary:
            'Activation state of an e-mail account (false for an unknown address too); limited per source',
          querystring: activationQuery,
          response: { 200: okSchema(activationAnswer), ...errors },
        },
      },
      async (req) => ({
        status: 200 as const,
        data: { is_active: await auth.activationStatus(req.query.email, meta(req)) },
      }),
    );

    app.post(
      '/api/v1/auth/activation/resend',
      {
        schema: {
          tags,
          summary: 'Send the activation mail again (the same answer for an address without an account)',
          body: emailBody,
          response: { 200: okSchema(emptyAnswer), ...errors },
        },
      },
      async (req) => {
        await auth.resendActivation(req.body.email, meta(req, req.body.locale));
        return { status: 200 as const, data: {} };
      },
    );

    app.post(
      '/api/v1/auth/forgot/email',
      {
        schema: {
          tags,
          summary: 'Send a password reset mail',
          body: emailBody,
          response: { 200: okSchema(emptyAnswer), ...errors },
        },
      },
      async (req) => {
        await auth.forgotEmail(req.body.email, meta(req, req.body.locale));
        return { status: 200 as const, data: {} };
      },
    );

    app.post(
      '/api/v1/auth/reset',
      {
        schema: {
          tags,
          summary: 'Set a new password from a reset link; ends every session',
          body: resetBody,
          response: { 200: okSchema(resetAnswer), ...errors },
        },
      },
      async (req, reply) => {
        const user = await auth.resetPassword(req.body.token, req.body.verify_pwd);
        clearSessionCookies(reply);
        return { status: 200 as const, data: { email: user.email } };
      },
    );

    app.post(
      '/api/v1/auth/logout',
      {
        schema: {
          tags,
          summary: 'Sign out this session',
          response: { 200: okSchema(emptyAnswer), ...errors },
        },
      },
      async (req, reply) => {
        if (req.auth) await auth.signOut(req.auth.sessionId);
        clearSessionCookies(reply);
        return { status: 200 as const, data: {} };
      },
    );

    app.post(
      '/api/v1/auth/logout-all',
      {
        schema: {
          tags,
          summary: 'Sign out on every device',
          response: { 200: okSchema(logoutAllAnswer), ...errors },
        },
      },
      async (req, reply) => {
        const { uid } = requireAuth(req);
        const sessions = await auth.signOutEverywhere(uid);
        clearSessionCookies(reply);
        return { status: 200 as const, data: { sessions } };
      },
    );
  };
}
