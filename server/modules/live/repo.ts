import type { LiveCategory } from '../../../common/api/live';
import type { EndReason } from '../../../common/realtime';
import type { Queryable } from '../../db/client';

export type LiveStatus = 'created' | 'live' | 'ended' | 'deleted' | 'expired';

export interface LiveRow {
  vid: string;
  uid: number;
  title: string;
  cover: string | null;
  orientation: 'portrait' | 'landscape';
  category: LiveCategory;
  status: LiveStatus;
  source: 'studio' | 'obs';
  created_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
  peak_viewers: number;
  end_reason: EndReason | null;
  /** A broadcast with a picture, or an audio room (server/modules/audio). */
  kind: 'video' | 'audio';
}

export interface LiveWithHost extends LiveRow {
  nickname: string;
  face: string | null;
  short_id: string;
}

const COLUMNS =
  'l.vid, l.uid, l.title, l.cover, l.orientation, l.category, l.status, l.source, l.created_at, l.started_at, l.ended_at, l.peak_viewers, l.end_reason, l.kind';
const RETURNING =
  'RETURNING vid, uid, title, cover, orientation, category, status, source, created_at, started_at, ended_at, peak_viewers, end_reason, kind';
/** Parameter `n`'s milliseconds from now, by the database's clock (the one every node's leases use). */
const fromNow = (n: number) => `now() + $${n} * interval '1 millisecond'`;
const WITH_HOST = `SELECT ${COLUMNS}, u.nickname, u.face, u.short_id FROM lives l JOIN users u ON u.uid = l.uid`;

export interface ReplayPart {
  file: string;
  bytes: number;
  started_at: Date;
  ended_at: Date;
}

export const liveRepo = {
  async addReplayPart(
    db: Queryable,
    p: { vid: string; file: string; bytes: number; startedAt: Date; endedAt: Date },
  ): Promise<void> {
    await db.query(
      `INSERT INTO replay_parts (vid, file, bytes, started_at, ended_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (file) DO NOTHING`,
      [p.vid, p.file, p.bytes, p.startedAt, p.endedAt],
    );
  },

  async replayParts(db: Queryable, vid: string): Promise<ReplayPart[]> {
    return db.query<ReplayPart>(
      'SELECT file, bytes, started_at, ended_at FROM replay_parts WHERE vid = $1 ORDER BY started_at',
      [vid],
    );
  },

  /** A broadcaster's ended broadcasts that have a replay, newest first. */
  async replaysOf(db: Queryable, uid: number, limit: number): Promise<LiveRow[]> {
    return db.query<LiveRow>(
      `SELECT ${COLUMNS} FROM lives l WHERE l.uid = $1 AND l.status = 'ended'
         AND EXISTS (SELECT 1 FROM replay_parts p WHERE p.vid = l.vid)
       ORDER BY l.started_at DESC NULLS LAST LIMIT $2`,
      [uid, limit],
    );
  },

  /** The broadcaster's latest ended broadcast with a replay that was on air within [from, to). */
  async replayWithin(db: Queryable, uid: number, from: Date, to: Date): Promise<string | null> {
    const [row] = await db.query<{ vid: string }>(
      `SELECT l.vid FROM lives l WHERE l.uid = $1 AND l.status = 'ended'
         AND l.started_at < $3 AND coalesce(l.ended_at, l.started_at) > $2
         AND EXISTS (SELECT 1 FROM replay_parts p WHERE p.vid = l.vid)
       ORDER BY l.started_at DESC LIMIT 1`,
      [uid, from, to],
    );
    return row?.vid ?? null;
  },

  /** A new broadcast, leased to `lease.node` for `lease.ms`: its publisher has that long to arrive. */
  async insert(
    db: Queryable,
    l: {
      vid: string;
      uid: number;
      title: string;
      orientation: string;
      category: LiveCategory;
      source: string;
      tokenHash: Buffer | null;
      kind?: 'video' | 'audio';
    },
    lease: { node: string; ms: number },
  ): Promise<LiveRow> {
    const [row] = await db.query<LiveRow>(
      `INSERT INTO lives (vid, uid, title, orientation, category, source, publish_token_hash, lease_node, lease_until, kind)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ${fromNow(9)}, $10) ${RETURNING}`,
      [
        l.vid,
        l.uid,
        l.title,
        l.orientation,
        l.category,
        l.source,
        l.tokenHash,
        lease.node,
        lease.ms,
        l.kind ?? 'video',
      ],
    );
    if (!row) throw new Error('live insert returned nothing');
    return row;
  },

  /** The broadcaster's active broadcast; `leased`: its lease has not lapsed (someone holds it). */
  /** The node holding an active broadcast's media (its origin), if any holds it now. */
  async leaseHolder(db: Queryable, vid: string): Promise<string | null> {
    const [row] = await db.query<{ lease_node: string | null }>(
      `SELECT lease_node FROM lives WHERE vid = $1 AND status IN ('created', 'live') AND lease_until > now()`,
      [vid],
    );
    return row?.lease_node ?? null;
  },

  /** Whether the broadcast is on (created or live), leased or not. */
  async isActive(db: Queryable, vid: string): Promise<boolean> {
    const [row] = await db.query<{ on: boolean }>(
      `SELECT true AS on FROM lives WHERE vid = $1 AND status IN ('created', 'live')`,
      [vid],
    );
    return row !== undefined;
  },

  async active(db: Queryable, uid: number): Promise<(LiveRow & { leased: boolean }) | null> {
    const [row] = await db.query<LiveRow & { leased: boolean }>(
      `SELECT ${COLUMNS}, l.lease_until > now() AS leased FROM lives l
       WHERE l.uid = $1 AND l.status IN ('created', 'live')`,
      [uid],
    );
    return row ?? null;
  },

  async byVid(db: Queryable, vid: string): Promise<LiveWithHost | null> {
    const [row] = await db.query<LiveWithHost>(`${WITH_HOST} WHERE l.vid = $1`, [vid]);
    return row ?? null;
  },

  async byPublishToken(db: Queryable, tokenHash: Buffer): Promise<LiveRow | null> {
    const [row] = await db.query<LiveRow>(
      `SELECT ${COLUMNS} FROM lives l WHERE l.publish_token_hash = $1 AND l.status IN ('created', 'live')`,
      [tokenHash],
    );
    return row ?? null;
  },

  /**
   * The publisher's media flows on `node`: live, and leased there. Answers the host and title when
   * this went on air just now (it was created, not live already: not a reconnection).
   */
  async markLive(
    db: Queryable,
    vid: string,
    lease: { node: string; ms: number },
  ): Promise<{ uid: number; title: string } | null> {
    const [row] = await db.query<{ uid: number; title: string; was: string }>(
      `WITH was AS (SELECT status FROM lives WHERE vid = $1 AND status IN ('created', 'live') FOR UPDATE)
       UPDATE lives l SET status = 'live', started_at = coalesce(l.started_at, now()),
         lease_node = $2, lease_until = ${fromNow(3)}
       FROM was WHERE l.vid = $1
       RETURNING l.uid, l.title, was.status AS was`,
      [vid, lease.node, lease.ms],
    );
    return row?.was === 'created' ? { uid: row.uid, title: row.title } : null;
  },

  /**
   * Ends a broadcast; answers the row as it ended, or null when it was not active. With `holder`,
   * only while that node holds its lease (a node whose publisher left does not end a broadcast
   * that another node took over).
   */
  async end(
    db: Queryable,
    vid: string,
    reason: EndReason,
    holder: string | null = null,
  ): Promise<LiveRow | null> {
    const [row] = await db.query<LiveRow>(
      `UPDATE lives SET status = 'ended', ended_at = now(), publish_token_hash = NULL, viewers = 0, end_reason = $2
       WHERE vid = $1 AND status IN ('created', 'live') AND ($3::text IS NULL OR lease_node = $3)
       ${RETURNING}`,
      [vid, reason, holder],
    );
    return row ?? null;
  },

  /** This node has the broadcast's media now: its lease, whoever had it before. */
  async takeLease(db: Queryable, vid: string, node: string, ms: number): Promise<void> {
    await db.query(
      `UPDATE lives SET lease_node = $2, lease_until = ${fromNow(3)} WHERE vid = $1 AND status IN ('created', 'live')`,
      [vid, node, ms],
    );
  },

  /** Renews the leases `node` still holds among `vids`; answers those. */
  async renewLeases(db: Queryable, node: string, vids: string[], ms: number): Promise<string[]> {
    const rows = await db.query<{ vid: string }>(
      `UPDATE lives SET lease_until = ${fromNow(3)}
       WHERE vid = ANY($2::text[]) AND lease_node = $1 AND status IN ('created', 'live') RETURNING vid`,
      [node, vids, ms],
    );
    return rows.map((r) => r.vid);
  },

  /** A node shutting down: its leases are nobody's, for `ms` more at most. */
  async releaseLeases(db: Queryable, node: string, vids: string[], ms: number): Promise<void> {
    await db.query(
      `UPDATE lives SET lease_node = NULL, lease_until = least(lease_until, ${fromNow(3)})
       WHERE vid = ANY($2::text[]) AND lease_node = $1 AND status IN ('created', 'live')`,
      [node, vids, ms],
    );
  },

  /** Ends every broadcast whose lease lapsed; answers their vids (each ended by one sweep only). */
  async endLapsed(db: Queryable): Promise<string[]> {
    const rows = await db.query<{ vid: string }>(
      `UPDATE lives SET status = 'ended', ended_at = now(), publish_token_hash = NULL, viewers = 0, end_reason = 'lapsed'
       WHERE status IN ('created', 'live') AND lease_until < now() RETURNING vid`,
    );
    return rows.map((r) => r.vid);
  },

  async setCover(db: Queryable, vid: string, cover: string): Promise<void> {
    await db.query('UPDATE lives SET cover = $2 WHERE vid = $1', [vid, cover]);
  },

  async noteViewers(db: Queryable, vid: string, viewers: number): Promise<void> {
    await db.query(
      'UPDATE lives SET viewers = $2, peak_viewers = greatest(peak_viewers, $2) WHERE vid = $1',
      [vid, viewers],
      'note_viewers',
    );
  },

  async liveNow(db: Queryable, limit: number): Promise<LiveWithHost[]> {
    return db.query<LiveWithHost>(
      `${WITH_HOST} WHERE l.status = 'live' AND l.lease_until > now() ORDER BY l.started_at DESC LIMIT $1`,
      [limit],
    );
  },

  async setStreamKey(db: Queryable, uid: number, keyHash: Buffer): Promise<void> {
    await db.query(
      `INSERT INTO stream_keys (uid, key_hash) VALUES ($1, $2)
       ON CONFLICT (uid) DO UPDATE SET key_hash = excluded.key_hash, created_at = now()`,
      [uid, keyHash],
    );
  },

  async hasStreamKey(db: Queryable, uid: number): Promise<boolean> {
    const rows = await db.query('SELECT 1 FROM stream_keys WHERE uid = $1', [uid]);
    return rows.length > 0;
  },

  /** What OBS broadcasts of `uid` are about ('chat' until chosen, or without a key). */
  async obsCategory(db: Queryable, uid: number): Promise<LiveCategory> {
    const [row] = await db.query<{ category: LiveCategory }>(
      'SELECT category FROM stream_keys WHERE uid = $1',
      [uid],
    );
    return row?.category ?? 'chat';
  },

  /** Chooses it, and for the OBS broadcast waiting or on air now too. */
  async setObsCategory(db: Queryable, uid: number, category: LiveCategory): Promise<boolean> {
    const rows = await db.query('UPDATE stream_keys SET category = $2 WHERE uid = $1 RETURNING uid', [
      uid,
      category,
    ]);
    await db.query(
      `UPDATE lives SET category = $2 WHERE uid = $1 AND source = 'obs' AND status IN ('created', 'live')`,
      [uid, category],
    );
    return rows.length > 0;
  },

  /** A host's latest broadcasts, whatever their state (the staff's people lookup). */
  async latestOf(db: Queryable, uid: number, limit: number): Promise<LiveRow[]> {
    return db.query<LiveRow>(
      `SELECT ${COLUMNS.replaceAll('l.', '')} FROM lives WHERE uid = $1 ORDER BY created_at DESC LIMIT $2`,
      [uid, limit],
    );
  },

  async nicknameOf(db: Queryable, uid: number): Promise<string | null> {
    const [row] = await db.query<{ nickname: string }>('SELECT nickname FROM users WHERE uid = $1', [uid]);
    return row?.nickname ?? null;
  },

  async streamKeyOwner(db: Queryable, keyHash: Buffer): Promise<number | null> {
    const [row] = await db.query<{ uid: number }>('SELECT uid FROM stream_keys WHERE key_hash = $1', [
      keyHash,
    ]);
    return row?.uid ?? null;
  },
};
