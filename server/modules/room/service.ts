import type { PersonalCard } from '../../../common/api/room';
import { AppError } from '../../../common/errors';
import { REPORT_MAX_CHARS, type ReportCategory } from '../../../common/room';
import { cleanText } from '../../../common/text';
import { countGraphemes } from '../../../common/validation';
import type { Db } from '../../db/client';
import type { Kv } from '../../infra/kv';
import { enforceLimits, type Limit } from '../../infra/ratelimit';
import type { Bus } from '../../realtime/bus';
import type { Presence } from '../../realtime/presence';
import { existingLive, type LiveDirectory } from '../live';
import type { ChatLine } from '../chat';
import type { SocialService } from '../social';
import type { UsersService } from '../users';
import { roomRepo, type RoomPerson } from './repo';

/** The room's latest messages a report keeps. */
export const REPORT_CHAT = 30;
export const REPORT_LIMIT: Limit = { name: 'report:user', max: 10, windowSeconds: 3600 };
/** How many people the audience list and the top-fans lists show. */
export const LIST_LIMIT = 100;
const AUDIENCE_SCAN = 2000;
/** A room hears that someone followed its host once per broadcast, however often they toggle. */
const FOLLOW_NOTICE_SECONDS = 24 * 3600;

export type { PersonalCard };

/**
 * The people of a live room: their cards, who is watching, who gave most, reports about a
 * broadcaster, and a host's permanent blocks (out of chat and media at once, never back in).
 */
export class RoomService {
  constructor(
    private readonly db: Db,
    private readonly kv: Kv,
    private readonly bus: Bus,
    private readonly presence: Presence,
    private readonly users: UsersService,
    private readonly social: Pick<SocialService, 'state'>,
    private readonly directory: LiveDirectory,
    /** Ends a blocked viewer's media on this node (other nodes act on the bus's kick). */
    private readonly dropViewer: (vid: string, uid: number) => Promise<void>,
    /** A room's latest chat (the chat module's), kept with a report about its broadcast. */
    private readonly recentChat: (vid: string, limit: number) => Promise<ChatLine[]> = () =>
      Promise.resolve([]),
  ) {}

  async card(vid: string, uid: number, viewer: number | null): Promise<PersonalCard> {
    const live = await existingLive(this.db, vid);
    const [profile, state] = await Promise.all([this.users.byUid(uid), this.social.state(viewer, uid)]);
    if (!profile) throw new AppError('not_found');
    const host = viewer === live.uid;
    return {
      ...profile,
      relation: state.relation,
      is_host: uid === live.uid,
      blocked: host && uid !== live.uid ? await this.isBlocked(live.uid, uid) : false,
      can_block: host && uid !== live.uid,
    };
  }

  /**
   * Whether the host blocked this person from all their broadcasts (spec §6): the one rule that
   * chat, media, follow notices and the card ask. (Gift settlement checks the same table inside
   * its batch statement; see ledger/repo.ts.)
   */
  async isBlocked(host: number, uid: number): Promise<boolean> {
    return roomRepo.isBlocked(this.db, host, uid);
  }

  /** The blocks among these people (the same rule, asked of a group at once: PK's finder and queue). */
  async blocksAmong(uids: readonly number[]): Promise<{ host: number; uid: number }[]> {
    return uids.length < 2 ? [] : roomRepo.blocksAmong(this.db, uids);
  }

  /**
   * 'X followed the host' in the host's live room, when the follow came from it: only while the
   * broadcast is live, not from someone the host blocked, and once per person and broadcast.
   */
  async followed(who: { uid: number; name: string }, host: number, vid: string): Promise<void> {
    const live = await this.directory.find(vid, 0);
    if (live?.uid !== host || live.status !== 'live') return;
    if (await this.isBlocked(host, who.uid)) return;
    if ((await this.kv.incr(`follow-notice:${vid}:${who.uid}`, FOLLOW_NOTICE_SECONDS)) > 1) return;
    await this.bus.publish(vid, { t: 'follow', from: { uid: who.uid, name: who.name, role: 'viewer' } });
  }

  /** The host blocks `uid` from all their broadcasts: out of this room's chat and media now. */
  async block(host: number, vid: string, uid: number): Promise<void> {
    const live = await existingLive(this.db, vid);
    if (live.uid !== host) throw new AppError('not_room_owner');
    if (uid === host) throw new AppError('cannot_block');
    if (!(await this.users.byUid(uid))) throw new AppError('not_found');
    await roomRepo.block(this.db, host, uid, vid);
    await this.bus.signal({ t: 'kick', room: vid, uid });
    await this.dropViewer(vid, uid);
  }

  async unblock(host: number, vid: string, uid: number): Promise<void> {
    const live = await existingLive(this.db, vid);
    if (live.uid !== host) throw new AppError('not_room_owner');
    await roomRepo.unblock(this.db, host, uid);
  }

  /** Spec §3: a report about a broadcaster, kept for the staff console. */
  async report(
    reporter: number,
    r: { target: number; vid?: string | undefined; category: ReportCategory; reason: string },
    limitScale = 1,
  ): Promise<number> {
    if (reporter === r.target) throw new AppError('report_self');
    const reason = cleanText(r.reason).trim();
    if (countGraphemes(reason) > REPORT_MAX_CHARS)
      throw new AppError('validation_failed', { field: 'reason' });
    if (!(await this.users.byUid(r.target))) throw new AppError('not_found');
    const live = r.vid ? await existingLive(this.db, r.vid) : null;
    // The broadcast a report names is the reported broadcaster's own (the staff console shows it).
    if (live && live.uid !== r.target) throw new AppError('validation_failed', { field: 'vid' });
    const vid = live?.vid ?? null;
    await enforceLimits(this.kv, [{ limit: REPORT_LIMIT, key: String(reporter) }], limitScale);
    // What was said just before, for the staff who read the report later (the room's history
    // lasts only as long as the broadcast and its last few hundred events).
    const chat = vid ? await this.recentChat(vid, REPORT_CHAT) : null;
    return roomRepo.addReport(this.db, {
      reporter,
      target: r.target,
      vid,
      category: r.category,
      reason,
      chat,
    });
  }

  /** Moves the gift batches' pending top-fans credits into the lists (run every second). */
  async rollUpFans(): Promise<void> {
    await roomRepo.rollUpFans(this.db);
  }

  /** Signed-in people watching now (on any node), biggest givers of this broadcast first. */
  async audience(vid: string): Promise<RoomPerson[]> {
    await existingLive(this.db, vid);
    const uids = await this.presence.audience(vid, AUDIENCE_SCAN);
    return roomRepo.people(this.db, vid, uids, LIST_LIMIT);
  }

  /** Top fans: of this broadcast, or of its host over all broadcasts. */
  async topFans(vid: string, scope: 'live' | 'all'): Promise<RoomPerson[]> {
    const live = await existingLive(this.db, vid);
    return scope === 'live'
      ? roomRepo.topOfBroadcast(this.db, vid, LIST_LIMIT)
      : roomRepo.topOfHost(this.db, live.uid, LIST_LIMIT);
  }
}
