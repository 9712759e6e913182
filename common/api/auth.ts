// Sign-in, sign-up, recovery, sessions and /me (server/modules/auth/routes.ts, phone-routes.ts,
// third-routes.ts), the device risk token and the visitor's country.
import { z } from 'zod';
import { SMS_TYPE } from '../phone';
import { type Answer, errorResponses } from './envelope';
import { publicProfileSchema } from './users';

export const authErrors = errorResponses(400, 502, 401, 403, 404, 409, 410, 429);

export const deviceId = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/);
/** A password encrypted with the public key (RSA-OAEP), base64. */
export const ciphertext = z.string().min(16).max(1024);
export const localeParam = z.string().max(8).optional();
export const riskTokenParam = z.string().max(64).optional();
const captchaParts = {
  captcha_id: z.string().max(64).optional(),
  captcha: z.string().max(20).optional(),
};

/** Spec §3 user_info (what exists so far) and the stored-login user (uid, country, area). */
export const userInfoSchema = publicProfileSchema
  .pick({
    uid: true,
    short_id: true,
    nickname: true,
    face: true,
    usign: true,
    sex: true,
    level: true,
    anchor_level: true,
    addr: true,
  })
  .extend({
    country: z.string(),
    area: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
  });
export type UserInfo = Answer<typeof userInfoSchema>;

/** GET /api/v1/auth/public-key. */
export const publicKeyAnswer = z.object({ pubkey: z.string() });

/** GET /api/v1/auth/exists. */
export const existsQuery = z.object({ name: z.string().max(254) });
export const existsAnswer = z.object({ exists: z.boolean() });

/** GET /api/v1/auth/captcha. */
export const captchaAnswer = z.object({ id: z.string(), image: z.string() });
export type Captcha = Answer<typeof captchaAnswer>;

/** GET /api/v1/auth/captcha/:id/audio. */
export const captchaAudioParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{20,64}$/) });
export const captchaAudioQuery = z.object({ locale: localeParam });
/** The WAV file itself (audio/wav), not JSON. */
export const captchaAudioAnswer = z.any();

/** POST /api/v1/auth/verify-login. */
export const verifyLoginBody = z.object({
  name: z.string().max(254),
  verify_pwd: ciphertext,
  ...captchaParts,
});
/** The answer of verify-login, phone sign-up and the phone reset: a single-use access token. */
export const accessTokenAnswer = z.object({ access_token: z.string() });

/** POST /api/v1/auth/session. */
export const sessionBody = z.object({
  access_token: z.string().max(64),
  keep: z.union([z.literal(0), z.literal(1)]).default(0),
  deviceid: deviceId,
});
export const sessionAnswer = z.object({
  token: z.string(),
  deviceid: z.string(),
  uid: z.number(),
  keep: z.number(),
  user: userInfoSchema,
});

/** POST /api/v1/auth/register/email. */
export const registerEmailBody = z.object({
  email: z.string().max(254),
  verify_pwd: ciphertext,
  ...captchaParts,
  locale: localeParam,
  country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .default('US'),
  risk_token: riskTokenParam,
});
export const registerEmailAnswer = z.object({ need_active: z.literal(1) });

/** GET /api/v1/auth/activation. */
export const activationQuery = z.object({ email: z.string().max(254) });
export const activationAnswer = z.object({ is_active: z.boolean() });

/** POST /api/v1/auth/activation/resend and /api/v1/auth/forgot/email. */
export const emailBody = z.object({ email: z.string().max(254), locale: localeParam });

/** POST /api/v1/auth/reset and /api/v1/auth/reset/phone. */
export const resetBody = z.object({ token: z.string().max(64), verify_pwd: ciphertext });
export const resetAnswer = z.object({ email: z.string().nullable() });

/** An answer with nothing to say (sign-out, mails sent). */
export const emptyAnswer = z.object({});

/** POST /api/v1/auth/logout-all. */
export const logoutAllAnswer = z.object({ sessions: z.number() });

/** GET /api/v1/me. */
export const meAnswer = z.object({
  user_info: userInfoSchema.extend({
    /** Staff may delete any chat message and remind a room of the guidelines. */
    staff: z.boolean(),
  }),
  count_info: z.object({ follower_count: z.number(), following_count: z.number() }),
});
export type Me = Answer<typeof meAnswer>;

/** GET /api/v1/geo/country. */
export const countryAnswer = z.object({ countryCode: z.string(), known: z.boolean() });

/** What the browser reports for the device risk token (spec §4); scored by the server's risk provider. */
export const deviceSignalsSchema = z.object({
  ua: z.string().max(512),
  languages: z.array(z.string().max(35)).max(20),
  timeZone: z.string().max(64),
  /** Date#getTimezoneOffset() at collection time, in minutes. */
  tzOffset: z.number().int().min(-900).max(900),
  screen: z.tuple([z.number().int().min(0).max(20000), z.number().int().min(0).max(20000)]),
  colorDepth: z.number().int().min(0).max(64),
  pixelRatio: z.number().min(0).max(16),
  cores: z.number().int().min(0).max(1024),
  memory: z.number().min(0).max(1024).nullable(),
  touchPoints: z.number().int().min(0).max(64),
  platform: z.string().max(64),
  /** SHA-256 (hex) of a canvas drawing: differs with GPU, fonts and anti-aliasing. */
  canvas: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  webgl: z.string().max(256).nullable(),
  webdriver: z.boolean(),
});

/** POST /api/v1/auth/risk-token. */
export const riskTokenBody = z.object({ signals: deviceSignalsSchema });
export const riskTokenAnswer = z.object({ risk_token: z.string(), expires_in: z.number() });

const phoneParts = {
  country: z.string().regex(/^[A-Z]{2}$/),
  phone: z.string().max(24),
};

/** POST /api/v1/auth/sms-code. */
export const smsCodeBody = z.object({
  ...phoneParts,
  type: z.union([z.literal(SMS_TYPE.register), z.literal(SMS_TYPE.forget)]).default(SMS_TYPE.register),
  ...captchaParts,
  locale: localeParam,
});
export const smsCodeAnswer = z.object({ phone: z.string(), resend_in: z.number() });

/** POST /api/v1/auth/register/phone. */
export const registerPhoneBody = z.object({
  ...phoneParts,
  verify_pwd: ciphertext,
  verify_code: z.string().max(8),
  risk_token: riskTokenParam,
});

/** POST /api/v1/auth/forgot/phone/verify. */
export const forgotPhoneBody = z.object({ ...phoneParts, verify_code: z.string().max(8) });
export const forgotPhoneAnswer = z.object({ token: z.string() });

/** GET /api/v1/auth/third/authorize. */
export const thirdAuthorizeQuery = z.object({
  plat: z.literal('google'),
  display: z.string().max(16).optional(),
  redirect: z.string().max(2048).optional(),
});
/** GET /api/v1/auth/third/callback: whatever the provider sends back. */
export const thirdCallbackQuery = z.record(z.string(), z.string().max(4096));
