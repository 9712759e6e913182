import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { okSchema } from '../../http/envelope';
import { clearSessionCookies, requireAuth, setSessionCookies } from './context';
import { newToken } from './crypto';
import type { MetaReader } from './meta';
import {
  ciphertext,
  deviceId,
  errors,
  localeParam,
  riskTokenParam,
  userInfo,
  userInfoSchema,
} from './schemas';
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
          response: { 200: okSchema(z.object({ pubkey: z.string() })) },
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
          querystring: z.object({ name: z.string().max(254) }),
          response: { 200: okSchema(z.object({ exists: z.boolean() })), ...errors },
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
          response: { 200: okSchema(z.object({ id: z.string(), image: z.string() })), ...errors },
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
          params: z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{20,64}$/) }),
          querystring: z.object({ locale: localeParam }),
          response: { 200: z.any(), ...errors },
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
          body: z.object({
            name: z.string().max(254),
            verify_pwd: ciphertext,
            captcha_id: z.string().max(64).optional(),
            captcha: z.string().max(20).optional(),
          }),
          response: { 200: okSchema(z.object({ access_token: z.string() })), ...errors },
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
          body: z.object({
            access_token: z.string().max(64),
            keep: z.union([z.literal(0), z.literal(1)]).default(0),
            deviceid: deviceId,
          }),
          response: {
            200: okSchema(
              z.object({
                token: z.string(),
                deviceid: z.string(),
                uid: z.number(),
                keep: z.number(),
                user: userInfoSchema,
              }),
            ),
            ...errors,
          },
        },
      },
      async (req, reply) => {
        const session = await auth.createSession(
          req.body.access_token,
          req.body.keep === 1,
          req.body.deviceid,
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
          body: z.object({
            email: z.string().max(254),
            verify_pwd: ciphertext,
            captcha_id: z.string().max(64).optional(),
            captcha: z.string().max(20).optional(),
            locale: localeParam,
            country: z
              .string()
              .regex(/^[A-Z]{2}$/)
              .default('US'),
            risk_token: riskTokenParam,
          }),
          response: { 200: okSchema(z.object({ need_active: z.literal(1) })), ...errors },
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
          querystring: z.object({ email: z.string().max(254) }),
          response: { 200: okSchema(z.object({ is_active: z.boolean() })), ...errors },
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
          body: z.object({ email: z.string().max(254), locale: localeParam }),
          response: { 200: okSchema(z.object({})), ...errors },
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
          body: z.object({ email: z.string().max(254), locale: localeParam }),
          response: { 200: okSchema(z.object({})), ...errors },
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
          body: z.object({ token: z.string().max(64), verify_pwd: ciphertext }),
          response: { 200: okSchema(z.object({ email: z.string().nullable() })), ...errors },
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
          response: { 200: okSchema(z.object({})), ...errors },
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
          response: { 200: okSchema(z.object({ sessions: z.number() })), ...errors },
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
