import type { Db } from '../../db/client';
import type { Recording } from '../../media/engine';
import { liveRepo, type LiveRow } from './repo';

/** A part's length in seconds. */
function seconds(p: { started_at: Date; ended_at: Date }): number {
  return (new Date(p.ended_at).getTime() - new Date(p.started_at).getTime()) / 1000;
}

/**
 * Replays (spec §2, the replay page): the parts the media engine records while a broadcast is on
 * air, kept as files under /replays/, and what the site reads of them once the broadcast has ended
 * (its page, the broadcaster's personal page, festival slots, clips).
 */
export class Replays {
  constructor(private readonly db: Db) {}

  /** The media engine finished a part of a broadcast's recording. */
  recorded(vid: string, r: Recording): Promise<void> {
    return liveRepo.addReplayPart(this.db, {
      vid,
      file: r.file,
      bytes: r.bytes,
      startedAt: r.startedAt,
      endedAt: r.endedAt,
    });
  }

  /** A broadcast's parts (URLs under /replays/), in order; empty while it is being generated. */
  async parts(vid: string): Promise<{ url: string; seconds: number }[]> {
    return (await liveRepo.replayParts(this.db, vid)).map((p) => ({
      url: `/replays/${p.file}`,
      seconds: Math.round(seconds(p)),
    }));
  }

  /**
   * One part of an ended broadcast's replay, for a clip: whose it is, its file (under the
   * recordings folder) and how long it lasts. Null when there is no such part.
   */
  async part(vid: string, part: number): Promise<{ uid: number; file: string; seconds: number } | null> {
    const live = await liveRepo.byVid(this.db, vid);
    if (!live || live.status !== 'ended') return null;
    const p = (await liveRepo.replayParts(this.db, vid))[part];
    if (!p) return null;
    return { uid: live.uid, file: p.file, seconds: seconds(p) };
  }

  /** A broadcaster's ended broadcasts that have a replay, newest first. */
  of(uid: number, limit = 12): Promise<LiveRow[]> {
    return liveRepo.replaysOf(this.db, uid, limit);
  }

  /** The broadcaster's broadcast with a replay that was on air within [from, to) (a festival slot's). */
  within(uid: number, from: Date, to: Date): Promise<string | null> {
    return liveRepo.replayWithin(this.db, uid, from, to);
  }
}
