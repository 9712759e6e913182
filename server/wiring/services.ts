import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { availableParallelism, hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { moneyRules, type Config } from '../config';
import type { Metrics } from '../http/metrics';
import {
  loadTransportKey,
  metaReader,
  PhoneAuthService,
  AuthService,
  SignupLimits,
  SmsCodes,
  GoogleSignIn,
  SessionCache,
  type SessionsEnded,
} from '../modules/auth';
import { ChatService } from '../modules/chat';
import { AnalyticsService } from '../modules/analytics';
import { FeedbackService } from '../modules/feedback';
import { VideoService } from '../modules/videos';
import { FestivalService } from '../modules/festival';
import { AudioService } from '../modules/audio';
import { defaultFfmpeg } from '../media/ffmpeg';
import { GiftCatalogue, GiftService } from '../modules/gifts';
import { WordLists } from '../modules/moderation';
import { LeaderboardService } from '../modules/leaderboard';
import { DiscoveryService, SearchService, WatchHistory } from '../modules/discovery';
import { PkService } from '../modules/pk';
import type { EndReason } from '../../common/api/live';
import { Ledger, WalletView } from '../modules/ledger';
import {
  LiveService,
  DEFAULT_VIEWER_LIMITS,
  LiveDirectory,
  MediaCluster,
  ObsPolicy,
  VIEWERS_PER_CORE,
  nodeName,
} from '../modules/live';
import { NewsDesk, NewsService } from '../modules/news';
import { PageDesk, type ContentStore } from '../modules/content';
import { loadVapidKeys, NotificationService, vapidSubject } from '../modules/notifications';
import { type PaymentProvider, SandboxProvider, PaymentService, StripeProvider } from '../modules/payments';
import { RoomService } from '../modules/room';
import { SocialService } from '../modules/social';
import { UsersService } from '../modules/users';
import { CashoutService, WalletService } from '../modules/wallet';
import type { AppDeps, Infra } from './infra';
import type { Realtime } from './realtime';
import { SESSIONS_TOPIC } from '../realtime/sessions';
import {
  announceChanged,
  announceContent,
  onChanged,
  onContent,
  USERS_TOPIC,
  WALLETS_TOPIC,
  type ChangeTopic,
  type ContentKind,
} from '../realtime/changes';
import { MeService } from '../modules/me';
import { LiveMonitor, PeopleLookup, SafetyService } from '../modules/safety';
import { StaffService, Totp } from '../modules/staff';

export type Services = Awaited<ReturnType<typeof buildServices>>;

/** The domain services, each given what it needs (no service builds another). */
export async function buildServices(
  app: FastifyInstance,
  deps: AppDeps,
  infra: Infra,
  rt: Realtime,
  metrics: Metrics,
  /** The static pages (read from disk), which staff's saved texts override. */
  pages: ContentStore,
) {
  const { config, db } = deps;
  const { kv } = infra;
  const { bus } = rt;
  const news = new NewsService(db);
  // What people show of themselves, and their wallets, are kept by services on each node; a
  // change is dropped here at once and announced to every other node (server/realtime/changes.ts).
  const changes = (topic: ChangeTopic) => {
    const forgetters: ((uids: readonly number[]) => void)[] = [];
    const forget = (uids: readonly number[]) => forgetters.forEach((f) => f(uids));
    const watch = onChanged(bus, topic, forget);
    app.addHook('onClose', async () => watch.close());
    return {
      forgetters,
      changed: (uids: number[]) => {
        forget(uids);
        announceChanged(bus, topic, uids).catch((err: unknown) =>
          app.log.error({ err, topic }, 'announcing a change failed'),
        );
      },
    };
  };
  // Staff's content edits (gifts, sensitive words, OBS): this node reloads at once, every other
  // node when the announcement arrives.
  const content = (what: ContentKind, reload: () => void | Promise<void>) => {
    const run = () =>
      Promise.resolve()
        .then(reload)
        .catch((err: unknown) => app.log.error({ err, what }, 'reloading staff content failed'));
    const watch = onContent(bus, what, () => void run());
    app.addHook('onClose', async () => watch.close());
    return async () => {
      await reload();
      announceContent(bus, what).catch((err: unknown) =>
        app.log.error({ err, what }, 'announcing a content change failed'),
      );
    };
  };
  const people = changes(USERS_TOPIC);
  const walletChanges = changes(WALLETS_TOPIC);
  const changed = people.changed;
  const users = new UsersService(db, infra.files, { changed });
  // Staff's bans refuse sign-ins (the safety module is built below, asked only later).
  const signIn = await signInServices(app, deps, infra, rt, metrics, (uid) => safety.notBanned(uid));
  // The room owns the host's blocks; live and chat ask it (it is built below, used only later).
  const isBlocked = (host: number, uid: number): Promise<boolean> => room.isBlocked(host, uid);
  // Followers hear of a host going on air; the live module only calls back (it knows nothing of them).
  const notifications = new NotificationService(db, bus, {
    push: {
      keys: await loadVapidKeys(db),
      subject: vapidSubject(config.MAIL_FROM, config.publicBaseUrl),
    },
    log: (err) => app.log.error({ err }, 'notifying followers failed'),
  });
  const live = liveService(app, deps, infra, rt, isBlocked, {
    // Staff's suspensions and bans (the safety module is built below, asked only later).
    mayGoLive: (uid) => safety.mayGoLive(uid),
    obsAllowed: (uid) => obs.allowed(uid),
    onLive: (started) => {
      void notifications
        .wentLive(started)
        .catch((err: unknown) => app.log.error({ err }, 'queueing go-live notifications failed'));
    },
    // Declared below; a broadcast cannot end before the services are made.
    onEnded: (vid, reason) => {
      void discovery
        .ended(vid)
        .catch((err: unknown) => app.log.error({ err }, 'dropping an ended live failed'));
      // A host who leaves a battle loses it (or calls off its invitation).
      void pk
        .liveEnded(vid, reason)
        .catch((err: unknown) => app.log.error({ err }, 'ending a battle failed'));
    },
  });
  const ledger = new Ledger(db, { changed: walletChanges.changed });
  const wallets = new WalletView(db);
  walletChanges.forgetters.push((uids) => wallets.forget(uids));
  const directory = new LiveDirectory(db);
  const gifts = new GiftService(db, ledger, bus, directory, {
    diamondsPerCoin: config.GIFT_DIAMONDS_PER_COIN,
    log: (err) => app.log.error({ err }, 'a paid gift could not be announced in its room'),
    walletsChanged: walletChanges.changed,
    gifted: (vid) => pk.gifted(vid),
    speaks: (vid, uid) => audio.speaks(vid, uid),
  });
  const chat = new ChatService(bus, {
    directory,
    room: { isBlocked },
    users,
    sensitive: infra.sensitive,
    limitScale: config.RATE_LIMIT_SCALE,
    hasSticker: (id) => gifts.hasSticker(id),
  });
  const social = new SocialService(db, kv, {
    limitScale: config.RATE_LIMIT_SCALE,
    followed: (who, host, vid): Promise<void> => room.followed(who, host, vid),
    changed,
  });
  const staff = new StaffService(db, {
    emails: config.STAFF_EMAILS,
    totp: new Totp(requireSecret(config.STAFF_TOTP_KEY, 'STAFF_TOTP_KEY'), config.SITE_NAME),
    kv,
    limitScale: config.RATE_LIMIT_SCALE,
    changed: (uid) => changed([uid]),
  });
  const newsDesk = new NewsDesk(
    db,
    staff,
    content('news', () => news.changed()),
  );
  const pageDesk: PageDesk = new PageDesk(db, pages, {
    staff,
    changed: content('pages', () => pageDesk.load()),
  });
  await pageDesk.load();
  const giftCatalogue = new GiftCatalogue(
    db,
    infra.files,
    staff,
    content('gifts', () => gifts.forgetCatalogue()),
  );
  const wordLists: WordLists = new WordLists(db, infra.sensitive, {
    extraFiles: config.SENSITIVE_WORDS_FILE,
    staff,
    changed: content('words', () => wordLists.load()),
  });
  await wordLists.load();
  const obs: ObsPolicy = new ObsPolicy(db, {
    configured:
      config.OBS_WHITELIST === 'all'
        ? 'all'
        : config.OBS_WHITELIST.split(',')
            .map((s) => s.trim())
            .filter(Boolean),
    staff,
    changed: content('obs', () => obs.forget()),
    shortIdOf: async (uid) => (await users.byUid(uid))?.short_id ?? null,
  });
  const me = new MeService(signIn.auth, async (uid) => {
    const [member, counts] = await Promise.all([staff.isMember(uid), social.state(uid, uid)]);
    return { staff: member, follower_count: counts.follower_count, following_count: counts.following_count };
  });
  people.forgetters.push(
    (uids) => users.forget(uids),
    (uids) => me.forget(uids),
  );
  const room: RoomService = new RoomService(
    db,
    kv,
    bus,
    rt.presence,
    users,
    social,
    directory,
    (vid, uid) => live.dropViewer(vid, uid),
    (vid, limit) => chat.recent(vid, limit),
  );
  const provider = deps.payments ?? paymentProvider(app, config, infra);
  const payments = new PaymentService(db, ledger, provider, {
    publicBaseUrl: config.publicBaseUrl,
    refundSecondApprovalCents: config.REFUND_SECOND_APPROVAL_USD * 100,
    log: (msg, detail) => app.log.error({ detail }, msg),
  });
  const discovery = new DiscoveryService(db);
  const pk = new PkService(db, bus, kv, {
    limitScale: config.RATE_LIMIT_SCALE,
    blocksAmong: (uids) => room.blocksAmong(uids),
    mask: (text) => infra.sensitive.mask(text),
    log: (err) => app.log.error({ err }, 'a PK battle step failed'),
  });
  const search = new SearchService(db, (people, ms) => {
    metrics.searchIndexPeople.set(people);
    app.log.info({ people, ms }, 'search index loaded');
  });
  const watched = new WatchHistory(db);
  const rules = moneyRules(config);
  // The boards' days, weeks and months are the cash-out week's time zone's.
  const leaderboards = new LeaderboardService(db, { utcOffset: rules.weekUtcOffset });
  const wallet = new WalletService(db, ledger, rules.convertDiamondsPerCoin);
  const cashout = new CashoutService(db, kv, ledger, signIn.codes, rules, config.RATE_LIMIT_SCALE, {
    mayCashOut: (uid) => safety.notBanned(uid),
    secondApprovalCents: config.CASHOUT_SECOND_APPROVAL_USD * 100,
  });
  const feedback = new FeedbackService(db, kv, config.RATE_LIMIT_SCALE);
  const videos = new VideoService(db, {
    files: infra.files,
    kv,
    workDir: join(config.DATA_DIR, 'tmp', 'videos'),
    recordingsDir: infra.recordingsDir,
    ffmpeg: config.FFMPEG_PATH ?? defaultFfmpeg(),
    workers: config.VIDEO_WORKERS,
    live,
    room: { isBlocked },
    sensitive: infra.sensitive,
    limitScale: config.RATE_LIMIT_SCALE,
    onError: (err, id) => app.log.warn({ err, id }, 'a short video could not be made'),
  });
  const festival = new FestivalService(db, {
    live,
    users,
    notifications,
    ...(deps.clock ? { now: deps.clock } : {}),
  });
  const audio = new AudioService(db, {
    live,
    media: infra.media,
    room: { isBlocked },
    bus,
    log: (err) => app.log.warn({ err }, 'an audio room’s seats could not be pushed'),
  });
  app.addHook('onClose', async () => audio.close());
  const safety = new SafetyService(db, {
    staff,
    onAir: (uid) => live.activeOf(uid),
    endLive: (vid) => live.endByStaff(vid),
    signOutEverywhere: (uid) => signIn.auth.signOutEverywhere(uid),
  });
  const monitor = new LiveMonitor(db, {
    onAir: async (limit) =>
      (await live.liveNow(limit)).map((l) => ({
        vid: l.vid,
        title: l.title,
        kind: l.kind,
        started_at: l.started_at,
        viewers: l.viewers,
        uid: l.uid,
        short_id: l.short_id,
        nickname: l.nickname,
        face: l.face,
      })),
    frame: (vid) => live.frame(vid),
    chat: (vid, limit) => chat.recent(vid, limit),
  });
  const peopleLookup = new PeopleLookup(db, {
    staff,
    find: (q) => users.findForStaff(q),
    person: (uid) => users.staffPerson(uid),
    sessions: (uid) => signIn.auth.activeSessions(uid),
    lives: async (uid) =>
      (await live.latestOf(uid)).map((l) => ({
        vid: l.vid,
        title: l.title,
        status: l.status,
        started_at: l.started_at?.toISOString() ?? null,
        ended_at: l.ended_at?.toISOString() ?? null,
        peak_viewers: l.peak_viewers,
      })),
    wallet: async (uid) => {
      const b = await ledger.balances(uid);
      return { coin: b.coin, diamond: b.diamond };
    },
    payee: async (uid) => {
      const p = await cashout.payeeOf(uid);
      return p ? { method: p.method, account: p.account, status: p.status } : null;
    },
    signOutEverywhere: (uid) => signIn.auth.signOutEverywhere(uid),
    reset: (uid, what, audit) => users.resetByStaff(uid, what, audit),
  });
  const analytics = new AnalyticsService(db, {
    key: requireSecret(config.ANALYTICS_KEY, 'ANALYTICS_KEY'),
    utcOffset: rules.weekUtcOffset,
    onWritten: (buffered, dropped) => {
      metrics.analyticsBuffered.set(buffered);
      metrics.analyticsDropped.set(dropped);
    },
  });
  return {
    ...signIn,
    staff,
    safety,
    monitor,
    peopleLookup,
    giftCatalogue,
    newsDesk,
    pageDesk,
    wordLists,
    obs,
    news,
    users,
    me,
    live,
    ledger,
    wallets,
    discovery,
    pk,
    leaderboards,
    notifications,
    search,
    watched,
    gifts,
    chat,
    social,
    room,
    provider,
    payments,
    wallet,
    cashout,
    feedback,
    analytics,
    videos,
    festival,
    audio,
    /** Stops what the services run themselves (the sandbox's webhook deliveries). */
    async close() {
      if (provider instanceof SandboxProvider) await provider.close();
    },
  };
}

/** A secret withStoredSecrets (server/secrets.ts) provides when it is not configured. */
function requireSecret(value: string | undefined, name: string): string {
  if (!value) throw new Error(`${name} is missing: pass the configuration through withStoredSecrets`);
  return value;
}

/** Accounts and sessions: e-mail and password, phone codes, Google, with their shared limits. */
async function signInServices(
  app: FastifyInstance,
  deps: AppDeps,
  infra: Infra,
  rt: Realtime,
  metrics: Metrics,
  mayBeSignedIn: (uid: number) => Promise<void>,
) {
  const { config, db } = deps;
  const { kv, risk, sms } = infra;
  // Sessions kept in this process: an ended one is dropped here before its end is announced, and
  // on every other node when the announcement arrives (SessionCache).
  const sessions = new SessionCache();
  const watch = rt.bus.subscribe(SESSIONS_TOPIC, (e) => {
    if (e.t === 'sessions-ended') sessions.forget(e.sessions);
  });
  app.addHook('onClose', async () => watch.close());
  const sessionsEnded: SessionsEnded = (ids) => {
    sessions.forget(ids);
    return rt.sessionsEnded(ids);
  };
  const transportKey = await loadTransportKey(db);
  const signups = new SignupLimits(
    kv,
    {
      signupPerPrefix: config.SIGNUP_PER_IP_PREFIX,
      signupPerDomain: config.SIGNUP_PER_EMAIL_DOMAIN,
      signupGlobal: config.SIGNUP_GLOBAL,
      smsPerPrefix: config.SMS_PER_IP_PREFIX,
      smsGlobal: config.SMS_GLOBAL,
      scale: config.RATE_LIMIT_SCALE,
    },
    {
      tripped: (limit) => metrics.authLimitTrips.inc({ limit }),
      passed: (action, used) => {
        metrics.authPassed.inc({ action });
        metrics.authBudgetUsed.set({ action }, used);
      },
    },
    (msg, detail) => app.log.warn(detail, msg),
  );
  const auth = new AuthService(db, kv, infra.mailer, transportKey, risk, {
    name: config.SITE_NAME,
    baseUrl: config.publicBaseUrl,
    limitScale: config.RATE_LIMIT_SCALE,
    signups,
    sessionsEnded,
    sessions,
    mayBeSignedIn,
  });
  const smsSite = {
    name: config.SITE_NAME,
    limitScale: config.RATE_LIMIT_SCALE,
    log: (err: unknown) => app.log.error({ err }, 'SMS provider failed'),
    signups,
    beforeSend: () => signups.sms(),
    sessionsEnded,
  };
  const codes = new SmsCodes(kv, sms, smsSite);
  const phone = new PhoneAuthService(db, kv, sms, transportKey, risk, smsSite, codes);
  const google = config.GOOGLE_CLIENT_ID
    ? new GoogleSignIn(db, kv, {
        issuer: config.GOOGLE_ISSUER,
        clientId: config.GOOGLE_CLIENT_ID,
        clientSecret: config.GOOGLE_CLIENT_SECRET,
        redirectUri: `${config.publicBaseUrl}/api/v1/auth/third/callback`,
        sessionsEnded,
      })
    : null;
  return { auth, codes, phone, google, meta: metaReader(config.COUNTRY_HEADER) };
}

/** Broadcasts: their media, viewers, host state and leases, announced through the bus. */
function liveService(
  app: FastifyInstance,
  deps: AppDeps,
  infra: Infra,
  rt: Realtime,
  isBlocked: (host: number, uid: number) => Promise<boolean>,
  on: {
    onLive: (live: { vid: string; uid: number; title: string }) => void;
    onEnded: (vid: string, reason: EndReason) => void;
    mayGoLive: (uid: number) => Promise<void>;
    obsAllowed: (uid: number) => Promise<boolean>;
  },
): LiveService {
  const { onLive, onEnded } = on;
  const { config, db } = deps;
  const { bus } = rt;
  // The lease's holder and the registry's entry are one name: an edge finds the origin by it.
  const node = nodeName();
  const cluster = config.MEDIA_NODE_URL
    ? new MediaCluster(
        infra.mediaNodes,
        {
          node,
          url: config.MEDIA_NODE_URL.replace(/\/$/, ''),
          capacity: config.MEDIA_CAPACITY ?? availableParallelism() * VIEWERS_PER_CORE,
          secret: requireSecret(config.MEDIA_RELAY_SECRET, 'MEDIA_RELAY_SECRET'),
        },
        () => ({ load: infra.media.stats().viewers, rooms: infra.media.names() }),
        (err) => app.log.error({ err }, 'media-node registry failed'),
      )
    : undefined;
  return new LiveService(db, infra.media, infra.files, {
    ...(cluster ? { cluster } : {}),
    ...(config.MEDIA_CAPACITY !== undefined ? { capacity: config.MEDIA_CAPACITY } : {}),
    hlsFallback: config.MEDIA_HLS,
    isBlocked,
    sensitive: infra.sensitive,
    mayGoLive: on.mayGoLive,
    viewing: rt.viewing,
    node: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    // The room's header shows this count (the gateway does not count its connections for it).
    onViewerCount: (vid, { viewers, seq }) => bus.signal({ t: 'count', room: vid, viewers, seq }),
    viewerLimits: {
      ...DEFAULT_VIEWER_LIMITS,
      perAddress: config.MEDIA_VIEWERS_PER_ADDRESS,
    },
    kv: infra.kv,
    limitScale: config.RATE_LIMIT_SCALE,
    onHostState: (vid, state, reason) => {
      if (state === 'ended') onEnded(vid, reason ?? 'host');
      return bus.publish(vid, { t: 'host', state, ...(reason ? { reason } : {}) });
    },
    watchBlocks: (vid, onBlock) => {
      const sub = bus.subscribe(vid, (e) => {
        if (e.t === 'kick') onBlock(e.uid);
      });
      return () => sub.close();
    },
    log: (err) => app.log.error({ err }, 'live state update failed'),
    lease: { ms: config.LIVE_LEASE_MS, node },
    onLive,
    obsAllowed: on.obsAllowed,
  });
}

/** Stripe, or the sandbox whose webhooks go through this node's whole HTTP stack, signature and all. */
function paymentProvider(app: FastifyInstance, config: Config, infra: Infra): PaymentProvider {
  if (config.PAYMENT_PROVIDER === 'stripe')
    return new StripeProvider(config.STRIPE_SECRET_KEY ?? '', config.STRIPE_WEBHOOK_SECRET ?? '');
  return new SandboxProvider(infra.kv, {
    secret: requireSecret(config.SANDBOX_PAY_SECRET, 'SANDBOX_PAY_SECRET'),
    publicBaseUrl: config.publicBaseUrl,
    chaos: config.SANDBOX_PAY_CHAOS,
    deliver: async (body, headers) =>
      (
        await app.inject({
          method: 'POST',
          url: '/api/v1/payments/webhook/sandbox',
          payload: body,
          headers,
        })
      ).statusCode,
    log: (err) => app.log.warn({ err }, 'sandbox webhook delivery failed'),
  });
}
