import type { FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { AppError } from '../../../common/errors';
import { can, permissionsOf, STAFF_SESSION_MS, type Permission, type StaffRole } from '../../../common/staff';
import type { AuditEntry as AuditAnswer, StaffMe, StaffMember } from '../../../common/api/staff';
import type { Db, Queryable } from '../../db/client';
import type { Kv } from '../../infra/kv';
import { requireAuth } from '../auth';
import { staffRepo, type AuditFilter, type AuditRow, type MemberRow } from './repo';
import type { Totp } from './totp';

/** A member of staff acting now: who they are for the audit log. */
export interface StaffActor {
  uid: number;
  role: StaffRole;
  name: string;
}

/** What other modules' staff endpoints use: the guard and the audit log. */
export type StaffGuard = Pick<StaffService, 'require' | 'may' | 'audit'>;

/** Wrong codes per member: a six-digit code is not guessed in five tries a quarter hour. */
const MFA_FAILURES = { max: 5, windowSeconds: 900 };

/**
 * Staff (issue 24): members and their roles (common/staff.ts has what each may do), their second
 * factor, and the audit log of what they do. Every staff endpoint asks `require`: a member whose
 * role holds the permission, signed in with their second factor within STAFF_SESSION_MS.
 *
 * STAFF_EMAILS only bootstraps: while the site has no admin, an address it names becomes one on
 * its first visit to the console. After that admins invite, change and remove staff here.
 */
export class StaffService {
  constructor(
    private readonly db: Db,
    private readonly opts: {
      emails: readonly string[];
      totp: Totp;
      kv: Kv;
      limitScale?: number;
      /** Told when someone joins or leaves the staff (what is kept of their account says so). */
      changed?: (uid: number) => void;
    },
  ) {}

  /** The member `uid` is, after taking an invitation to their address or the bootstrap. */
  async #member(uid: number): Promise<MemberRow | null> {
    const found = await staffRepo.member(this.db, uid);
    if (found) return found;
    const email = await staffRepo.email(this.db, uid);
    if (!email) return null;
    if (this.opts.emails.includes(email) && (await staffRepo.admins(this.db)) === 0)
      await staffRepo.upsert(this.db, uid, 'admin', null);
    else if (!(await staffRepo.takeInvitation(this.db, uid, email))) return null;
    this.opts.changed?.(uid);
    return staffRepo.member(this.db, uid);
  }

  /** Whether `uid` is a member of staff (the account menu links to the console). */
  async isMember(uid: number): Promise<boolean> {
    return (await staffRepo.member(this.db, uid)) !== null;
  }

  /**
   * Whether the session `sessionId` of `uid` may use `permission` now: a member whose role holds
   * it, signed in with their second factor. For checks outside HTTP (a /ws connection's powers).
   */
  async may(uid: number, sessionId: number, permission: Permission): Promise<boolean> {
    const m = await staffRepo.member(this.db, uid);
    return (
      m !== null && can(m.role, permission) && (await staffRepo.signedIn(this.db, sessionId, uid)) !== null
    );
  }

  /**
   * The caller, as a member whose role holds `permission` and whose sign-in has its second
   * factor: `invalid_session` signed out, `not_allowed` without the permission,
   * `staff_mfa_required` without the factor (the console then asks for a code).
   */
  async require(req: FastifyRequest, permission: Permission): Promise<StaffActor> {
    const { uid, sessionId } = requireAuth(req);
    const m = await this.#member(uid);
    if (!m || !can(m.role, permission)) throw new AppError('not_allowed');
    if (!(await staffRepo.signedIn(this.db, sessionId, uid))) throw new AppError('staff_mfa_required');
    return { uid, role: m.role, name: m.nickname };
  }

  /** GET /api/v1/staff/me. */
  async me(req: FastifyRequest): Promise<StaffMe> {
    const { uid, sessionId } = requireAuth(req);
    const m = await this.#member(uid);
    if (!m) throw new AppError('not_allowed');
    const until = await staffRepo.signedIn(this.db, sessionId, uid);
    return {
      uid,
      role: m.role,
      permissions: permissionsOf(m.role),
      mfa: until ? 'ok' : m.totp_secret ? 'verify' : 'enrol',
      until: until?.toISOString() ?? null,
    };
  }

  /** A secret for a member with none yet (a lost one is reset by an admin first). */
  async mfaSetup(req: FastifyRequest): Promise<{ secret: string; uri: string; qr: string }> {
    const { uid } = requireAuth(req);
    const m = await this.#member(uid);
    if (!m) throw new AppError('not_allowed');
    if (m.totp_secret) throw new AppError('staff_mfa_enrolled');
    const offer = this.opts.totp.offer(m.email ?? m.short_id);
    await staffRepo.setPending(this.db, uid, offer.sealed);
    const qr = await QRCode.toString(offer.uri, { type: 'svg', margin: 1 });
    return {
      secret: offer.secret,
      uri: offer.uri,
      qr: `data:image/svg+xml;base64,${Buffer.from(qr).toString('base64')}`,
    };
  }

  /**
   * A code from the member's authenticator: enrols the secret offered (the first time) and signs
   * this session in as staff for STAFF_SESSION_MS. Each code works once.
   */
  async mfaVerify(req: FastifyRequest, code: string): Promise<{ until: string }> {
    const { uid, sessionId } = requireAuth(req);
    const m = await this.#member(uid);
    if (!m) throw new AppError('not_allowed');
    // Wrong codes are counted (a member signing in often is not slowed down); past the limit,
    // even a right one waits for the window to end.
    const failures = `staff:mfa-failures:${uid}`;
    const max = Math.ceil(MFA_FAILURES.max * (this.opts.limitScale ?? 1));
    if (Number((await this.opts.kv.get(failures)) ?? 0) >= max) throw new AppError('too_many_requests');
    const sealed = m.totp_secret ?? m.totp_pending;
    const step = sealed ? await this.opts.totp.check(sealed, code) : null;
    if (step === null || !(await staffRepo.useStep(this.db, uid, step, m.totp_secret === null))) {
      await this.opts.kv.incr(failures, MFA_FAILURES.windowSeconds);
      throw new AppError('staff_mfa_invalid');
    }
    await staffRepo.signIn(this.db, sessionId, uid, STAFF_SESSION_MS);
    if (m.totp_secret === null)
      await this.audit({ uid, role: m.role, name: m.nickname }, 'staff.mfa_enrol', `user:${uid}`);
    return { until: new Date(Date.now() + STAFF_SESSION_MS).toISOString() };
  }

  /** Ends this session's staff sign-in (the account stays signed in). */
  async signOut(req: FastifyRequest): Promise<void> {
    const { uid, sessionId } = requireAuth(req);
    if (!(await staffRepo.member(this.db, uid))) throw new AppError('not_allowed');
    await staffRepo.signOut(this.db, sessionId);
  }

  async members(): Promise<{
    list: StaffMember[];
    invitations: { email: string; role: StaffRole; since: string }[];
  }> {
    const [rows, invitations] = await Promise.all([
      staffRepo.members(this.db),
      staffRepo.invitations(this.db),
    ]);
    return {
      list: rows.map((m) => ({
        uid: m.uid,
        short_id: m.short_id,
        nickname: m.nickname,
        face: m.face,
        email: m.email,
        role: m.role,
        mfa: m.totp_secret !== null,
        since: m.created_at.toISOString(),
        configured: m.email !== null && this.opts.emails.includes(m.email),
      })),
      invitations: invitations.map((i) => ({
        email: i.email,
        role: i.role,
        since: i.created_at.toISOString(),
      })),
    };
  }

  /** Invites `email` as `role`: a member at once when an account has that address. */
  async invite(actor: StaffActor, email: string, role: StaffRole): Promise<number | null> {
    const uid = await staffRepo.uidByEmail(this.db, email);
    if (uid === null) {
      await this.db.transaction(async (tx) => {
        await staffRepo.invite(tx, email, role, actor.uid);
        await this.audit(actor, 'staff.invite', `email:${email}`, undefined, { role }, null, tx);
      });
      return null;
    }
    const before = await staffRepo.member(this.db, uid);
    if (before?.role === 'admin' && role !== 'admin') await this.#notLastAdmin();
    await this.db.transaction(async (tx) => {
      await staffRepo.upsert(tx, uid, role, actor.uid);
      const was = before ? { role: before.role } : null;
      await this.audit(actor, 'staff.add', `user:${uid}`, was, { role }, null, tx);
    });
    this.opts.changed?.(uid);
    return uid;
  }

  async dropInvitation(actor: StaffActor, email: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (!(await staffRepo.dropInvitation(tx, email))) throw new AppError('not_found');
      await this.audit(actor, 'staff.uninvite', `email:${email}`, undefined, undefined, null, tx);
    });
  }

  async setRole(actor: StaffActor, uid: number, role: StaffRole): Promise<void> {
    const before = await staffRepo.member(this.db, uid);
    if (!before) throw new AppError('not_found');
    if (before.role === role) return;
    if (before.role === 'admin') await this.#notLastAdmin();
    await this.db.transaction(async (tx) => {
      await staffRepo.upsert(tx, uid, role, actor.uid);
      await this.audit(actor, 'staff.role', `user:${uid}`, { role: before.role }, { role }, null, tx);
    });
  }

  async remove(actor: StaffActor, uid: number): Promise<void> {
    const before = await staffRepo.member(this.db, uid);
    if (!before) throw new AppError('not_found');
    if (before.role === 'admin') await this.#notLastAdmin();
    await this.db.transaction(async (tx) => {
      await staffRepo.remove(tx, uid);
      await this.audit(actor, 'staff.remove', `user:${uid}`, { role: before.role }, null, null, tx);
    });
    this.opts.changed?.(uid);
  }

  /** A member lost their authenticator: they set up a new one at their next sign-in. */
  async resetMfa(actor: StaffActor, uid: number): Promise<void> {
    if (!(await staffRepo.member(this.db, uid))) throw new AppError('not_found');
    await this.db.transaction(async (tx) => {
      await staffRepo.resetTotp(tx, uid);
      await this.audit(actor, 'staff.mfa_reset', `user:${uid}`, undefined, undefined, null, tx);
    });
  }

  async #notLastAdmin(): Promise<void> {
    if ((await staffRepo.admins(this.db)) <= 1) throw new AppError('staff_last_admin');
  }

  /**
   * Records a staff action (the audit log is append-only: nothing here changes an entry). `db` is
   * the action's own transaction where it has one: the entry and the change it records are then
   * made together or not at all, so no crash in between leaves a change nobody is named for.
   */
  async audit(
    actor: StaffActor,
    action: string,
    target: string | null,
    before?: unknown,
    after?: unknown,
    note?: string | null,
    db: Queryable = this.db,
  ): Promise<void> {
    await staffRepo.audit(db, {
      actor: actor.uid,
      actorName: actor.name,
      actorRole: actor.role,
      action,
      target,
      before,
      after,
      note: note ?? null,
    });
  }

  /** A page of the log, newest first; `next` is the `before` of the page after. */
  async auditLog(f: Omit<AuditFilter, 'q'> & { q: string | null }): Promise<{
    list: AuditAnswer[];
    next: number | null;
  }> {
    const rows = await staffRepo.auditLog(this.db, { ...f, limit: f.limit + 1 });
    const list = rows.slice(0, f.limit).map(entry);
    return { list, next: rows.length > f.limit ? (list.at(-1)?.id ?? null) : null };
  }

  /** The log matching the filter as CSV (RFC 4180), newest first, up to `max` entries. */
  async auditCsv(f: Omit<AuditFilter, 'limit' | 'before'>, max = 100_000): Promise<string> {
    const lines = [
      ['id', 'at', 'actor', 'actor_name', 'actor_role', 'action', 'target', 'before', 'after', 'note'],
    ];
    let before: number | null = null;
    while (lines.length <= max) {
      const page = await this.auditLog({ ...f, before, limit: 1000 });
      for (const e of page.list)
        lines.push([
          String(e.id),
          e.at,
          String(e.actor.uid),
          e.actor.name,
          e.actor.role,
          e.action,
          e.target ?? '',
          e.before === null ? '' : JSON.stringify(e.before),
          e.after === null ? '' : JSON.stringify(e.after),
          e.note ?? '',
        ]);
      if (page.next === null) break;
      before = page.next;
    }
    return lines.map((l) => l.map(csvField).join(',')).join('\r\n') + '\r\n';
  }
}

function entry(r: AuditRow): AuditAnswer {
  return {
    id: Number(r.id),
    at: r.at.toISOString(),
    actor: { uid: Number(r.actor), name: r.actor_name, role: r.actor_role },
    action: r.action,
    target: r.target,
    before: r.before ?? null,
    after: r.after ?? null,
    note: r.note,
  };
}

/**
 * A CSV field: quoted when it has a comma, quote or line break; a leading = + - @ (or tab, CR) is
 * put behind a quote mark so that a spreadsheet shows the text instead of running it as a formula.
 */
function csvField(v: string): string {
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
