import { AppError } from '../../../common/errors';
import type { ReportGroup, SafetyAction } from '../../../common/api/safety';
import type { Db } from '../../db/client';
import type { StaffActor, StaffGuard } from '../staff';
import { safetyRepo } from './repo';

/** How many groups the queue shows at once (the newest; the rest come as these are decided). */
const QUEUE = 100;

/**
 * Keeping the site safe (issue 24 item 2): the reports queue, and what staff do to an account
 * (each with a note, each in the audit log). A warning is shown to its person; ending a live stops
 * it now; a suspension keeps them from going live for some days; a ban ends every session (and so
 * every socket), their live, and refuses their sign-ins and cash-outs. Other modules ask
 * `standing` (sign-in, going live, cash-out): this module owns the rule.
 */
export class SafetyService {
  constructor(
    private readonly db: Db,
    private readonly opts: {
      staff: Pick<StaffGuard, 'audit'>;
      /** The broadcast `uid` is on (created or live), if any. */
      onAir: (uid: number) => Promise<string | null>;
      /** Ends a broadcast now, as staff (its room is told). */
      endLive: (vid: string) => Promise<void>;
      /** Ends every session of `uid` (their sockets close with them). */
      signOutEverywhere: (uid: number) => Promise<number>;
    },
  ) {}

  async queue(): Promise<ReportGroup[]> {
    const rows = await safetyRepo.queue(this.db, QUEUE);
    return rows.map((r) => ({
      target: {
        uid: r.target_uid,
        short_id: r.short_id,
        nickname: r.nickname,
        face: r.face,
        country: r.country,
      },
      live: r.vid
        ? {
            vid: r.vid,
            title: r.title ?? '',
            status: r.status ?? 'deleted',
            // Where the first report falls in the replay (the live's own time).
            at_seconds: r.started_at
              ? Math.max(0, Math.floor((r.first_at.getTime() - r.started_at.getTime()) / 1000))
              : null,
          }
        : null,
      count: r.count,
      newest: r.newest.toISOString(),
      categories: r.categories,
      reports: r.reports.map((x) => ({
        id: x.id,
        reporter: { uid: x.reporter, nickname: x.nickname },
        category: x.category,
        reason: x.reason,
        at: new Date(x.at).toISOString(),
        chat: x.chat?.map((l) => ({ id: l.mid, from: l.from, text: l.text, at: l.at })) ?? null,
      })),
      sanctions: r.sanctions.map((s) => ({ kind: s.kind, at: new Date(s.at).toISOString() })),
    }));
  }

  /** One action on a group of reports (the person `target`, in `vid` or outside any broadcast). */
  async act(
    actor: StaffActor,
    req: {
      target: number;
      vid: string | null;
      action: SafetyAction;
      note: string;
      days?: number | undefined;
    },
  ): Promise<void> {
    const { target, vid, action, note } = req;
    if (target === actor.uid) throw new AppError('not_allowed');
    if (!(await safetyRepo.exists(this.db, target))) throw new AppError('not_found');
    const category = await safetyRepo.category(this.db, target, vid);
    // Ended now: the reported live (a suspension or a ban ends whichever one is on).
    const live =
      action === 'end'
        ? vid
        : action === 'suspend' || action === 'ban'
          ? await this.opts.onAir(target)
          : null;
    const after: Record<string, unknown> = { action };
    if (action === 'suspend') after.days = req.days;
    if (live) after.ended = live;
    // The decision (the sanction, the reports closed) and its audit entry are one transaction;
    // what carries it out follows, and a ban holds at every sign-in, going live and cash-out
    // (`standing`) even if that is cut short.
    await this.db.transaction(async (tx) => {
      if (action === 'warn' || action === 'suspend' || action === 'ban')
        await safetyRepo.sanction(tx, {
          uid: target,
          kind: action,
          category,
          note,
          by: actor.uid,
          ...(req.days === undefined ? {} : { days: req.days }),
        });
      const status = action === 'dismiss' ? 'dismissed' : 'actioned';
      after.reports = await safetyRepo.close(tx, target, vid, status, actor.uid, note);
      await this.opts.staff.audit(
        actor,
        `safety.${action}`,
        `user:${target}`,
        vid ? { vid } : null,
        after,
        note,
        tx,
      );
    });
    if (live) await this.opts.endLive(live);
    if (action === 'ban') await this.opts.signOutEverywhere(target);
  }

  /**
   * A suspension or ban still in force lifted (a mistake, an appeal upheld), with a note: they may
   * sign in, go live and cash out again at once, as everyone asks `standing`.
   */
  async lift(actor: StaffActor, uid: number, id: number, note: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const before = await safetyRepo.lift(tx, uid, id, actor.uid, note);
      if (!before) throw new AppError('not_found');
      const action = `safety.lift_${before.kind}`;
      await this.opts.staff.audit(actor, action, `user:${uid}`, before, { lifted: id }, note, tx);
    });
  }

  /** What holds for `uid`: asked at sign-in, going live and cash-out. */
  standing(uid: number): Promise<{ banned: boolean; suspended_until: Date | null }> {
    return safetyRepo.standing(this.db, uid);
  }

  /** Refuses a banned account (`account_banned`). */
  async notBanned(uid: number): Promise<void> {
    if ((await this.standing(uid)).banned) throw new AppError('account_banned');
  }

  /** Refuses going live to an account banned or suspended from it. */
  async mayGoLive(uid: number): Promise<void> {
    const s = await this.standing(uid);
    if (s.banned) throw new AppError('account_banned');
    if (s.suspended_until) throw new AppError('live_suspended', { until: s.suspended_until.toISOString() });
  }

  async warning(
    uid: number,
  ): Promise<{ id: number; category: ReportGroup['categories'][number] | null; at: string } | null> {
    const w = await safetyRepo.unseenWarning(this.db, uid);
    return w ? { id: w.id, category: w.category, at: w.at.toISOString() } : null;
  }

  async warningSeen(uid: number, id: number): Promise<void> {
    await safetyRepo.seen(this.db, uid, id);
  }
}
