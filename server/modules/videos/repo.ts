import type { ShortSource, ShortStatus, ShortTab } from '../../../common/videos';
import type { Queryable } from '../../db/client';

export interface VideoRow {
  id: string;
  uid: number;
  title: string;
  source: ShortSource;
  from_vid: string | null;
  status: ShortStatus | 'deleted';
  progress: number;
  error: string | null;
  url: string | null;
  poster: string | null;
  duration_ms: number;
  width: number;
  height: number;
  views: number;
  likes: number;
  comments: number;
  wonderful_at: Date | null;
  created_at: Date;
  nickname: string;
  face: string | null;
  short_id: string;
  country: string;
}

export interface CommentRow {
  id: number;
  video_id: string;
  uid: number;
  text: string;
  created_at: Date;
  nickname: string;
  face: string | null;
  short_id: string;
  country: string;
}

const COLUMNS = `v.id, v.uid, v.title, v.source, v.from_vid, v.status, v.progress, v.error, v.url, v.poster,
  v.duration_ms, v.width, v.height, v.views::int AS views, v.likes::int AS likes, v.comments::int AS comments,
  v.wonderful_at, v.created_at, u.nickname, u.face, u.short_id, u.country`;
const FROM = 'short_videos v JOIN users u ON u.uid = v.uid';

/**
 * The hot score (docs/decisions.md): engagement on a log scale (a like counts 4 views, a comment
 * 3) plus the hours since the epoch over 12. A day's head start is worth two orders of magnitude
 * of engagement, so the feed moves on; the value changes only when the counts do.
 */
const SCORE = `log(1 + v.views + 4 * v.likes + 3 * v.comments) + extract(epoch FROM v.created_at) / 43200.0`;

/** The order and the condition of each list; `uid` lists one person's, newest first. */
const ORDERS: Record<ShortTab | 'uid', { where: string; order: string }> = {
  hot: { where: "v.status = 'ready'", order: 'v.score DESC, v.id' },
  new: { where: "v.status = 'ready'", order: 'v.created_at DESC, v.id' },
  wonderful: {
    where: "v.status = 'ready' AND v.wonderful_at IS NOT NULL",
    order: 'v.wonderful_at DESC, v.id',
  },
  uid: { where: "v.status = 'ready' AND v.uid = $3", order: 'v.created_at DESC, v.id' },
};

export const videosRepo = {
  async create(
    db: Queryable,
    v: { id: string; uid: number; title: string; source: ShortSource; fromVid: string | null },
  ): Promise<void> {
    await db.query(
      `INSERT INTO short_videos (id, uid, title, source, from_vid, score)
       VALUES ($1, $2, $3, $4, $5, extract(epoch FROM now()) / 43200.0)`,
      [v.id, v.uid, v.title, v.source, v.fromVid],
    );
  },

  async progress(db: Queryable, id: string, progress: number): Promise<void> {
    await db.query(`UPDATE short_videos SET progress = $2 WHERE id = $1 AND status = 'processing'`, [
      id,
      progress,
    ]);
  },

  async ready(
    db: Queryable,
    id: string,
    f: {
      url: string;
      poster: string | null;
      bytes: number;
      durationMs: number;
      width: number;
      height: number;
    },
  ): Promise<void> {
    await db.query(
      `UPDATE short_videos SET status = 'ready', progress = 1, url = $2, poster = $3, bytes = $4,
         duration_ms = $5, width = $6, height = $7
       WHERE id = $1 AND status = 'processing'`,
      [id, f.url, f.poster, f.bytes, f.durationMs, f.width, f.height],
    );
  },

  async failed(db: Queryable, id: string, error: string): Promise<void> {
    await db.query(
      `UPDATE short_videos SET status = 'failed', error = $2 WHERE id = $1 AND status = 'processing'`,
      [id, error],
    );
  },

  /** Videos left processing by a node that stopped (the work was in its memory). */
  async abandon(db: Queryable, olderThanMs: number): Promise<number> {
    const r = await db.query(
      `UPDATE short_videos SET status = 'failed', error = 'internal'
       WHERE status = 'processing' AND created_at < now() - make_interval(secs => $1::float8 / 1000)
       RETURNING id`,
      [olderThanMs],
    );
    return r.length;
  },

  async get(db: Queryable, id: string): Promise<VideoRow | null> {
    const r = await db.query<VideoRow>(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE v.id = $1 AND v.status <> 'deleted'`,
      [id],
    );
    return r[0] ?? null;
  },

  async list(
    db: Queryable,
    tab: ShortTab,
    uid: number | null,
    offset: number,
    limit: number,
  ): Promise<VideoRow[]> {
    const { where, order } = ORDERS[uid === null ? tab : 'uid'];
    const r = await db.query<VideoRow>(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY ${order} OFFSET $1 LIMIT $2`,
      uid === null ? [offset, limit] : [offset, limit, uid],
    );
    return r;
  },

  async countWonderful(db: Queryable): Promise<number> {
    const r = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM short_videos WHERE status = 'ready' AND wonderful_at IS NOT NULL`,
    );
    return r[0]?.n ?? 0;
  },

  async likedOf(db: Queryable, uid: number, ids: readonly string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const r = await db.query<{ video_id: string }>(
      'SELECT video_id FROM short_video_likes WHERE uid = $1 AND video_id = ANY($2::text[])',
      [uid, ids],
    );
    return new Set(r.map((x) => x.video_id));
  },

  /** Likes (or unlikes) once; the count and the score move only when the like itself did. */
  async like(db: Queryable, id: string, uid: number, on: boolean): Promise<number> {
    const changed = on
      ? await db.query(
          'INSERT INTO short_video_likes (video_id, uid) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING uid',
          [id, uid],
        )
      : await db.query('DELETE FROM short_video_likes WHERE video_id = $1 AND uid = $2 RETURNING uid', [
          id,
          uid,
        ]);
    const r = await db.query<{ likes: number }>(
      `UPDATE short_videos v SET likes = likes + $2, score = ${SCORE.replaceAll('v.likes', '(v.likes + $2)')}
       WHERE id = $1 RETURNING likes::int AS likes`,
      [id, changed.length === 0 ? 0 : on ? 1 : -1],
    );
    return r[0]?.likes ?? 0;
  },

  async view(db: Queryable, id: string): Promise<number> {
    const r = await db.query<{ views: number }>(
      `UPDATE short_videos v SET views = views + 1, score = ${SCORE.replaceAll('v.views', '(v.views + 1)')}
       WHERE id = $1 RETURNING views::int AS views`,
      [id],
    );
    return r[0]?.views ?? 0;
  },

  async setWonderful(db: Queryable, id: string, on: boolean): Promise<void> {
    await db.query(
      `UPDATE short_videos SET wonderful_at = CASE WHEN $2 THEN coalesce(wonderful_at, now()) END WHERE id = $1`,
      [id, on],
    );
  },

  async remove(db: Queryable, id: string): Promise<void> {
    await db.query(`UPDATE short_videos SET status = 'deleted' WHERE id = $1`, [id]);
  },

  async addComment(db: Queryable, id: string, uid: number, text: string): Promise<number> {
    const r = await db.query<{ id: number }>(
      'INSERT INTO short_video_comments (video_id, uid, text) VALUES ($1, $2, $3) RETURNING id::int AS id',
      [id, uid, text],
    );
    await db.query(
      `UPDATE short_videos v SET comments = comments + 1, score = ${SCORE.replaceAll('v.comments', '(v.comments + 1)')}
       WHERE id = $1`,
      [id],
    );
    return r[0]?.id ?? 0;
  },

  async comment(db: Queryable, id: string, cid: number): Promise<CommentRow | null> {
    const r = await db.query<CommentRow>(
      `SELECT c.id::int AS id, c.video_id, c.uid, c.text, c.created_at, u.nickname, u.face, u.short_id, u.country
       FROM short_video_comments c JOIN users u ON u.uid = c.uid WHERE c.video_id = $1 AND c.id = $2`,
      [id, cid],
    );
    return r[0] ?? null;
  },

  async comments(db: Queryable, id: string, before: number | null, limit: number): Promise<CommentRow[]> {
    const r = await db.query<CommentRow>(
      `SELECT c.id::int AS id, c.video_id, c.uid, c.text, c.created_at, u.nickname, u.face, u.short_id, u.country
       FROM short_video_comments c JOIN users u ON u.uid = c.uid
       WHERE c.video_id = $1 AND ($2::bigint IS NULL OR c.id < $2)
       ORDER BY c.id DESC LIMIT $3`,
      [id, before, limit],
    );
    return r;
  },

  async removeComment(db: Queryable, id: string, cid: number): Promise<void> {
    const r = await db.query(
      'DELETE FROM short_video_comments WHERE video_id = $1 AND id = $2 RETURNING id',
      [id, cid],
    );
    if (r.length > 0)
      await db.query(
        `UPDATE short_videos v SET comments = comments - 1,
           score = ${SCORE.replaceAll('v.comments', '(v.comments - 1)')} WHERE id = $1`,
        [id],
      );
  },
};
