/**
 * The one error catalogue. Every failure the API reports has a stable numeric code, an HTTP status
 * and a message key in the UI catalogues (`error.<name>`). Spec codes (§8) keep their numbers.
 */
export const ERRORS = {
  validation_failed: { code: 1001, http: 400 },
  /** Text PostgreSQL cannot store or no person types: NUL (U+0000), a lone surrogate (server/http/hygiene.ts). */
  invalid_characters: { code: 1002, http: 400 },
  not_found: { code: 1004, http: 404 },
  page_not_found: { code: 1404, http: 404 },
  method_not_allowed: { code: 1005, http: 405 },
  payload_too_large: { code: 1013, http: 413 },
  too_many_requests: { code: 1029, http: 429 },
  internal: { code: 1500, http: 500 },
  maintenance: { code: 1503, http: 503 },
  csrf_failed: { code: 1403, http: 403 },
  // Accounts.
  wrong_credentials: { code: 1101, http: 401 },
  need_captcha: { code: 1102, http: 400 },
  wrong_captcha: { code: 1103, http: 400 },
  not_registered: { code: 1104, http: 404 },
  invalid_password: { code: 1105, http: 400 },
  invalid_email: { code: 1106, http: 400 },
  link_expired: { code: 1107, http: 410 },
  access_token_invalid: { code: 1108, http: 404 },
  sms_failed: { code: 1109, http: 502 },
  tongdun_fail: { code: 1110, http: 400 },
  risk_rejected: { code: 1111, http: 403 },
  third_party_failed: { code: 1112, http: 502 },
  // Media (WHIP/WHEP).
  bad_sdp: { code: 1201, http: 400 },
  publisher_exists: { code: 1202, http: 409 },
  no_publisher: { code: 1203, http: 404 },
  media_session_not_found: { code: 1204, http: 404 },
  stream_key_invalid: { code: 1205, http: 401 },
  not_room_owner: { code: 1206, http: 403 },
  title_required: { code: 1207, http: 400 },
  video_not_found: { code: 1208, http: 404 },
  video_ended: { code: 1209, http: 410 },
  obs_not_allowed: { code: 1210, http: 403 },
  cover_invalid: { code: 1211, http: 400 },
  title_sensitive: { code: 1212, http: 400 },
  /** One live per broadcaster: they are live in another tab (or from OBS); the studio asks to take over. */
  live_elsewhere: { code: 1213, http: 409 },
  /** Every media node is at its WebRTC capacity: the player plays the broadcast's LL-HLS instead. */
  media_full: { code: 1214, http: 503 },
  // Realtime (/ws) and the live room.
  bad_message: { code: 1301, http: 400 },
  not_in_room: { code: 1302, http: 400 },
  sign_in_first: { code: 1303, http: 401 },
  chat_empty: { code: 1304, http: 400 },
  message_not_found: { code: 1305, http: 404 },
  not_allowed: { code: 1306, http: 403 },
  follow_self: { code: 1307, http: 400 },
  /** Spec §6: the host blocked this viewer permanently (chat, media, the room itself). */
  blocked_permanently: { code: 1308, http: 403 },
  cannot_block: { code: 1309, http: 400 },
  report_self: { code: 1310, http: 400 },
  // Money: the ledger, gifts, the wallet.
  insufficient_coins: { code: 1601, http: 402 },
  /** Spec §8 'Insufficient diamond!'. */
  insufficient_diamonds: { code: 1602, http: 402 },
  /** Spec §8: gifts are not allowed while the host is offline. */
  host_offline: { code: 1603, http: 409 },
  gift_not_found: { code: 1604, http: 404 },
  /** Spec §4: only video gifts are supported; a lottie gift raises this. */
  gift_format_unsupported: { code: 1605, http: 422 },
  gift_self: { code: 1606, http: 400 },
  /** The same idempotency key was used for a different request. */
  idempotency_conflict: { code: 1607, http: 409 },
  /** Spec §8 getOrderFail: the payment provider could not open a checkout. */
  get_order_fail: { code: 1608, http: 502 },
  /** Spec §6: recharge needs a phone or a verified e-mail bound to the account. */
  contact_required: { code: 1609, http: 403 },
  package_not_found: { code: 1610, http: 404 },
  /** A payment webhook whose signature does not verify (or is too old). */
  bad_signature: { code: 1611, http: 400 },
  /** Spec §8: the diamond balance is below the cash-out minimum. */
  cashout_below_minimum: { code: 1612, http: 400 },
  /** Spec §8: the weekly cash-out cap is reached. */
  cashout_weekly_cap: { code: 1613, http: 409 },
  /** Spec §8, §6: the payee account is not approved (yet). */
  payee_not_approved: { code: 1614, http: 403 },
  /** Spec §5: the payee account must be valid. */
  payee_invalid: { code: 1615, http: 400 },
  /** A staff decision on something already decided. */
  already_reviewed: { code: 1616, http: 409 },
  /** Converting diamonds: an amount the rate cannot divide into whole coins. */
  convert_amount_invalid: { code: 1617, http: 400 },
  /**
   * A recharge of this user was refunded or charged back after its coins were spent: no cash-out
   * until staff settle the shortfall (docs/money.md).
   */
  reversal_shortfall: { code: 1620, http: 403 },
  /** Staff refund only a paid recharge that was not given back already. */
  order_not_refundable: { code: 1621, http: 409 },
  /** Staff deciding on their own payee account or cash-out: someone else must. */
  review_own: { code: 1630, http: 403 },
  // PK battles.
  /** A battle is between two hosts who are live now. */
  pk_not_live: { code: 1701, http: 409 },
  /** The other host is not live, takes no invitations, or is in another battle. */
  pk_unavailable: { code: 1702, http: 409 },
  /** This host is already in a battle (or has an invitation open). */
  pk_busy: { code: 1703, http: 409 },
  /** The invitation was answered, withdrawn or ran out of time. */
  pk_invite_gone: { code: 1704, http: 410 },
  pk_self: { code: 1705, http: 400 },
  /** A dare is suggested by the winner's room during the dare, once the result is known. */
  pk_no_dare: { code: 1706, http: 409 },
  // Short videos (issue 23 item 1).
  short_not_found: { code: 1801, http: 404 },
  /** An upload longer than 60 s (or a clip longer than that, or shorter than 1 s). */
  short_too_long: { code: 1802, http: 400 },
  /** Not a video the site can read: no video track, or a format it does not know. */
  short_unreadable: { code: 1803, http: 415 },
  /** A clip's in and out points outside the replay, or out before in. */
  clip_range_invalid: { code: 1804, http: 400 },
  /** The video is still being transcoded or cut (or was refused): it cannot be liked or commented. */
  short_not_ready: { code: 1805, http: 409 },
  // Audio rooms (issue 23 item 3).
  /** The site's media engine carries no audio-only rooms (Janus): none can be opened. */
  audio_unavailable: { code: 1810, http: 409 },
  // The staff console (issue 24).
  /** A staff member's sign-in lacks its second factor (or it is older than STAFF_SESSION_MS). */
  staff_mfa_required: { code: 1901, http: 403 },
  /** The authenticator code was wrong, or already used. */
  staff_mfa_invalid: { code: 1902, http: 400 },
  /** An authenticator is set up already: an admin resets it before another is. */
  staff_mfa_enrolled: { code: 1904, http: 409 },
  /** The account is banned (staff, for breaking the guidelines): no sign-in, no cash-out. */
  account_banned: { code: 1905, http: 403 },
  /** Staff suspended this account from going live for a while. */
  live_suspended: { code: 1906, http: 403 },
  /** The last admin cannot be removed or made anything else. */
  staff_last_admin: { code: 1903, http: 409 },
  /** A large cash-out's second approval must come from another member of staff than its first. */
  second_approver_required: { code: 1907, http: 409 },
  /** Another news article has this address already. */
  news_slug_taken: { code: 1908, http: 409 },
  // Spec §8 codes.
  invalid_session: { code: 402, http: 401 },
  wrong_code: { code: 601, http: 400 },
  email_not_activated: { code: 4044, http: 403 },
  invalid_phone: { code: 12000, http: 400 },
  account_exists: { code: 12005, http: 409 },
  phone_exists: { code: 12006, http: 409 },
} as const;

export type ErrorName = keyof typeof ERRORS;

/** An error the API can report as it is. Throw it from services; the HTTP layer serialises it. */
export class AppError extends Error {
  readonly errorName: ErrorName;
  readonly code: number;
  readonly http: number;
  readonly details: unknown;

  constructor(name: ErrorName, details?: unknown) {
    super(name);
    this.name = 'AppError';
    this.errorName = name;
    this.code = ERRORS[name].code;
    this.http = ERRORS[name].http;
    this.details = details;
  }
}

/** Failure body of the API envelope. */
export interface ErrorBody {
  status: number;
  code: number;
  error: ErrorName;
  message: string;
  details?: unknown;
}
