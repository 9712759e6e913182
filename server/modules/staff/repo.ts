import type { StaffRole } from '../../../common/staff';
import type { Queryable } from '../../db/client';

export interface MemberRow {
  uid: number;
  role: StaffRole;
  totp_secret: string | null;
  totp_pending: string | null;
  totp_step: string;
  email: string | null;
  short_id: string;
  nickname: string;
  face: string | null;
  created_at: Date;
}

export interface AuditRow {
  id: string;
  at: Date;
  actor: string;
  actor_name: string;
  actor_role: StaffRole;
  action: string;
  target: string | null;
  before: unknown;
  after: unknown;
  note: string | null;
}

export interface AuditEntry {
  actor: number;
  actorName: string;
  actorRole: StaffRole;
  action: string;
  target: string | null;
  before?: unknown;
  after?: unknown;
  note?: string | null;
}

export interface AuditFilter {
  q: string | null;
  actor: number | null;
  action: string | null;
  before: number | null;
  limit: number;
}

const MEMBER = `m.uid, m.role, m.totp_secret, m.totp_pending, m.totp_step, u.email, u.short_id, u.nickname,
  u.face, m.created_at`;

export const staffRepo = {
  /** The member `uid` (null: not staff), with the account's address. */
  async member(db: Queryable, uid: number): Promise<MemberRow | null> {
    const [row] = await db.query<MemberRow>(
      `SELECT ${MEMBER} FROM staff_members m JOIN users u ON u.uid = m.uid WHERE m.uid = $1`,
      [uid],
    );
    return row ?? null;
  },

  /**
   * The address `uid` proved theirs (an activated one): only such an address takes an invitation
   * or STAFF_EMAILS' bootstrap, so nobody becomes staff by signing up with someone else's.
   */
  async email(db: Queryable, uid: number): Promise<string | null> {
    const [row] = await db.query<{ email: string | null }>(
      'SELECT email FROM users WHERE uid = $1 AND email_verified_at IS NOT NULL',
      [uid],
    );
    return row?.email ?? null;
  },

  /** The account whose proved address is `email`. */
  async uidByEmail(db: Queryable, email: string): Promise<number | null> {
    const [row] = await db.query<{ uid: number }>(
      'SELECT uid FROM users WHERE email = $1 AND email_verified_at IS NOT NULL',
      [email],
    );
    return row?.uid ?? null;
  },

  async members(db: Queryable): Promise<MemberRow[]> {
    return db.query<MemberRow>(
      `SELECT ${MEMBER} FROM staff_members m JOIN users u ON u.uid = m.uid ORDER BY m.created_at, m.uid`,
    );
  },

  /** Makes `uid` a member with `role` (or changes their role); the role they had before. */
  async upsert(db: Queryable, uid: number, role: StaffRole, by: number | null): Promise<StaffRole | null> {
    const [row] = await db.query<{ was: StaffRole | null }>(
      `WITH old AS (SELECT role FROM staff_members WHERE uid = $1)
       INSERT INTO staff_members (uid, role, added_by) VALUES ($1, $2, $3)
       ON CONFLICT (uid) DO UPDATE SET role = excluded.role
       RETURNING (SELECT role FROM old) AS was`,
      [uid, role, by],
    );
    return row?.was ?? null;
  },

  /** Removes a member and ends their staff sign-ins; the role they had (null: none). */
  async remove(db: Queryable, uid: number): Promise<StaffRole | null> {
    await db.query('DELETE FROM staff_sessions WHERE uid = $1', [uid]);
    const [row] = await db.query<{ role: StaffRole }>(
      'DELETE FROM staff_members WHERE uid = $1 RETURNING role',
      [uid],
    );
    return row?.role ?? null;
  },

  async admins(db: Queryable): Promise<number> {
    const [row] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM staff_members WHERE role = 'admin'",
    );
    return row?.n ?? 0;
  },

  async invitations(db: Queryable): Promise<{ email: string; role: StaffRole; created_at: Date }[]> {
    return db.query('SELECT email, role, created_at FROM staff_invitations ORDER BY created_at, email');
  },

  async invite(db: Queryable, email: string, role: StaffRole, by: number): Promise<void> {
    await db.query(
      `INSERT INTO staff_invitations (email, role, invited_by) VALUES ($1, $2, $3)
       ON CONFLICT (email) DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by`,
      [email, role, by],
    );
  },

  async dropInvitation(db: Queryable, email: string): Promise<boolean> {
    return (await db.query('DELETE FROM staff_invitations WHERE email = $1 RETURNING 1', [email])).length > 0;
  },

  /** An invitation to `email` becomes the membership of `uid` (their account has that address). */
  async takeInvitation(db: Queryable, uid: number, email: string): Promise<StaffRole | null> {
    const [row] = await db.query<{ role: StaffRole }>(
      `WITH inv AS (DELETE FROM staff_invitations WHERE email = $2 RETURNING role, invited_by)
       INSERT INTO staff_members (uid, role, added_by) SELECT $1, role, invited_by FROM inv
       ON CONFLICT (uid) DO NOTHING RETURNING role`,
      [uid, email],
    );
    return row?.role ?? null;
  },

  async setPending(db: Queryable, uid: number, sealed: string): Promise<void> {
    await db.query('UPDATE staff_members SET totp_pending = $2 WHERE uid = $1', [uid, sealed]);
  },

  /**
   * Accepts a code's time step for `uid` only if it is later than the last accepted (a code is
   * used once, even by two requests at once); with `enrol`, the pending secret becomes theirs.
   */
  async useStep(db: Queryable, uid: number, step: number, enrol: boolean): Promise<boolean> {
    const rows = await db.query(
      enrol
        ? `UPDATE staff_members SET totp_step = $2, totp_secret = totp_pending, totp_pending = NULL
           WHERE uid = $1 AND totp_step < $2 AND totp_pending IS NOT NULL RETURNING 1`
        : 'UPDATE staff_members SET totp_step = $2 WHERE uid = $1 AND totp_step < $2 RETURNING 1',
      [uid, step],
    );
    return rows.length > 0;
  },

  /** Forgets a member's second factor (an admin resets a lost phone): they enrol again. */
  async resetTotp(db: Queryable, uid: number): Promise<void> {
    await db.query('DELETE FROM staff_sessions WHERE uid = $1', [uid]);
    await db.query('UPDATE staff_members SET totp_secret = NULL, totp_pending = NULL WHERE uid = $1', [uid]);
  },

  async signIn(db: Queryable, sessionId: number, uid: number, ms: number): Promise<void> {
    await db.query(
      `INSERT INTO staff_sessions (session_id, uid, expires_at)
       VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (session_id) DO UPDATE SET uid = excluded.uid, expires_at = excluded.expires_at`,
      [sessionId, uid, ms],
    );
  },

  /** When the session's staff sign-in ends; null when it has none (or it ended). */
  async signedIn(db: Queryable, sessionId: number, uid: number): Promise<Date | null> {
    const [row] = await db.query<{ expires_at: Date }>(
      `SELECT s.expires_at FROM staff_sessions s JOIN sessions x ON x.id = s.session_id
       WHERE s.session_id = $1 AND s.uid = $2 AND s.expires_at > now()
         AND x.revoked_at IS NULL AND x.expires_at > now()`,
      [sessionId, uid],
    );
    return row?.expires_at ?? null;
  },

  async signOut(db: Queryable, sessionId: number): Promise<void> {
    await db.query('DELETE FROM staff_sessions WHERE session_id = $1', [sessionId]);
  },

  async audit(db: Queryable, e: AuditEntry): Promise<void> {
    await db.query(
      `INSERT INTO staff_audit (actor, actor_name, actor_role, action, target, before, after, note)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        e.actor,
        e.actorName,
        e.actorRole,
        e.action,
        e.target,
        e.before === undefined ? null : JSON.stringify(e.before),
        e.after === undefined ? null : JSON.stringify(e.after),
        e.note ?? null,
      ],
    );
  },

  /** The log, newest first, older than `before` (an id), matching the filter. */
  async auditLog(db: Queryable, f: AuditFilter): Promise<AuditRow[]> {
    return db.query<AuditRow>(
      `SELECT id, at, actor, actor_name, actor_role, action, target, before, after, note FROM staff_audit
       WHERE ($1::bigint IS NULL OR id < $1)
         AND ($2::bigint IS NULL OR actor = $2)
         AND ($3::text IS NULL OR action = $3)
         AND ($4::text IS NULL OR target = $4 OR actor_name ILIKE '%' || $5 || '%' OR note ILIKE '%' || $5 || '%')
       ORDER BY id DESC LIMIT $6`,
      // The words as LIKE matches them: `%`, `_` and `\` stand for themselves.
      [f.before, f.actor, f.action, f.q, f.q?.replace(/[\\%_]/g, (c) => `\\${c}`) ?? null, f.limit],
    );
  },
};
