import type { StaffPerson } from '../../../common/api/safety';
import type { PublicProfile } from '../../../common/api/users';
import { AppError } from '../../../common/errors';
import { ADDRESS_MAX, ageOn, MIN_AGE, SIGNATURE_MAX, zodiacOf } from '../../../common/profile';
import { cleanText } from '../../../common/text';
import { isName } from '../../../common/validation';
import type { Db, Queryable } from '../../db/client';
import type { FileStore } from '../../infra/files';
import { Recent } from '../../infra/recent';
import { processAvatar, type Crop } from './avatar';
import { usersRepo, type ProfileRow } from './repo';

export type { PublicProfile } from '../../../common/api/users';

export interface ProfileInput {
  nickname: string;
  usign: string;
  sex: number;
  birthday: string | null;
  addr: string;
}

function toPublic(row: ProfileRow, now: Date): PublicProfile {
  return {
    ...row,
    age: row.birthday ? ageOn(row.birthday, now) : null,
    zodiac: row.birthday ? zodiacOf(row.birthday) : null,
  };
}

export class UsersService {
  /** Display names, asked for on every gift and chat message (dropped when a profile changes). */
  readonly #names = new Recent<number, string>({ ttlMs: 60_000 });

  constructor(
    private readonly db: Db,
    private readonly files: FileStore,
    private readonly opts: {
      now?: () => Date;
      /** Told of the people whose profile changed (caches of them are dropped everywhere). */
      changed?: (uids: number[]) => void;
    } = {},
  ) {}

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  /** What this node kept of these people is stale (they changed, here or on another node). */
  forget(uids: readonly number[]): void {
    this.#names.forget(uids);
  }

  #changed(uid: number): void {
    this.forget([uid]);
    this.opts.changed?.([uid]);
  }

  /** People for the staff's lookup (by short id, e-mail, phone or nickname). */
  findForStaff(q: string): Promise<StaffPerson[]> {
    return usersRepo.findForStaff(this.db, q);
  }

  staffPerson(uid: number): Promise<StaffPerson | null> {
    return usersRepo.staffPerson(this.db, uid);
  }

  /**
   * Staff replace an inappropriate avatar or nickname; `audit` is told what was and what is, in
   * the transaction that replaces it.
   */
  async resetByStaff(
    uid: number,
    what: 'avatar' | 'nickname',
    audit?: (tx: Queryable, change: { before: string | null; after: string | null }) => Promise<void>,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      const before = await usersRepo.staffPerson(tx, uid);
      if (!before) throw new AppError('not_found');
      const after = await usersRepo.resetByStaff(tx, uid, what);
      await audit?.(
        tx,
        what === 'avatar'
          ? { before: before.face, after: after?.face ?? null }
          : { before: before.nickname, after: after?.nickname ?? null },
      );
    });
    this.#changed(uid);
  }

  /** A new avatar from an uploaded photo and the square the user chose. */
  async setAvatar(uid: number, image: Buffer, crop: Crop): Promise<PublicProfile> {
    const webp = await processAvatar(image, crop);
    const url = await this.files.put('avatars', webp, 'webp');
    const row = await usersRepo.setFace(this.db, uid, url);
    if (!row) throw new AppError('invalid_session');
    this.#changed(uid);
    return toPublic(row, this.now());
  }

  /** Display names of these people (those who exist): from this node's cache, else one query. */
  async names(uids: readonly number[]): Promise<Map<number, string>> {
    if (!uids.length) return new Map();
    return this.#names.getMany(uids, async (missing) => {
      const rows = await usersRepo.names(this.db, missing);
      return new Map(rows.map((r) => [r.uid, r.nickname]));
    });
  }

  /** One person's display name, or null for nobody. */
  async name(uid: number): Promise<string | null> {
    return (await this.names([uid])).get(uid) ?? null;
  }

  async byShortId(shortId: string): Promise<PublicProfile | null> {
    const row = await usersRepo.byShortId(this.db, shortId);
    return row ? toPublic(row, this.now()) : null;
  }

  async byUid(uid: number): Promise<PublicProfile | null> {
    const row = await usersRepo.byUid(this.db, uid);
    return row ? toPublic(row, this.now()) : null;
  }

  async own(uid: number): Promise<PublicProfile> {
    const row = await usersRepo.byUid(this.db, uid);
    if (!row) throw new AppError('invalid_session');
    return toPublic(row, this.now());
  }

  /** Edits one's own profile. The rules are checked here; the browser only mirrors them. */
  async update(uid: number, input: ProfileInput): Promise<PublicProfile> {
    const nickname = input.nickname.trim();
    if (!isName(nickname)) throw new AppError('validation_failed', { field: 'nickname' });
    // What others read: no direction overrides, invisible or control characters (common/text.ts).
    const usign = cleanText(input.usign).trim();
    const addr = cleanText(input.addr).trim();
    if (Array.from(usign).length > SIGNATURE_MAX) throw new AppError('validation_failed', { field: 'usign' });
    if (Array.from(addr).length > ADDRESS_MAX) throw new AppError('validation_failed', { field: 'addr' });
    if (![0, 1, 2].includes(input.sex)) throw new AppError('validation_failed', { field: 'sex' });
    if (input.birthday !== null) {
      const date = new Date(`${input.birthday}T00:00:00Z`);
      const valid =
        /^\d{4}-\d{2}-\d{2}$/.test(input.birthday) &&
        !Number.isNaN(date.getTime()) &&
        date.toISOString().startsWith(input.birthday);
      const age = valid ? ageOn(input.birthday, this.now()) : -1;
      if (!valid || age < MIN_AGE || age > 120)
        throw new AppError('validation_failed', { field: 'birthday' });
    }
    const row = await usersRepo.update(this.db, uid, {
      ...input,
      nickname,
      usign,
      addr,
    });
    if (!row) throw new AppError('invalid_session');
    this.#changed(uid);
    return toPublic(row, this.now());
  }
}
