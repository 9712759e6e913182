// The leaderboard module's public face: the boards, their roll-up of gifts, and the route.
export { leaderboardRoutes } from './routes';
export { LeaderboardService } from './service';
