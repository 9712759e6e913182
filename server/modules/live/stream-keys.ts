import { AppError } from '../../../common/errors';
import type { LiveCategory } from '../../../common/api/live';
import type { Db } from '../../db/client';
import { hashToken, newToken } from '../auth';
import { liveRepo, type LiveRow } from './repo';

/**
 * A broadcaster's OBS set-up (spec §7 obswhitelist): whether they may publish from OBS, their
 * stream key (shown once, stored as SHA-256) and what their OBS broadcasts are about. Publishing
 * with the key is the live service's (publishWithKey): it makes the broadcast.
 */
export class StreamKeys {
  constructor(
    private readonly db: Db,
    /** Who may publish from OBS (ObsPolicy); everyone when absent. */
    private readonly mayUseObs?: (uid: number) => Promise<boolean>,
  ) {}

  async allowed(uid: number): Promise<boolean> {
    return this.mayUseObs ? this.mayUseObs(uid) : true;
  }

  /** The owner of a stream key; stream_key_invalid when it is nobody's. */
  async ownerOf(key: string | undefined): Promise<number> {
    if (!key) throw new AppError('stream_key_invalid');
    const uid = await liveRepo.streamKeyOwner(this.db, hashToken(key));
    if (uid === null) throw new AppError('stream_key_invalid');
    return uid;
  }

  /** A new stream key (shown once). The previous key stops working. */
  async regenerate(uid: number): Promise<string> {
    if (!(await this.allowed(uid))) throw new AppError('obs_not_allowed');
    const key = newToken();
    await liveRepo.setStreamKey(this.db, uid, hashToken(key));
    return key;
  }

  async status(
    uid: number,
  ): Promise<{ allowed: boolean; hasKey: boolean; category: LiveCategory; active: LiveRow | null }> {
    // Four reads that do not depend on each other: asked together, not one round trip after another.
    const [allowed, hasKey, category, active] = await Promise.all([
      this.allowed(uid),
      liveRepo.hasStreamKey(this.db, uid),
      this.category(uid),
      liveRepo.active(this.db, uid),
    ]);
    return { allowed, hasKey, category, active };
  }

  /** What the broadcaster's OBS broadcasts are about (kept with the stream key: make one first). */
  async setCategory(uid: number, category: LiveCategory): Promise<void> {
    if (!(await this.allowed(uid))) throw new AppError('obs_not_allowed');
    if (!(await liveRepo.setObsCategory(this.db, uid, category))) throw new AppError('stream_key_invalid');
  }

  /** The category a broadcast from OBS starts with. */
  category(uid: number): Promise<LiveCategory> {
    return liveRepo.obsCategory(this.db, uid);
  }
}
