import type { UserInfo } from '../../../common/api/auth';
import type { UserRow } from './repo';

// The request and response schemas are the API contract's (common/api/auth.ts); what stays here is
// how a stored user becomes the contract's user_info.

export function userInfo(u: UserRow): UserInfo {
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
