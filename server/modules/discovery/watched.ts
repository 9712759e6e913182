import type { Watched } from '../../../common/api/explore';
import type { Db } from '../../db/client';

interface Row {
  uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
  country: string;
  at: Date;
  live_vid: string | null;
  live_title: string | null;
  live_viewers: number | null;
}

/** How many hosts a person's recently watched keeps. */
const KEEP = 30;

/**
 * Recently watched (spec §7 getRecentlyVideo): the hosts a person watched, newest first, with
 * whether they are live now. Kept per person, one row per host.
 */
export class WatchHistory {
  constructor(private readonly db: Db) {}

  /** The reader's player started playing `vid`; their own broadcasts are not kept. */
  async record(uid: number, vid: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO watch_history (uid, host_uid, vid)
         SELECT $1, l.uid, l.vid FROM lives l WHERE l.vid = $2 AND l.uid <> $1
         ON CONFLICT (uid, host_uid) DO UPDATE SET vid = excluded.vid, at = now()`,
        [uid, vid],
        'watched_add',
      );
      await tx.query(
        `DELETE FROM watch_history WHERE uid = $1 AND host_uid IN (
           SELECT host_uid FROM watch_history WHERE uid = $1 ORDER BY at DESC OFFSET ${KEEP})`,
        [uid],
        'watched_trim',
      );
    });
  }

  async list(uid: number, limit = 20): Promise<Watched> {
    const rows = await this.db.query<Row>(
      `SELECT u.uid, u.short_id, u.nickname, u.face, u.country, w.at,
              l.vid AS live_vid, l.title AS live_title, l.viewers AS live_viewers
       FROM watch_history w JOIN users u ON u.uid = w.host_uid
       LEFT JOIN lives l ON l.uid = w.host_uid AND l.status = 'live'
       WHERE w.uid = $1 ORDER BY w.at DESC LIMIT $2`,
      [uid, limit],
      'watched_list',
    );
    return {
      list: rows.map((r) => ({
        host: { uid: r.uid, short_id: r.short_id, nickname: r.nickname, face: r.face, country: r.country },
        at: new Date(r.at).toISOString(),
        live:
          r.live_vid && r.live_title !== null
            ? { vid: r.live_vid, title: r.live_title, viewers: r.live_viewers ?? 0 }
            : null,
      })),
    };
  }
}
