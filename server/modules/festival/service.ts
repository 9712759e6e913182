import type {
  ProgrammeBody,
  ProgrammeCard,
  ProgrammeInfo,
  ProgrammeSlot,
} from '../../../common/api/festival';
import { AppError } from '../../../common/errors';
import { dayIn, isTimeZone, slotState } from '../../../common/festival';
import type { Locale } from '../../../common/locales';
import { cleanText } from '../../../common/text';
import type { Db, Queryable } from '../../db/client';
import type { LiveService } from '../live';
import type { NotificationService } from '../notifications';
import type { UsersService } from '../users';
import { festivalRepo, type NewSlot, type ProgrammeRow, type SlotRow } from './repo';

export interface FestivalOptions {
  live: Pick<LiveService, 'onAir' | 'replays'>;
  users: Pick<UsersService, 'byShortId'>;
  notifications: Pick<NotificationService, 'slotStarted'>;
  /** The clock (tests move it). */
  now?: () => number;
}

const nameIn = (names: Record<string, string>, locale: Locale) => names[locale] ?? names.en ?? '';
const iso = (d: Date) => new Date(d).toISOString();

/**
 * The festival programme (issue 23 item 2): staff write a programme's names and schedule; anyone
 * reads it in their language with its days in their time zone, the slot on now with its host's
 * broadcast, past slots with their replays; followers are told as each slot starts.
 */
export class FestivalService {
  readonly #now: () => number;

  constructor(
    private readonly db: Db,
    private readonly opts: FestivalOptions,
  ) {
    this.#now = opts.now ?? Date.now;
  }

  #card(p: ProgrammeRow, slots: readonly SlotRow[], locale: Locale, now: number): ProgrammeCard {
    const mine = slots.filter((s) => s.programme === p.id);
    const next = mine.find((s) => new Date(s.starts_at).getTime() > now);
    return {
      id: p.id,
      name: nameIn(p.names, locale),
      starts_at: iso(p.starts_at),
      ends_at: iso(p.ends_at),
      on_now: mine.some(
        (s) => slotState({ starts_at: iso(s.starts_at), ends_at: iso(s.ends_at) }, now) === 'on',
      ),
      next_at: next ? iso(next.starts_at) : null,
    };
  }

  /** Programmes not over yet (spec: expired items leave lists), those on now first, then soonest. */
  async list(locale: Locale): Promise<ProgrammeCard[]> {
    const now = this.#now();
    const rows = await festivalRepo.current(this.db, new Date(now));
    const slots = await festivalRepo.slots(
      this.db,
      rows.map((r) => r.id),
    );
    const cards = rows.map((r) => this.#card(r, slots, locale, now));
    return cards.sort((a, b) => Number(b.on_now) - Number(a.on_now));
  }

  /** A programme's page (spec programme/getByID: id, tz): every slot, its day in `tz` and its state. */
  async get(
    id: number,
    locale: Locale,
    tz: string | undefined,
    reader: number | null,
  ): Promise<ProgrammeInfo> {
    const now = this.#now();
    const p = await festivalRepo.get(this.db, id);
    if (!p) throw new AppError('not_found');
    const zone = tz && isTimeZone(tz) ? tz : 'UTC';
    const [slots, follows] = await Promise.all([
      festivalRepo.slots(this.db, [id]),
      festivalRepo.follows(this.db, id, reader),
    ]);
    const list = await Promise.all(slots.map((s) => this.#slot(s, zone, now)));
    return { ...this.#card(p, slots, locale, now), names: p.names, ...follows, tz: zone, list };
  }

  async #slot(s: SlotRow, tz: string, now: number): Promise<ProgrammeSlot> {
    const times = { starts_at: iso(s.starts_at), ends_at: iso(s.ends_at) };
    const state = slotState(times, now);
    const live = state === 'on' ? ((await this.opts.live.onAir(s.host))?.vid ?? null) : null;
    const replay =
      state === 'ended'
        ? await this.opts.live.replays.within(s.host, new Date(s.starts_at), new Date(s.ends_at))
        : null;
    return {
      id: s.id,
      title: s.title,
      host: { uid: s.host, short_id: s.short_id, nickname: s.nickname, face: s.face, country: s.country },
      ...times,
      day: dayIn(new Date(s.starts_at), tz),
      state,
      live,
      replay,
    };
  }

  async follow(id: number, uid: number, on: boolean): Promise<{ follow: boolean; followers: number }> {
    if (!(await festivalRepo.get(this.db, id))) throw new AppError('not_found');
    await festivalRepo.follow(this.db, id, uid, on);
    return festivalRepo.follows(this.db, id, uid);
  }

  /**
   * The staff's programme, new (`id` null) or replacing the one there; answers its id. `audit` is
   * written in the same transaction as the programme.
   */
  async save(
    staff: number,
    id: number | null,
    body: ProgrammeBody,
    audit?: (tx: Queryable, id: number) => Promise<void>,
  ): Promise<number> {
    const names: Record<string, string> = {};
    for (const [locale, name] of Object.entries(body.names)) if (name) names[locale] = cleanText(name).trim();
    if (!names.en) throw new AppError('validation_failed', { field: 'names.en' });
    const slots: NewSlot[] = [];
    for (const [i, s] of body.slots.entries()) {
      const host = await this.opts.users.byShortId(s.host);
      if (!host) throw new AppError('validation_failed', { field: `slots.${i}.host` });
      const starts_at = new Date(s.starts_at);
      const ends_at = new Date(s.ends_at);
      if (!(ends_at > starts_at)) throw new AppError('validation_failed', { field: `slots.${i}.ends_at` });
      slots.push({ host: host.uid, title: cleanText(s.title ?? '').trim(), starts_at, ends_at });
    }
    const saved = await festivalRepo.save(this.db, { id, names, slots, by: staff }, audit);
    if (saved === null) throw new AppError('not_found');
    return saved;
  }

  async remove(id: number, audit?: (tx: Queryable) => Promise<void>): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (!(await festivalRepo.remove(tx, id))) throw new AppError('not_found');
      await audit?.(tx);
    });
  }

  /**
   * Slots that started since the last look: their programme's followers are told (run every few
   * seconds on every node; each slot is claimed by one). Answers how many were told.
   */
  async startDue(): Promise<number> {
    const due = await festivalRepo.claimStarted(this.db, new Date(this.#now()));
    let told = 0;
    for (const s of due) {
      if (!s.on) continue;
      const vid = (await this.opts.live.onAir(s.host))?.vid ?? '';
      await this.opts.notifications.slotStarted({
        host: s.host,
        vid,
        title: s.title,
        programme: s.programme,
      });
      told++;
    }
    return told;
  }
}
