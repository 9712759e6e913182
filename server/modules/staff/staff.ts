import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../common/errors';
import type { Queryable } from '../../db/client';
import { requireAuth } from '../auth';
import { staffRepo } from './repo';

/**
 * Staff (review pages, chat moderation): marked in the database, or signed up with an address
 * STAFF_EMAILS names (so a fresh install names its staff without editing the database).
 * `staffEmails` are lower case (config); sign-up stores addresses lower case.
 */
export async function isStaff(db: Queryable, uid: number, staffEmails: readonly string[]): Promise<boolean> {
  const user = await staffRepo.marks(db, uid);
  if (!user) return false;
  return user.staff || (user.email !== null && staffEmails.includes(user.email));
}

/** The caller's uid if they are staff; `not_allowed` (403) otherwise, `invalid_session` if signed out. */
export async function requireStaff(
  req: FastifyRequest,
  db: Queryable,
  staffEmails: readonly string[],
): Promise<number> {
  const { uid } = requireAuth(req);
  if (!(await isStaff(db, uid, staffEmails))) throw new AppError('not_allowed');
  return uid;
}
