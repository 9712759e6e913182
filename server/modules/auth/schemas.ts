import { z } from 'zod';
import { errorSchema } from '../../http/envelope';
import { publicProfileSchema } from '../../../common/api/profile';
import type { UserRow } from './repo';

export const deviceId = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/);
export const ciphertext = z.string().min(16).max(1024);
export const errors = {
  400: errorSchema,
  502: errorSchema,
  401: errorSchema,
  403: errorSchema,
  404: errorSchema,
  409: errorSchema,
  410: errorSchema,
  429: errorSchema,
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

export function userInfo(u: UserRow): z.infer<typeof userInfoSchema> {
  return {
    uid: u.uid,
    short_id: u.short_id,
    nickname: u.nickname,
    face: u.face,
    usign: u.usign,
    sex: u.sex,
    level: u.level,
    anchor_level: u.anchor_level,
    addr: u.addr,
    country: u.country,
    area: u.area,
    email: u.email,
    phone: u.phone,
  };
}

export const localeParam = z.string().max(8).optional();
export const riskTokenParam = z.string().max(64).optional();
