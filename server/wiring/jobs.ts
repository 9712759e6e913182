import type { FastifyInstance } from 'fastify';
import type { AnalyticsService } from '../modules/analytics';
import type { PkService } from '../modules/pk';
import { EXPLORE_REFRESH_MS, type DiscoveryService, type SearchService } from '../modules/discovery';
import type { Ledger } from '../modules/ledger';
import type { LeaderboardService } from '../modules/leaderboard';
import type { NotificationService } from '../modules/notifications';
import type { LiveService } from '../modules/live';
import type { PaymentService } from '../modules/payments';
import type { RoomService } from '../modules/room';
import type { VideoService } from '../modules/videos';
import type { FestivalService } from '../modules/festival';

/** How often a node looks for festival slots that started (followers are told within this). */
const FESTIVAL_TICK_MS = 5000;
/** How often a node writes the analytics events it holds. */
const ANALYTICS_FLUSH_MS = 200;

/** The background work of this node, started once its services exist. */
export interface Jobs {
  /** Releases this node's broadcast leases, then stops the timers. */
  stop(): Promise<void>;
}

/**
 * Broadcast leases, the roll-ups of gifts' pending rows, and the payment sweeps. Broadcasts whose
 * lease lapsed (their node died) end before this resolves, so before this node serves anyone.
 */
export async function startJobs(
  app: FastifyInstance,
  deps: {
    live: LiveService;
    ledger: Ledger;
    room: RoomService;
    payments: PaymentService;
    discovery: DiscoveryService;
    search: SearchService;
    leaderboards: LeaderboardService;
    notifications: NotificationService;
    pk: PkService;
    analytics: AnalyticsService;
    videos: VideoService;
    festival: FestivalService;
  },
): Promise<Jobs> {
  const {
    live,
    ledger,
    room,
    payments,
    discovery,
    search,
    leaderboards,
    notifications,
    pk,
    analytics,
    videos,
    festival,
  } = deps;
  const fail = (what: string) => (err: unknown) => app.log.error({ err }, what);
  await live.startLeases();
  // Gifts' pending credits into balances, their top-fans rows and their leaderboard rows, every
  // second (see ledger_pending, fan_pending, leaderboard_pending).
  const rollUp = every(1000, () => {
    void ledger.rollUp().catch(fail('ledger roll-up failed'));
    void room.rollUpFans().catch(fail('top-fans roll-up failed'));
    void leaderboards.rollUp().catch(fail('leaderboard roll-up failed'));
  });
  // Orders whose webhook never came are asked about at the provider (see PaymentService.repairStale).
  const repair = every(60_000, () => {
    void payments.repairStale().catch(fail('payment repair failed'));
  });
  // Refunds and disputes stored but not applied (a crash between the two) are applied from storage.
  const reversals = every(10_000, () => {
    void payments.retryReversals().catch(fail('applying stored refunds and disputes failed'));
  });
  // Explore's read model made equal to what is on air (one node does it each time), first now.
  await discovery.refresh().catch(fail('refreshing explore failed'));
  const explore = every(EXPLORE_REFRESH_MS, () => {
    void discovery.refresh().catch(fail('refreshing explore failed'));
  });
  // Search's in-memory index, loaded in the background (the database answers until it is).
  search.start(fail('search index failed'));
  // Go-live fan-outs and queued pushes any node left, and old notifications dropped.
  const notify = every(1000, () => {
    void notifications.work().catch(fail('notification work failed'));
  });
  // PK battles whose phase is over move on, on whichever node looks first (PK_TICK_MS).
  pk.start();
  // Analytics: this node's buffered events written five times a second (events held longer
  // outlive the young generation and cost old-generation collections: pauses pages feel); the day partitions made ahead
  // and old ones dropped hourly; today's and yesterday's numbers made again every five minutes.
  await analytics.maintain().catch(fail('analytics partitions failed'));
  const collect = every(ANALYTICS_FLUSH_MS, () => {
    void analytics.flush().catch(fail('writing analytics events failed'));
  });
  const partitions = every(3_600_000, () => {
    void analytics.maintain().catch(fail('analytics partitions failed'));
  });
  const daily = every(300_000, () => {
    void analytics.rollUp().catch(fail('analytics roll-up failed'));
  });
  // Short videos a stopped node left processing are told they failed (their author can try again).
  const videoSweep = every(300_000, () => {
    void videos.sweep().catch(fail('sweeping short videos failed'));
  });
  // Festival slots that started: their programme's followers told (each slot by one node, once).
  const slots = every(FESTIVAL_TICK_MS, () => {
    void festival.startDue().catch(fail('telling festival followers failed'));
  });
  return {
    async stop() {
      clearInterval(videoSweep);
      clearInterval(slots);
      pk.stop();
      clearInterval(explore);
      clearInterval(notify);
      search.stop();
      await live.shutdown().catch(fail('releasing broadcast leases failed'));
      clearInterval(rollUp);
      clearInterval(repair);
      clearInterval(reversals);
      clearInterval(collect);
      clearInterval(partitions);
      clearInterval(daily);
      await analytics.flush().catch(fail('writing analytics events failed'));
    },
  };
}

/** A timer that does not keep the process alive. */
function every(ms: number, run: () => void): NodeJS.Timeout {
  const timer = setInterval(run, ms);
  timer.unref();
  return timer;
}
