import { AppError } from '../../../common/errors';
import type { Queryable } from '../../db/client';
import { liveRepo, type LiveRow } from './repo';

/** A broadcast that exists, in any state but deleted; otherwise spec §8 'video does not exist'. */
export async function existingLive(db: Queryable, vid: string): Promise<LiveRow> {
  const live = await liveRepo.byVid(db, vid);
  if (!live || live.status === 'deleted') throw new AppError('video_not_found');
  return live;
}
