import { AppError } from '../../../common/errors';
import type { FollowListKind } from '../../../common/social';
import type { Queryable } from '../../db/client';

export interface FollowListRow {
  uid: number;
  short_id: string;
  nickname: string;
  face: string | null;
  level: number;
  /** The reader follows this person. */
  follows: boolean;
  /** This person follows the reader. */
  back: boolean;
  follower_count: number;
  /** When the follow was made (UTC, microseconds): the cursor's position. */
  since: string;
}

/** Where a page ends: the follow's time and the other person, newest first. */
interface Position {
  since: string;
  uid: number;
}

/**
 * One statement per direction: `followers` are the rows where the person is followed, `following`
 * where they follow. Newest follow first (follows_followee_idx, follows_follower_idx), the other
 * person's uid breaking ties, so a cursor continues exactly where the page ended.
 */
function listSql(kind: FollowListKind): string {
  const [self, other] = kind === 'followers' ? ['followee', 'follower'] : ['follower', 'followee'];
  return `
SELECT u.uid, u.short_id, u.nickname, u.face, u.level,
       me.follower IS NOT NULL AS follows, back.follower IS NOT NULL AS back,
       coalesce((SELECT followers FROM follow_counts c WHERE c.uid = u.uid), 0) AS follower_count,
       to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS since
FROM follows f JOIN users u ON u.uid = f.${other}
LEFT JOIN follows me ON me.follower = $2 AND me.followee = u.uid
LEFT JOIN follows back ON back.follower = u.uid AND back.followee = $2
WHERE f.${self} = $1
  AND ($3::timestamp IS NULL OR (f.created_at, f.${other}) < ($3::timestamp AT TIME ZONE 'UTC', $4::bigint))
ORDER BY f.created_at DESC, f.${other} DESC
LIMIT $5`;
}
const SQL = { followers: listSql('followers'), following: listSql('following') };

const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6})\|(\d{1,15})$/;

/** The opaque cursor of the page after `last`. */
export function encodeCursor(last: Position): string {
  return Buffer.from(`${last.since}|${last.uid}`).toString('base64url');
}

/** A cursor back to its position; anything else the client sends is a validation error. */
export function decodeCursor(cursor: string): Position {
  const m = CURSOR.exec(Buffer.from(cursor, 'base64url').toString());
  // A well-formed but impossible time (month 13) would fail in the database instead.
  const at = m?.[1] ? new Date(`${m[1].slice(0, 23)}Z`) : null;
  if (
    !m?.[1] ||
    !m[2] ||
    !at ||
    Number.isNaN(at.getTime()) ||
    at.toISOString().slice(0, 23) !== m[1].slice(0, 23)
  )
    throw new AppError('validation_failed', { field: 'cursor' });
  return { since: m[1], uid: Number(m[2]) };
}

export const followListRepo = {
  /** Up to `limit` people of `uid`'s list after `after`, as `reader` (0: signed out) relates to them. */
  async page(
    db: Queryable,
    kind: FollowListKind,
    uid: number,
    reader: number,
    after: Position | null,
    limit: number,
  ): Promise<FollowListRow[]> {
    return db.query<FollowListRow>(SQL[kind], [uid, reader, after?.since ?? null, after?.uid ?? null, limit]);
  },
};
