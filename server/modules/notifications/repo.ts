import type { Db, Queryable } from '../../db/client';

/** A host's followers to notify (a notify_jobs row). */
export interface Job {
  id: number;
  host: number;
  vid: string;
  title: string;
  /** The last follower done (uid order). */
  after: number;
  /** A festival slot starting: the programme's followers are told, not the host's. */
  programme: number | null;
}

/** What one batch of a fan-out did. */
export interface Batch {
  /** Followers looked at (fewer than asked: the last batch). */
  scanned: number;
  /** The notifications made, as [id, uid]. */
  made: [number, number][];
  /** Pushes queued. */
  pushed: number;
  /** The last follower looked at (null: none were left). */
  last: number | null;
  at: Date;
}

export interface NotificationRow {
  id: number;
  vid: string;
  title: string;
  created_at: Date;
  read_at: Date | null;
  host: number;
  short_id: string;
  nickname: string;
  face: string | null;
  programme: number | null;
  /** The programme's name in each language. */
  names: Record<string, string> | null;
}

export interface HostRow {
  uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
}

/** A push to send: the device, and what it says. */
export interface PushRow {
  id: number;
  attempts: number;
  subscription: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  locale: string;
  vid: string;
  title: string;
  host: number;
  nickname: string;
  face: string | null;
  programme: number | null;
  names: Record<string, string> | null;
}

const ms = (n: number) => `$${n} * interval '1 millisecond'`;

/**
 * One page of the fan-out: the next followers (of the host, or of the programme for a festival
 * slot) in uid order (the job's row locked first, so a
 * node whose claim lapsed cannot write the same page twice), their notifications, skipping those
 * who muted the host, turned go-live off, or had one from this host within the hour, the pushes
 * of those with push on and a device, and the job moved past the page.
 */
const FAN_OUT = `
WITH batch AS (
  SELECT follower FROM (
    SELECT f.follower FROM follows f WHERE $8::bigint IS NULL AND f.followee = $2 AND f.follower > $3
    UNION ALL
    SELECT pf.uid FROM programme_follows pf WHERE pf.programme = $8 AND pf.uid > $3
  ) everyone ORDER BY follower LIMIT $4
),
made AS (
  INSERT INTO notifications (uid, host, vid, title, programme)
  SELECT b.follower, $2, $5, $6, $8 FROM batch b
  WHERE NOT EXISTS (SELECT 1 FROM notification_mutes m WHERE m.uid = b.follower AND m.host = $2)
    AND NOT EXISTS (SELECT 1 FROM notification_settings s WHERE s.uid = b.follower AND NOT s.go_live)
    AND NOT EXISTS (SELECT 1 FROM notifications n
                    WHERE n.uid = b.follower AND n.host = $2 AND n.created_at > now() - interval '1 hour')
  RETURNING id, uid
),
pushed AS (
  INSERT INTO push_queue (notification, subscription)
  SELECT m.id, p.id FROM made m JOIN push_subscriptions p ON p.uid = m.uid
  WHERE NOT EXISTS (SELECT 1 FROM notification_settings s WHERE s.uid = m.uid AND NOT s.push)
  RETURNING 1
),
moved AS (
  UPDATE notify_jobs SET after = coalesce((SELECT max(follower) FROM batch), after),
    claimed_until = now() + ${ms(7)}
  WHERE id = $1 RETURNING 1
)
SELECT (SELECT count(*) FROM batch)::int AS scanned, (SELECT max(follower) FROM batch) AS last,
       (SELECT count(*) FROM pushed)::int AS pushed,
       (SELECT count(*) FROM moved)::int AS moved,
       coalesce((SELECT json_agg(json_build_array(id, uid)) FROM made), '[]'::json) AS made,
       now() AS at`;

const LIST = (before: boolean) => `
SELECT n.id, n.vid, n.title, n.created_at, n.read_at, u.uid AS host, u.short_id, u.nickname, u.face,
       n.programme, p.names
FROM notifications n JOIN users u ON u.uid = n.host LEFT JOIN programmes p ON p.id = n.programme
WHERE n.uid = $1 ${before ? 'AND n.id < $3' : ''}
ORDER BY n.id DESC LIMIT $2`;

export const notificationsRepo = {
  /** A fan-out to do for a host that went on air. */
  async enqueue(
    db: Queryable,
    live: { uid: number; vid: string; title: string; programme?: number | undefined },
  ): Promise<void> {
    await db.query('INSERT INTO notify_jobs (host, vid, title, programme) VALUES ($1, $2, $3, $4)', [
      live.uid,
      live.vid,
      live.title,
      live.programme ?? null,
    ]);
  },

  /**
   * Claims the oldest job no node holds, for `claimMs`. A host's jobs run one after another (the
   * hour rule of the second sees what the first wrote).
   */
  async claimJob(db: Queryable, claimMs: number): Promise<Job | null> {
    const [job] = await db.query<Job>(
      `UPDATE notify_jobs SET claimed_until = now() + ${ms(1)}
       WHERE id = (
         SELECT j.id FROM notify_jobs j
         WHERE j.claimed_until < now()
           AND NOT EXISTS (SELECT 1 FROM notify_jobs o WHERE o.host = j.host AND o.id < j.id)
         ORDER BY j.id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id, host, vid, title, after, programme`,
      [claimMs],
    );
    return job ?? null;
  },

  /** The next page of a job (FAN_OUT); null when the job is no longer where this node left it. */
  async fanOut(db: Db, job: Job, size: number, claimMs: number): Promise<Batch | null> {
    return db.transaction(async (tx) => {
      const [mine] = await tx.query<{ after: number }>(
        'SELECT after FROM notify_jobs WHERE id = $1 FOR UPDATE',
        [job.id],
      );
      if (mine?.after !== job.after) return null;
      const [row] = await tx.query<Batch & { moved: number }>(
        FAN_OUT,
        [job.id, job.host, job.after, size, job.vid, job.title, claimMs, job.programme],
        'notify_fan_out_2',
      );
      return row
        ? { scanned: row.scanned, made: row.made, pushed: row.pushed, last: row.last, at: row.at }
        : null;
    });
  },

  async finishJob(db: Queryable, id: number): Promise<void> {
    await db.query('DELETE FROM notify_jobs WHERE id = $1', [id]);
  },

  async programmeNames(db: Queryable, id: number): Promise<Record<string, string> | null> {
    const [row] = await db.query<{ names: Record<string, string> }>(
      'SELECT names FROM programmes WHERE id = $1',
      [id],
    );
    return row?.names ?? null;
  },

  async host(db: Queryable, uid: number): Promise<HostRow | null> {
    const [row] = await db.query<HostRow>('SELECT uid, short_id, nickname, face FROM users WHERE uid = $1', [
      uid,
    ]);
    return row ?? null;
  },

  async list(db: Queryable, uid: number, limit: number, before?: number): Promise<NotificationRow[]> {
    return db.query<NotificationRow>(
      LIST(before !== undefined),
      before ? [uid, limit, before] : [uid, limit],
    );
  },

  async unread(db: Queryable, uid: number, max: number): Promise<number> {
    const [row] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM notifications WHERE uid = $1 AND read_at IS NULL LIMIT $2) u`,
      [uid, max],
    );
    return row?.n ?? 0;
  },

  /** Marks one read; false when it is not this person's. */
  async markRead(db: Queryable, uid: number, id: number): Promise<boolean> {
    const rows = await db.query(
      'UPDATE notifications SET read_at = coalesce(read_at, now()) WHERE id = $1 AND uid = $2 RETURNING 1',
      [id, uid],
    );
    return rows.length > 0;
  },

  async markAllRead(db: Queryable, uid: number): Promise<void> {
    await db.query('UPDATE notifications SET read_at = now() WHERE uid = $1 AND read_at IS NULL', [uid]);
  },

  async settings(db: Queryable, uid: number): Promise<{ go_live: boolean; push: boolean }> {
    const [row] = await db.query<{ go_live: boolean; push: boolean }>(
      'SELECT go_live, push FROM notification_settings WHERE uid = $1',
      [uid],
    );
    return row ?? { go_live: true, push: true };
  },

  async setSettings(db: Queryable, uid: number, s: { go_live: boolean; push: boolean }): Promise<void> {
    await db.query(
      `INSERT INTO notification_settings (uid, go_live, push) VALUES ($1, $2, $3)
       ON CONFLICT (uid) DO UPDATE SET go_live = excluded.go_live, push = excluded.push`,
      [uid, s.go_live, s.push],
    );
  },

  async muted(db: Queryable, uid: number, host: number): Promise<boolean> {
    const rows = await db.query('SELECT 1 FROM notification_mutes WHERE uid = $1 AND host = $2', [uid, host]);
    return rows.length > 0;
  },

  async mute(db: Queryable, uid: number, host: number, on: boolean): Promise<void> {
    await db.query(
      on
        ? `INSERT INTO notification_mutes (uid, host) SELECT $1, uid FROM users WHERE uid = $2 ON CONFLICT DO NOTHING`
        : 'DELETE FROM notification_mutes WHERE uid = $1 AND host = $2',
      [uid, host],
    );
  },

  /** Keeps a device's subscription (a device that changed hands moves to its new person). */
  async subscribe(
    db: Queryable,
    uid: number,
    s: { endpoint: string; p256dh: string; auth: string; locale: string },
    perPerson: number,
  ): Promise<void> {
    await db.query(
      `INSERT INTO push_subscriptions (uid, endpoint, p256dh, auth, locale) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (endpoint) DO UPDATE SET uid = excluded.uid, p256dh = excluded.p256dh,
         auth = excluded.auth, locale = excluded.locale`,
      [uid, s.endpoint, s.p256dh, s.auth, s.locale],
    );
    // The newest devices only: one forgotten in a drawer should not be pushed to forever.
    await db.query(
      `DELETE FROM push_subscriptions WHERE uid = $1 AND id NOT IN
         (SELECT id FROM push_subscriptions WHERE uid = $1 ORDER BY id DESC LIMIT $2)`,
      [uid, perPerson],
    );
  },

  async unsubscribe(db: Queryable, uid: number, endpoint: string): Promise<void> {
    await db.query('DELETE FROM push_subscriptions WHERE uid = $1 AND endpoint = $2', [uid, endpoint]);
  },

  /** Claims up to `n` due pushes for `claimMs` (they are due again if this node dies). */
  async claimPushes(db: Queryable, n: number, claimMs: number): Promise<PushRow[]> {
    return db.query<PushRow>(
      `WITH due AS (
         UPDATE push_queue q SET not_before = now() + ${ms(2)}, attempts = q.attempts + 1
         FROM (SELECT id FROM push_queue WHERE not_before <= now() ORDER BY not_before, id
               LIMIT $1 FOR UPDATE SKIP LOCKED) d
         WHERE q.id = d.id
         RETURNING q.id, q.attempts, q.notification, q.subscription)
       SELECT d.id, d.attempts, s.id AS subscription, s.endpoint, s.p256dh, s.auth, s.locale,
              n.vid, n.title, n.host, u.nickname, u.face, n.programme, p.names
       FROM due d
       JOIN push_subscriptions s ON s.id = d.subscription
       JOIN notifications n ON n.id = d.notification
       JOIN users u ON u.uid = n.host
       LEFT JOIN programmes p ON p.id = n.programme`,
      [n, claimMs],
      'notify_claim_pushes_2',
    );
  },

  async dropPushes(db: Queryable, ids: number[]): Promise<void> {
    if (ids.length) await db.query('DELETE FROM push_queue WHERE id = ANY($1::bigint[])', [ids]);
  },

  async retryPush(db: Queryable, id: number, delayMs: number): Promise<void> {
    await db.query(`UPDATE push_queue SET not_before = now() + ${ms(2)} WHERE id = $1`, [id, delayMs]);
  },

  /** The push service said these devices are gone (404, 410): their queued pushes go with them. */
  async dropSubscriptions(db: Queryable, ids: number[]): Promise<void> {
    if (ids.length) await db.query('DELETE FROM push_subscriptions WHERE id = ANY($1::bigint[])', [ids]);
  },

  /**
   * Deletes those of the `n` oldest notifications made before `days` ago; answers how many. Ids
   * follow creation, so the oldest rows by id are the candidates (read down the primary key, where
   * a condition on the unindexed created_at alone would read the whole table when none is old).
   */
  async prune(db: Queryable, days: number, n: number): Promise<number> {
    const rows = await db.query(
      `DELETE FROM notifications WHERE id IN (SELECT id FROM notifications ORDER BY id LIMIT $2)
         AND created_at < now() - $1 * interval '1 day'
       RETURNING 1`,
      [days, n],
    );
    return rows.length;
  },
};
