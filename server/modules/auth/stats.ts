import type { SignInWay } from '../../../common/analytics';
import type { Queryable } from '../../db/client';
import { PROVIDER_GOOGLE } from './third-party';

/** Accounts made between `from` and `to`, by the way they were made (analytics' daily roll-up). */
export function signupCounts(db: Queryable, from: Date, to: Date): Promise<{ way: SignInWay; n: number }[]> {
  return db.query(
    `SELECT CASE WHEN EXISTS (SELECT 1 FROM user_identities i WHERE i.uid = u.uid AND i.provider = $3) THEN 'google'
                 WHEN u.email IS NOT NULL THEN 'email' ELSE 'phone' END AS way,
            count(*)::int AS n
     FROM users u WHERE u.created_at >= $1 AND u.created_at < $2 GROUP BY 1`,
    [from, to, PROVIDER_GOOGLE],
  );
}
