import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { DEFAULT_LOCALE } from '../common/locales';
import { requestLocale } from './http/locale';
import { moneyRules, type Config } from './config';
import type { Db } from './db/client';
import { localFileStore, type FileStore } from './infra/files';
import { openKv, type Kv } from './infra/kv';
import { createMailer, type Mailer } from './infra/mail';
import { createSms, type SmsSender } from './infra/sms';
import type { MediaEngine } from './media/engine';
import { WeriftEngine } from './media/werift-engine';
import { registerMediaRoutes } from './modules/live/media-routes';
import { DEFAULT_VIEWER_LIMITS } from './modules/live/viewers';
import { liveRoutes } from './modules/live/routes';
import { LiveService } from './modules/live/service';
import { SensitiveWords } from './modules/moderation/sensitive';
import { errorBody, errorSchema, okSchema, toAppError } from './http/envelope';
import { registerInputHygiene } from './http/hygiene';
import { registerAppClients } from './http/app-clients';
import { registerSecurityHeaders } from './http/security';
import { redactUrl } from './http/redact';
import { createMetrics, registerMetrics } from './http/metrics';
import { ContentStore } from './modules/content/content';
import { registerAuthContext } from './modules/auth/context';
import { loadTransportKey } from './modules/auth/crypto';
import { metaReader } from './modules/auth/meta';
import { registerDevOutbox } from './modules/auth/outbox';
import { phoneRoutes } from './modules/auth/phone-routes';
import { PhoneAuthService } from './modules/auth/phone-service';
import { FingerprintRiskProvider, type RiskProvider } from './modules/auth/risk';
import { GoogleSignIn } from './modules/auth/third-party';
import { thirdPartyRoutes } from './modules/auth/third-routes';
import { authRoutes } from './modules/auth/routes';
import { AuthService } from './modules/auth/service';
import { SignupLimits } from './modules/auth/signup-limits';
import { newsRoutes } from './modules/news/routes';
import { usersRoutes } from './modules/users/routes';
import { UsersService } from './modules/users/service';
import { NewsService } from './modules/news/service';
import { CLIENT_DIST } from './paths';
import { ChatService } from './modules/chat/service';
import { GiftService } from './modules/ledger/gifts';
import { PaymentService } from './modules/payments/service';
import type { PaymentProvider } from './modules/payments/provider';
import { paymentRoutes } from './modules/payments/routes';
import { SandboxProvider } from './modules/payments/sandbox';
import { sandboxPage } from './modules/payments/sandbox-page';
import { StripeProvider } from './modules/payments/stripe';
import { CashoutService } from './modules/wallet/cashout';
import { walletRoutes } from './modules/wallet/routes';
import { isStaff } from './modules/users/staff';
import { WalletService } from './modules/wallet/service';
import { SmsCodes } from './modules/auth/sms-codes';
import { Ledger } from './modules/ledger/ledger';
import { moneyRoutes } from './modules/ledger/routes';
import { roomRepo } from './modules/room/repo';
import { roomRoutes } from './modules/room/routes';
import { RoomService } from './modules/room/service';
import { socialRoutes } from './modules/social/routes';
import { SocialService } from './modules/social/service';
import { MemoryPresence, RedisPresence } from './realtime/presence';
import { openBus } from './realtime/redis-bus';
import { announceSessionsEnded } from './realtime/sessions';
import { attachGateway } from './realtime/wire';
import { liveAssets, loadAssets, type Assets } from './ssr/assets';
import { registerPages } from './ssr/pages';
import { payAppPages } from './ssr/payapp';
import { registerSeo } from './ssr/seo';

/** A secret withStoredSecrets (server/secrets.ts) provides when it is not configured. */
function requireSecret(value: string | undefined, name: string): string {
  if (!value) throw new Error(`${name} is missing: pass the configuration through withStoredSecrets`);
  return value;
}

export interface AppDeps {
  config: Config;
  db: Db;
  kv?: Kv;
  mailer?: Mailer;
  sms?: SmsSender;
  /** The payment provider (default: from PAYMENT_PROVIDER). */
  payments?: PaymentProvider;
  media?: MediaEngine;
  risk?: RiskProvider;
  files?: FileStore;
  /** Overrides for tests. */
  assets?: Assets;
  content?: ContentStore;
}

/** Wires config, database and modules into a Fastify app (not yet listening). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, db } = deps;
  // Set once pages are registered; URLs Fastify cannot even decode get the NotFound page too.
  let pageHandler: ((req: FastifyRequest, reply: FastifyReply) => Promise<unknown>) | null = null;
  const app = Fastify({
    frameworkErrors(err, req, reply) {
      if (err.code === 'FST_ERR_BAD_URL' && pageHandler && req.method === 'GET')
        return void pageHandler(req, reply);
      void (reply as FastifyReply).code(400).send(errorBody('validation_failed', DEFAULT_LOCALE));
    },
    logger: {
      level: config.LOG_LEVEL,
      redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      serializers: {
        req: (req: FastifyRequest) => ({
          method: req.method,
          url: redactUrl(req.url),
          host: req.host,
          remoteAddress: req.ip,
        }),
      },
    },
    // A count of hops, not `true`: the leftmost X-Forwarded-For entry is whatever the client wrote.
    trustProxy: (_address: string, hop: number) => hop < config.trustProxyHops,
    bodyLimit: 256 * 1024,
    routerOptions: { maxParamLength: 1024 },
    // A request (headers and body) must arrive in time: a body trickled in a byte at a time no longer
    // holds a connection open forever (408). Upgraded WebSockets and answers being sent are not
    // requests being received, so live rooms and replay downloads are not cut.
    requestTimeout: config.REQUEST_TIMEOUT_SECONDS * 1000,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    http: {
      headersTimeout: config.HEADERS_TIMEOUT_SECONDS * 1000,
      // How often Node looks for requests past their time (its default, 30 s, would let a short
      // timeout run up to 30 s late).
      connectionsCheckingInterval: Math.min(30_000, (config.HEADERS_TIMEOUT_SECONDS * 1000) / 2),
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const metrics = createMetrics();
  const content = deps.content ?? new ContentStore();
  const news = new NewsService(db);
  const files = deps.files ?? localFileStore(join(config.DATA_DIR, 'uploads'));
  const users = new UsersService(db, files);
  const assets = deps.assets ?? (config.isDev ? liveAssets() : loadAssets());
  const kv = deps.kv ?? openKv(config.REDIS_URL, config.REDIS_PREFIX);
  const mailer = deps.mailer ?? createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, db });
  const sms = deps.sms ?? createSms({ smsUrl: config.SMS_URL, db });
  const risk =
    deps.risk ??
    new FingerprintRiskProvider(kv, {
      rejectScore: config.RISK_REJECT_SCORE,
      signupsPerDevicePerDay: config.RISK_SIGNUPS_PER_DEVICE,
      limitScale: config.RATE_LIMIT_SCALE,
    });
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
  // The live room's realtime: in-process, or across nodes through Redis.
  const bus = openBus(config.REDIS_URL, `${config.REDIS_PREFIX}rt:`, (err) =>
    app.log.error({ err }, 'realtime catch-up after a Redis reconnection failed'),
  );
  // Ended sessions close their /ws connections on every node (the gateway's periodic session
  // check is the backstop when this announcement is lost).
  const sessionsEnded = (ids: number[]) =>
    announceSessionsEnded(bus, ids).catch((err: unknown) =>
      app.log.error({ err }, 'announcing ended sessions failed'),
    );
  const auth = new AuthService(db, kv, mailer, transportKey, risk, {
    name: config.SITE_NAME,
    baseUrl: config.publicBaseUrl,
    limitScale: config.RATE_LIMIT_SCALE,
    signups,
    sessionsEnded,
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
  const meta = metaReader(config.COUNTRY_HEADER);
  const media =
    deps.media ??
    new WeriftEngine({
      iceServers: config.MEDIA_ICE_SERVERS,
      portRange: config.MEDIA_PORT_RANGE
        ? (config.MEDIA_PORT_RANGE.split('-').map(Number) as [number, number])
        : undefined,
      hostAddresses: (
        config.MEDIA_HOST_ADDRESSES ??
        (config.APP_ENV === 'development' || config.APP_ENV === 'test' ? '127.0.0.1' : '')
      )
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
      recordDir: config.RECORD_LIVES ? join(config.DATA_DIR, 'recordings') : undefined,
      forward: config.MEDIA_FORWARD,
      allowPrivateCandidates: config.mediaAllowPrivateCandidates,
      connectTimeoutMs: config.MEDIA_CONNECT_TIMEOUT_SECONDS * 1000,
    });
  const recordingsDir = join(config.DATA_DIR, 'recordings');
  mkdirSync(recordingsDir, { recursive: true });
  const sensitive = SensitiveWords.load(config.SENSITIVE_WORDS_FILE);
  const presence = config.REDIS_URL
    ? new RedisPresence(config.REDIS_URL, `${config.REDIS_PREFIX}presence:`)
    : new MemoryPresence();
  // Viewers whose media flows, per broadcast, reported by the node that has its media.
  const viewing = config.REDIS_URL
    ? new RedisPresence(config.REDIS_URL, `${config.REDIS_PREFIX}viewing:`)
    : new MemoryPresence();
  const live = new LiveService(db, media, files, {
    sensitive,
    viewing,
    node: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    // The room's header shows this count (the gateway does not count its connections for it).
    onViewerCount: (vid, { viewers, seq }) => bus.signal({ t: 'count', room: vid, viewers, seq }),
    viewerLimits: {
      ...DEFAULT_VIEWER_LIMITS,
      perAddress: config.MEDIA_VIEWERS_PER_ADDRESS,
    },
    kv,
    limitScale: config.RATE_LIMIT_SCALE,
    onHostState: (vid, state, reason) =>
      bus.publish(vid, { t: 'host', state, ...(reason ? { reason } : {}) }),
    watchBlocks: (vid, onBlock) => {
      const sub = bus.subscribe(vid, (e) => {
        if (e.t === 'kick') onBlock(e.uid);
      });
      return () => sub.close();
    },
    log: (err) => app.log.error({ err }, 'live state update failed'),
    lease: { ms: config.LIVE_LEASE_MS },
    obsWhitelist:
      config.OBS_WHITELIST === 'all'
        ? 'all'
        : config.OBS_WHITELIST.split(',')
            .map((s) => s.trim())
            .filter(Boolean),
  });
  // Broadcasts whose lease lapsed (their node died) end now, before this node serves anyone.
  await live.startLeases();
  const google = config.GOOGLE_CLIENT_ID
    ? new GoogleSignIn(db, kv, {
        issuer: config.GOOGLE_ISSUER,
        clientId: config.GOOGLE_CLIENT_ID,
        clientSecret: config.GOOGLE_CLIENT_SECRET,
        redirectUri: `${config.publicBaseUrl}/api/v1/auth/third/callback`,
        sessionsEnded,
      })
    : null;
  const ledger = new Ledger(db);
  const gifts = new GiftService(db, ledger, bus, {
    diamondsPerCoin: config.GIFT_DIAMONDS_PER_COIN,
    log: (err) => app.log.error({ err }, 'a paid gift could not be announced in its room'),
  });
  const chat = new ChatService(db, kv, bus, {
    sensitive,
    limitScale: config.RATE_LIMIT_SCALE,
    hasSticker: (id) => gifts.hasSticker(id),
  });
  const social = new SocialService(db, bus, kv, config.RATE_LIMIT_SCALE);
  // Gifts' pending credits into balances, and their top-fans rows, every second (see ledger_pending, fan_pending).
  const rollUp = setInterval(() => {
    void ledger.rollUp().catch((err: unknown) => app.log.error({ err }, 'ledger roll-up failed'));
    void roomRepo.rollUpFans(db).catch((err: unknown) => app.log.error({ err }, 'top-fans roll-up failed'));
  }, 1000);
  rollUp.unref();
  const room = new RoomService(db, kv, bus, presence, users, social, (vid, uid) => live.dropViewer(vid, uid));
  const provider =
    deps.payments ??
    (config.PAYMENT_PROVIDER === 'stripe'
      ? new StripeProvider(config.STRIPE_SECRET_KEY ?? '', config.STRIPE_WEBHOOK_SECRET ?? '')
      : new SandboxProvider(kv, {
          secret: requireSecret(config.SANDBOX_PAY_SECRET, 'SANDBOX_PAY_SECRET'),
          publicBaseUrl: config.publicBaseUrl,
          chaos: config.SANDBOX_PAY_CHAOS,
          // The sandbox's webhooks go through the whole HTTP stack of this node, signature and all.
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
        }));
  const payments = new PaymentService(db, ledger, provider, {
    publicBaseUrl: config.publicBaseUrl,
    log: (msg, detail) => app.log.error({ detail }, msg),
  });
  // Orders whose webhook never came are asked about at the provider (see PaymentService.repairStale).
  const repair = setInterval(() => {
    void payments.repairStale().catch((err: unknown) => app.log.error({ err }, 'payment repair failed'));
  }, 60_000);
  repair.unref();
  // Refunds and disputes stored but not applied (a crash between the two) are applied from storage.
  const reversals = setInterval(() => {
    void payments
      .retryReversals()
      .catch((err: unknown) => app.log.error({ err }, 'applying stored refunds and disputes failed'));
  }, 10_000);
  reversals.unref();
  const rules = moneyRules(config);
  const wallet = new WalletService(db, ledger, rules.convertDiamondsPerCoin);
  const cashout = new CashoutService(db, kv, ledger, codes, rules, config.RATE_LIMIT_SCALE);
  const gateway = attachGateway(app, {
    db,
    auth,
    chat,
    bus,
    presence,
    publicOrigin: new URL(config.publicBaseUrl).origin,
    trustProxyHops: config.trustProxyHops,
    maxConnectionsPerIp: config.WS_MAX_PER_IP,
    signalCounts: false,
    onKick: (vid, uid) => void live.dropViewer(vid, uid).catch((err: unknown) => app.log.error({ err })),
    isStaff: (uid) => isStaff(db, uid, config.STAFF_EMAILS),
  });
  // Before the HTTP server closes: it waits for every connection to end, and upgraded WebSockets
  // only end when the gateway drops them (their clients then reconnect to another node).
  app.addHook('preClose', async () => {
    await gateway.close();
  });
  app.addHook('onClose', async () => {
    await live
      .shutdown()
      .catch((err: unknown) => app.log.error({ err }, 'releasing broadcast leases failed'));
    clearInterval(rollUp);
    clearInterval(repair);
    clearInterval(reversals);
    if (provider instanceof SandboxProvider) await provider.close();
    await bus.close();
    await presence.close();
    await viewing.close();
    if (!deps.media) await media.shutdown();
    if (!deps.kv) await kv.close();
    if (!deps.mailer) mailer.close();
  });

  await app.register(cookie);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${config.SITE_NAME} API`,
        version: '1',
        description:
          'JSON API. Success: HTTP 200 with `{status: 200, data}`. Failure: matching HTTP status with `{status, code, error, message}`; codes are listed in common/errors.ts and docs/api.md.',
      },
    },
    transform: jsonSchemaTransform,
  });

  registerSecurityHeaders(app, config);

  registerInputHygiene(app);

  // Files the static plugin does not have (and methods no route takes): the API's 404, not Fastify's.
  app.setNotFoundHandler((req, reply) => reply.code(404).send(errorBody('not_found', requestLocale(req))));

  app.setErrorHandler((err, req, reply) => {
    const appError = toAppError(err);
    if (appError.http >= 500) req.log.error({ err }, 'request failed');
    return reply
      .code(appError.http)
      .send(errorBody(appError.errorName, requestLocale(req), appError.details));
  });

  registerMetrics(app, metrics, config.METRICS_TOKEN);

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['ops'],
        summary: 'Liveness and database check',
        response: { 200: okSchema(z.object({ db: z.string() })) },
      },
    },
    async () => {
      await db.query('SELECT 1');
      return { status: 200 as const, data: { db: db.kind } };
    },
  );

  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.post(
    '/api/v1/client-errors',
    {
      schema: {
        tags: ['ops'],
        summary: 'Script errors reported by browsers (logged, counted)',
        body: z.object({
          message: z.string().max(500),
          stack: z.string().max(2000).optional(),
          url: z.string().max(1024),
        }),
        response: { 200: okSchema(z.object({})), 400: errorSchema },
      },
    },
    async (req) => {
      metrics.clientErrors.inc();
      req.log.warn({ client: req.body }, 'browser script error');
      return { status: 200 as const, data: {} };
    },
  );

  registerAppClients(app, { key: config.APP_SIGN_KEY, sessions: auth, kv });
  registerAuthContext(app, auth, new URL(config.publicBaseUrl).origin);
  await app.register(newsRoutes(news));
  await app.register(
    authRoutes(auth, {
      secureCookies: config.publicBaseUrl.startsWith('https:'),
      meta,
      about: async (uid) => {
        const [staff, counts] = await Promise.all([
          isStaff(db, uid, config.STAFF_EMAILS),
          social.state(uid, uid),
        ]);
        return { staff, follower_count: counts.follower_count, following_count: counts.following_count };
      },
    }),
  );
  await app.register(phoneRoutes(phone, risk, { meta, kv, limitScale: config.RATE_LIMIT_SCALE }));
  await app.register(
    thirdPartyRoutes(google, {
      publicBaseUrl: config.publicBaseUrl,
      log: (err) => app.log.warn({ err }, 'third-party sign-in failed'),
    }),
  );
  await app.register(usersRoutes(users));
  await app.register(socialRoutes(social, db));
  await app.register(roomRoutes(room, config.RATE_LIMIT_SCALE));
  await app.register(moneyRoutes({ db, ledger, gifts }));
  await app.register(
    paymentRoutes({
      payments,
      ledger,
      kv,
      limitScale: config.RATE_LIMIT_SCALE,
      db,
      staffEmails: config.STAFF_EMAILS,
    }),
  );
  if (provider instanceof SandboxProvider) await app.register(sandboxPage(provider));
  await app.register(walletRoutes({ db, wallet, cashout, meta, staffEmails: config.STAFF_EMAILS }));
  await app.register(liveRoutes(live, { publicBaseUrl: config.publicBaseUrl }));
  registerMediaRoutes(app, live);
  if (config.isDev && (mailer.kind === 'outbox' || sms.kind === 'outbox')) registerDevOutbox(app, db);

  app.all('/api/*', { schema: { hide: true } }, async (req, reply) =>
    reply.code(404).send(errorBody('not_found', requestLocale(req))),
  );

  // Hashed bundle files: cached forever. Build version files: always revalidated. Both are
  // directories (new files appear when a development rebuild runs). Public files: an hour.
  const staticDirs = [
    { dir: 'assets', prefix: '/assets/', cache: 'public, max-age=31536000, immutable', wildcard: true },
    { dir: 'builds', prefix: '/builds/', cache: 'no-cache', wildcard: true },
    { dir: 'public', prefix: '/', cache: 'public, max-age=3600', wildcard: false },
    // Replays are written once, when a publishing session ends; range requests make them seekable.
    { dir: 'recordings', prefix: '/replays/', cache: 'public, max-age=31536000, immutable', wildcard: true },
    // Uploaded files are named by their content hash, so they never change.
    { dir: 'uploads', prefix: '/uploads/', cache: 'public, max-age=31536000, immutable', wildcard: true },
  ];
  for (const [i, { dir, prefix, cache, wildcard }] of staticDirs.entries()) {
    await app.register(fastifyStatic, {
      root: dir === 'uploads' ? files.root : dir === 'recordings' ? recordingsDir : join(CLIENT_DIST, dir),
      prefix,
      wildcard,
      preCompressed: true,
      index: false,
      decorateReply: i === 0,
      setHeaders(res) {
        res.header('cache-control', cache);
      },
    });
  }

  registerSeo(app, { config, news });
  await app.register(payAppPages({ config, assets }));
  pageHandler = registerPages(app, { config, assets, content, news, auth, users, live, metrics });
  return app;
}
