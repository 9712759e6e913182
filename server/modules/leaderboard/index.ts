// The leaderboard module's public face: the boards, their roll-up of gifts and PK wins, and the route.
export { leaderboardRoutes } from './routes';
export { LeaderboardService } from './service';
import type { Queryable } from '../../db/client';
import { leaderboardRepo } from './repo';

/** A PK battle won: on the boards from the next roll-up (written in the battle's transaction). */
export function countPkWin(tx: Queryable, uid: number): Promise<void> {
  return leaderboardRepo.countWin(tx, uid);
}
