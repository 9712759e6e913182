import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  accessTokenAnswer,
  authErrors as errors,
  countryAnswer,
  forgotPhoneAnswer,
  forgotPhoneBody,
  registerPhoneBody,
  resetBody,
  riskTokenAnswer,
  riskTokenBody,
  smsCodeAnswer,
  smsCodeBody,
} from '../../../common/api/auth';
import { okSchema } from '../../../common/api/envelope';
import { FALLBACK_COUNTRY } from '../../../common/phone';
import { enforceLimits, LIMITS } from '../../infra/ratelimit';
import type { Kv } from '../../infra/kv';
import type { MetaReader } from './meta';
import type { PhoneAuthService } from './phone-service';
import type { RiskProvider } from './risk';

const accessToken = okSchema(accessTokenAnswer);

/** Phone sign-up and recovery, the device risk token and the visitor-country lookup. */
export function phoneRoutes(
  phone: PhoneAuthService,
  risk: RiskProvider,
  opts: { meta: MetaReader; kv: Kv; limitScale: number },
): FastifyPluginAsyncZod {
  const { meta } = opts;
  return async (app) => {
    const tags = ['auth'];

    app.get(
      '/api/v1/geo/country',
      {
        schema: {
          tags: ['geo'],
          summary: "The visitor's country (default of the phone country selector; US when unknown)",
          response: { 200: okSchema(countryAnswer) },
        },
      },
      async (req, reply) => {
        void reply.header('cache-control', 'private, no-store');
        const { country } = meta(req);
        return {
          status: 200 as const,
          data: { countryCode: country ?? FALLBACK_COUNTRY, known: country !== null },
        };
      },
    );

    app.post(
      '/api/v1/auth/risk-token',
      {
        schema: {
          tags,
          summary: 'A device risk token from signals the browser collected (30 min, single use)',
          body: riskTokenBody,
          response: { 200: okSchema(riskTokenAnswer), ...errors },
        },
      },
      async (req) => {
        const m = meta(req);
        await enforceLimits(opts.kv, [{ limit: LIMITS.riskIp, key: m.ip }], opts.limitScale);
        const { token, expiresIn } = await risk.issue(req.body.signals, m);
        return { status: 200 as const, data: { risk_token: token, expires_in: expiresIn } };
      },
    );

    app.post(
      '/api/v1/auth/sms-code',
      {
        schema: {
          tags,
          summary: 'Send an SMS code (type 4 register, 3 forget); needs the image captcha',
          body: smsCodeBody,
          response: { 200: okSchema(smsCodeAnswer), ...errors },
        },
      },
      async (req) => {
        const { phone: e164, resendIn } = await phone.sendCode(
          {
            country: req.body.country,
            phone: req.body.phone,
            type: req.body.type,
            captchaId: req.body.captcha_id,
            captcha: req.body.captcha,
          },
          meta(req, req.body.locale),
        );
        return { status: 200 as const, data: { phone: e164, resend_in: resendIn } };
      },
    );

    app.post(
      '/api/v1/auth/register/phone',
      {
        schema: {
          tags,
          summary: 'Register by phone (SMS code, device risk token); answers an access token',
          body: registerPhoneBody,
          response: { 200: accessToken, ...errors },
        },
      },
      async (req) => {
        const { accessToken } = await phone.register(
          {
            country: req.body.country,
            phone: req.body.phone,
            verifyPwd: req.body.verify_pwd,
            verifyCode: req.body.verify_code,
            riskToken: req.body.risk_token,
          },
          meta(req),
        );
        return { status: 200 as const, data: { access_token: accessToken } };
      },
    );

    app.post(
      '/api/v1/auth/forgot/phone/verify',
      {
        schema: {
          tags,
          summary: 'Forget by phone: check the SMS code; answers a token for confirming the new password',
          body: forgotPhoneBody,
          response: { 200: okSchema(forgotPhoneAnswer), ...errors },
        },
      },
      async (req) => {
        const { token } = await phone.verifyForgot(
          { country: req.body.country, phone: req.body.phone, verifyCode: req.body.verify_code },
          meta(req),
        );
        return { status: 200 as const, data: { token } };
      },
    );

    app.post(
      '/api/v1/auth/reset/phone',
      {
        schema: {
          tags,
          summary:
            'Confirm the new password after the phone check; ends other sessions, answers an access token',
          body: resetBody,
          response: { 200: accessToken, ...errors },
        },
      },
      async (req) => {
        const { accessToken } = await phone.resetPassword(req.body.token, req.body.verify_pwd);
        return { status: 200 as const, data: { access_token: accessToken } };
      },
    );
  };
}
