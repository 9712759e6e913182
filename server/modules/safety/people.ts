import type { PersonDetail, StaffPerson } from '../../../common/api/safety';
import { AppError } from '../../../common/errors';
import type { Db, Queryable } from '../../db/client';
import type { StaffActor, StaffGuard } from '../staff';
import { safetyRepo } from './repo';

/**
 * The console's people lookup (issue 24 item 4): someone found by short id, e-mail, phone or
 * nickname, and what staff look at before acting on them (profile, sessions and their devices,
 * lives, reports made and received, what was done before, wallet, payee); and the actions of
 * this page: sessions revoked, an inappropriate avatar or nickname replaced, each with a note in
 * the audit log. Each module answers for its own part through these hooks; warn, suspend and ban
 * are SafetyService.act.
 */
export class PeopleLookup {
  constructor(
    private readonly db: Db,
    private readonly opts: {
      staff: Pick<StaffGuard, 'audit'>;
      find: (q: string) => Promise<StaffPerson[]>;
      person: (uid: number) => Promise<StaffPerson | null>;
      sessions: (uid: number) => Promise<PersonDetail['sessions']>;
      lives: (uid: number) => Promise<PersonDetail['lives']>;
      wallet: (uid: number) => Promise<PersonDetail['wallet']>;
      payee: (uid: number) => Promise<PersonDetail['payee']>;
      signOutEverywhere: (uid: number) => Promise<number>;
      /** Replaces it, telling `audit` what was and what is in the same transaction. */
      reset: (
        uid: number,
        what: 'avatar' | 'nickname',
        audit: (tx: Queryable, change: { before: string | null; after: string | null }) => Promise<void>,
      ) => Promise<void>;
    },
  ) {}

  find(q: string): Promise<StaffPerson[]> {
    return this.opts.find(q);
  }

  async detail(uid: number): Promise<PersonDetail> {
    const person = await this.opts.person(uid);
    if (!person) throw new AppError('not_found');
    const [sessions, lives, reports, sanctions, wallet, payee] = await Promise.all([
      this.opts.sessions(uid),
      this.opts.lives(uid),
      safetyRepo.reportsOf(this.db, uid),
      safetyRepo.sanctionsOf(this.db, uid),
      this.opts.wallet(uid),
      this.opts.payee(uid),
    ]);
    return {
      person,
      sessions,
      lives,
      reports: { ...reports, latest: reports.latest as PersonDetail['reports']['latest'] },
      sanctions,
      wallet,
      payee,
    };
  }

  /** Every session of theirs ended (and so every socket, on every node). */
  async revokeSessions(actor: StaffActor, uid: number, note: string): Promise<number> {
    if (!(await this.opts.person(uid))) throw new AppError('not_found');
    const ended = await this.opts.signOutEverywhere(uid);
    await this.opts.staff.audit(
      actor,
      'person.sessions_revoked',
      `user:${uid}`,
      null,
      { sessions: ended },
      note,
    );
    return ended;
  }

  /** An inappropriate avatar taken off, or nickname replaced by a neutral one. */
  async reset(actor: StaffActor, uid: number, what: 'avatar' | 'nickname', note: string): Promise<void> {
    if (uid === actor.uid) throw new AppError('not_allowed');
    await this.opts.reset(uid, what, (tx, { before, after }) =>
      this.opts.staff.audit(
        actor,
        `person.reset_${what}`,
        `user:${uid}`,
        { [what]: before },
        { [what]: after },
        note,
        tx,
      ),
    );
  }
}
