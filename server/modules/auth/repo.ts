import type { Queryable } from '../../db/client';

export interface UserRow {
  uid: number;
  short_id: string;
  email: string | null;
  phone: string | null;
  password_hash: string | null;
  nickname: string;
  face: string | null;
  usign: string;
  sex: number;
  birthday: string | null;
  addr: string;
  level: number;
  anchor_level: number;
  country: string;
  area: string;
  email_verified_at: Date | null;
  created_at: Date;
}

export type TokenPurpose = 'access' | 'activate' | 'reset' | 'phone_reset';

export const authRepo = {
  async userByEmail(db: Queryable, email: string): Promise<UserRow | null> {
    const [row] = await db.query<UserRow>('SELECT * FROM users WHERE email = $1', [email]);
    return row ?? null;
  },

  async userByPhone(db: Queryable, phone: string): Promise<UserRow | null> {
    const [row] = await db.query<UserRow>('SELECT * FROM users WHERE phone = $1', [phone]);
    return row ?? null;
  },

  /** Inserts a user who signed up with a phone number; null when the number or short id is taken. */
  async insertPhoneUser(
    db: Queryable,
    u: { phone: string; passwordHash: string; nickname: string; shortId: string; country: string },
  ): Promise<UserRow | null> {
    const [row] = await db.query<UserRow>(
      `INSERT INTO users (phone, password_hash, nickname, short_id, country, area)
       VALUES ($1, $2, $3, $4, $5, lower($5)) ON CONFLICT DO NOTHING RETURNING *`,
      [u.phone, u.passwordHash, u.nickname, u.shortId, u.country],
    );
    return row ?? null;
  },

  async userByUid(db: Queryable, uid: number): Promise<UserRow | null> {
    const [row] = await db.query<UserRow>('SELECT * FROM users WHERE uid = $1', [uid]);
    return row ?? null;
  },

  /** Inserts a user; null when the e-mail or short id is taken. */
  async insertEmailUser(
    db: Queryable,
    u: { email: string; passwordHash: string; nickname: string; shortId: string; country: string },
  ): Promise<UserRow | null> {
    const [row] = await db.query<UserRow>(
      `INSERT INTO users (email, password_hash, nickname, short_id, country, area)
       VALUES ($1, $2, $3, $4, $5, lower($5)) ON CONFLICT DO NOTHING RETURNING *`,
      [u.email, u.passwordHash, u.nickname, u.shortId, u.country],
    );
    return row ?? null;
  },

  /** A user who proved an e-mail address elsewhere (Google) and has no password here. */
  async insertVerifiedEmailUser(
    db: Queryable,
    u: { email: string; nickname: string; shortId: string },
  ): Promise<UserRow | null> {
    const [row] = await db.query<UserRow>(
      `INSERT INTO users (email, nickname, short_id, email_verified_at)
       VALUES ($1, $2, $3, now()) ON CONFLICT (short_id) DO NOTHING RETURNING *`,
      [u.email, u.nickname, u.shortId],
    );
    return row ?? null;
  },

  async identityUser(db: Queryable, provider: number, subject: string): Promise<UserRow | null> {
    const [row] = await db.query<UserRow>(
      `SELECT u.* FROM user_identities i JOIN users u ON u.uid = i.uid WHERE i.provider = $1 AND i.subject = $2`,
      [provider, subject],
    );
    return row ?? null;
  },

  async linkIdentity(
    db: Queryable,
    provider: number,
    subject: string,
    uid: number,
    email: string | null,
  ): Promise<void> {
    await db.query('INSERT INTO user_identities (provider, subject, uid, email) VALUES ($1, $2, $3, $4)', [
      provider,
      subject,
      uid,
      email,
    ]);
  },

  async setPassword(db: Queryable, uid: number, passwordHash: string | null): Promise<void> {
    await db.query('UPDATE users SET password_hash = $2 WHERE uid = $1', [uid, passwordHash]);
  },

  async markEmailVerified(db: Queryable, uid: number): Promise<void> {
    await db.query('UPDATE users SET email_verified_at = coalesce(email_verified_at, now()) WHERE uid = $1', [
      uid,
    ]);
  },

  async insertToken(
    db: Queryable,
    tokenHash: Buffer,
    uid: number,
    purpose: TokenPurpose,
    ttlSeconds: number,
  ): Promise<void> {
    await db.query(
      `INSERT INTO one_time_tokens (token_hash, uid, purpose, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
      [tokenHash, uid, purpose, ttlSeconds],
    );
  },

  /** Uses a token once: returns its uid when it was valid, unused and unexpired. */
  async consumeToken(db: Queryable, tokenHash: Buffer, purpose: TokenPurpose): Promise<number | null> {
    const [row] = await db.query<{ uid: number }>(
      `UPDATE one_time_tokens SET used_at = now()
       WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now() RETURNING uid`,
      [tokenHash, purpose],
    );
    return row?.uid ?? null;
  },

  /** Retires a user's unused tokens of one purpose (a newer mail replaces the older link). */
  async retireTokens(db: Queryable, uid: number, purpose: TokenPurpose): Promise<void> {
    await db.query(
      'UPDATE one_time_tokens SET used_at = now() WHERE uid = $1 AND purpose = $2 AND used_at IS NULL',
      [uid, purpose],
    );
  },

  async insertSession(
    db: Queryable,
    s: {
      tokenHash: Buffer;
      uid: number;
      deviceId: string;
      keep: boolean;
      ttlSeconds: number;
      ip: string | null;
      userAgent: string | null;
    },
  ): Promise<{ id: number; expires_at: Date }> {
    const [row] = await db.query<{ id: number; expires_at: Date }>(
      `INSERT INTO sessions (token_hash, uid, device_id, keep, expires_at, ip, user_agent)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5), $6, left($7, 512)) RETURNING id, expires_at`,
      [s.tokenHash, s.uid, s.deviceId, s.keep, s.ttlSeconds, s.ip, s.userAgent],
    );
    if (!row) throw new Error('session insert returned nothing');
    return row;
  },

  async liveSession(
    db: Queryable,
    tokenHash: Buffer,
  ): Promise<{ id: number; uid: number; device_id: string; expires_at: Date } | null> {
    const [row] = await db.query<{ id: number; uid: number; device_id: string; expires_at: Date }>(
      'SELECT id, uid, device_id, expires_at FROM sessions WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > now()',
      [tokenHash],
    );
    return row ?? null;
  },

  /** Of these sessions, the ones still live (not revoked, not expired). */
  async liveSessionIds(db: Queryable, ids: number[]): Promise<number[]> {
    const rows = await db.query<{ id: number }>(
      'SELECT id FROM sessions WHERE id = ANY($1::bigint[]) AND revoked_at IS NULL AND expires_at > now()',
      [ids],
    );
    return rows.map((r) => r.id);
  },

  /** Revokes one session; answers its id when it was live until now (else nothing changed). */
  async revokeSession(db: Queryable, id: number): Promise<number[]> {
    const rows = await db.query<{ id: number }>(
      'UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id',
      [id],
    );
    return rows.map((r) => r.id);
  },

  /** Revokes every session of a user; answers the ids of those that were live until now. */
  async revokeAllSessions(db: Queryable, uid: number): Promise<number[]> {
    const rows = await db.query<{ id: number }>(
      'UPDATE sessions SET revoked_at = now() WHERE uid = $1 AND revoked_at IS NULL RETURNING id',
      [uid],
    );
    return rows.map((r) => r.id);
  },

  /** A person's signed-in sessions now, newest first (the staff's people lookup). */
  async activeSessions(
    db: Queryable,
    uid: number,
  ): Promise<
    {
      id: number;
      device_id: string;
      ip: string | null;
      user_agent: string | null;
      created_at: string;
      expires_at: string;
    }[]
  > {
    return db.query(
      `SELECT id, device_id, ip, user_agent,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
              to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at
       FROM sessions WHERE uid = $1 AND revoked_at IS NULL AND expires_at > now()
       ORDER BY created_at DESC LIMIT 50`,
      [uid],
    );
  },
};
