import { resolve } from 'node:path';
import { z } from 'zod';
import { APP_ENVS, type PublicConfig } from '../common/config';
import { parseRatio, type MoneyRules } from '../common/money';

/**
 * The one validated configuration object. Environments are the spec's (online, gray, test) plus
 * development. Everything comes from the process environment; start fails fast on bad values.
 */
const urlString = z.url();

/**
 * A money setting: a whole number from 1 to `max`, written as digits only ("1e3", "0x10", "2.5"
 * are refused rather than read as something else). The bounds keep every product of the rates
 * (the cash-out minimum and cap in diamonds and cents) exact in a JavaScript number.
 */
const moneyCount = (fallback: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number')
    .default(String(fallback))
    .transform(Number)
    .pipe(z.number().int().min(1).max(max));

/** The most diamonds a gift may give per coin (a typo such as 570 for 0.57 fails at start). */
const MAX_GIFT_RATE = 100;

const schema = z
  .object({
    APP_ENV: z.enum(APP_ENVS).default('development'),
    HOST: z.string().default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    PUBLIC_BASE_URL: urlString.optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /**
     * Ordinary answers logged at info per second, at most (server/http/access-log.ts): server
     * errors and slow answers always are, every answer at debug.
     */
    LOG_REQUESTS_PER_SECOND: z.coerce.number().int().min(0).default(20),
    /** An answer slower than this many milliseconds is logged at warn. */
    LOG_SLOW_MS: z.coerce.number().int().positive().default(1000),
    /** A PostgreSQL server. Unset: embedded PGlite under DATA_DIR. */
    DATABASE_URL: z.string().optional(),
    /** Redis for multi-node fan-out (the realtime issue). Unset: in-process bus. */
    REDIS_URL: z.string().optional(),
    /** Key prefix in Redis (several deployments or test runs can share a server). */
    REDIS_PREFIX: z.string().default('beamly:'),
    /** Multiplies every rate limit (1 = the defaults in server/infra/ratelimit.ts). */
    RATE_LIMIT_SCALE: z.coerce.number().positive().default(1),
    /**
     * Proxies in front of the site that add to X-Forwarded-For (the client's address is the one the
     * outermost trusted proxy saw). Unset: 1 online and gray (the load balancer), 0 otherwise.
     */
    TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).optional(),
    /**
     * Seconds a client has to send a whole request (headers and body): a body trickled in slowly is
     * cut off (408) instead of holding a connection open forever. Answers (replays) are not bound.
     */
    REQUEST_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(60),
    /** Seconds a client has to send a request's headers. */
    HEADERS_TIMEOUT_SECONDS: z.coerce.number().positive().max(600).default(15),
    /** Seconds an idle keep-alive connection stays open (above a load balancer's usual 60). */
    KEEP_ALIVE_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(72),
    /**
     * The bearer token /metrics asks for (Prometheus: `authorization: {credentials: …}`). Required
     * online and gray; unset elsewhere, /metrics is open.
     */
    METRICS_TOKEN: z.string().min(16).optional(),
    /** Open realtime connections (/ws) per client address: a tab holds one. */
    WS_MAX_PER_IP: z.coerce.number().int().positive().default(50),
    /** Seconds a viewer watches without following before the follow invitation (spec §2). */
    FOLLOW_INVITE_SECONDS: z.coerce.number().positive().default(60),
    /**
     * Diamonds a host receives per coin a gift costs: a decimal with up to four decimals (`0.57`),
     * kept as an exact ratio (see applyRatio), never as a float.
     */
    GIFT_DIAMONDS_PER_COIN: z
      .string()
      .default('1')
      .transform((v, ctx) => {
        const rate = parseRatio(v);
        if (!rate || rate.num === 0 || rate.num > MAX_GIFT_RATE * rate.den) {
          ctx.addIssue({
            code: 'custom',
            message: `must be a decimal above 0 and at most ${MAX_GIFT_RATE}, with up to four decimals`,
          });
          return z.NEVER;
        }
        return rate;
      }),
    /** Staff accounts (the review pages), by the e-mail they signed up with; comma list. */
    STAFF_EMAILS: z
      .string()
      .default('')
      .transform((v) =>
        v
          .split(',')
          .map((e) => e.trim().toLowerCase())
          .filter(Boolean),
      ),
    /** Recharge: 'sandbox' (a provider that behaves like a real one, no money) or 'stripe'. */
    PAYMENT_PROVIDER: z.enum(['sandbox', 'stripe']).default('sandbox'),
    STRIPE_SECRET_KEY: z.string().optional(),
    /** The signing secret of the Stripe webhook endpoint (whsec_…). */
    STRIPE_WEBHOOK_SECRET: z.string().optional(),
    /**
     * Signs the sandbox provider's webhooks; the same on every node. Unset: generated on first
     * start and kept in DATA_DIR/secrets.json (server/secrets.ts), never a public default.
     */
    SANDBOX_PAY_SECRET: z.string().min(16).optional(),
    /**
     * Signs app clients' requests (the spec's `lm-s-sign`, docs/api.md); built into the apps. Unset:
     * generated into DATA_DIR/secrets.json in development, and app requests refused elsewhere.
     */
    APP_SIGN_KEY: z.string().min(32).optional(),
    /** The sandbox delivers every webhook twice, in random order (as real networks may). */
    SANDBOX_PAY_CHAOS: z
      .enum(['true', 'false', '1', '0'])
      .default('true')
      .transform((v) => v === 'true' || v === '1'),
    /** Cash-out: diamonds worth one US dollar (whole; see cashoutAmount for cents). */
    DIAMONDS_PER_USD: moneyCount(200, 1_000_000),
    /** Converting: diamonds one coin costs (whole: a conversion gives whole coins). */
    CONVERT_DIAMONDS_PER_COIN: moneyCount(1, 1_000_000),
    /** Spec §9: the cash-out minimum, in US dollars' worth of diamonds. */
    CASHOUT_MIN_USD: moneyCount(50, 1_000_000),
    /** Spec §9: cash-outs per week, in US dollars. */
    CASHOUT_WEEKLY_CAP_USD: moneyCount(4200, 1_000_000),
    /** Cash-outs of at least this many US dollars need two different staff approvers. */
    CASHOUT_SECOND_APPROVAL_USD: moneyCount(1000, 1_000_000),
    /** Staff refunds of recharges of at least this many US dollars need two different staff members. */
    REFUND_SECOND_APPROVAL_USD: moneyCount(50, 1_000_000),
    /** Spec §9: the cash-out week's time zone, hours from UTC. */
    CASHOUT_WEEK_UTC_OFFSET: z.coerce.number().int().min(-12).max(14).default(-7),
    /** Files the embedded defaults keep (PGlite, uploads, recordings); relative to the working directory. */
    DATA_DIR: z
      .string()
      .default('./data')
      .transform((dir) => resolve(dir)),
    /**
     * Uploads in S3-compatible object storage (server/infra/s3-files.ts), for several nodes: the
     * bucket, where readers fetch it (a CDN), and the API's address when it is not AWS (MinIO…).
     * Unset: a folder under DATA_DIR served at /uploads/.
     */
    S3_BUCKET: z.string().min(3).optional(),
    S3_PUBLIC_URL: z.url().optional(),
    S3_ENDPOINT: z.url().optional(),
    S3_REGION: z.string().default('us-east-1'),
    S3_ACCESS_KEY_ID: z.string().default(''),
    S3_SECRET_ACCESS_KEY: z.string().default(''),
    /** The ffmpeg that transcodes short videos. Unset: the binary shipped in @ffmpeg-installer (npm). */
    FFMPEG_PATH: z.string().optional(),
    /** Short videos transcoded or cut at once on this node (each takes a core). */
    VIDEO_WORKERS: z.coerce.number().int().min(1).max(16).default(1),
    /** Outgoing mail, e.g. smtp://user:pass@smtp.example.com:587. Unset: mail lands in the outbox (development only). */
    SMTP_URL: z.string().optional(),
    MAIL_FROM: z.string().default('Beamly <no-reply@beamly.example>'),
    /** Outgoing SMS (server/infra/sms.ts), e.g. twilio://SID:TOKEN@+15550001111. Unset: the outbox. */
    SMS_URL: z.string().optional(),
    /** The proxy/CDN header carrying the visitor's country (ISO 3166 alpha-2). */
    COUNTRY_HEADER: z.string().default('cf-ipcountry'),
    /** Device risk: a score at or above this refuses sign-up (server/modules/auth/risk.ts). */
    RISK_REJECT_SCORE: z.coerce.number().int().min(1).default(80),
    /** Device risk: sign-up attempts one device fingerprint may make per day. */
    RISK_SIGNUPS_PER_DEVICE: z.coerce.number().int().min(1).default(10),
    /** Sign-up limits that do not trust the client, per hour (server/modules/auth/signup-limits.ts). */
    SIGNUP_PER_IP_PREFIX: z.coerce.number().int().min(1).default(20),
    SIGNUP_PER_EMAIL_DOMAIN: z.coerce.number().int().min(1).default(50),
    SIGNUP_GLOBAL: z.coerce.number().int().min(1).default(1000),
    SMS_PER_IP_PREFIX: z.coerce.number().int().min(1).default(30),
    SMS_GLOBAL: z.coerce.number().int().min(1).default(2000),
    /** Media engine ICE: STUN/TURN servers as JSON, e.g. [{"urls":"stun:stun.example.com:3478"}]. */
    MEDIA_ICE_SERVERS: z
      .string()
      .default('[]')
      .transform((v, ctx) => {
        try {
          return z
            .array(
              z.object({
                urls: z.union([z.string(), z.array(z.string())]),
                username: z.string().optional(),
                credential: z.string().optional(),
              }),
            )
            .parse(JSON.parse(v));
        } catch {
          ctx.addIssue({ code: 'custom', message: 'must be a JSON array of {urls, username?, credential?}' });
          return z.NEVER;
        }
      }),
    /** UDP ports for media, e.g. 40000-40999. Unset: any free port. */
    MEDIA_PORT_RANGE: z
      .string()
      .regex(/^\d{4,5}-\d{4,5}$/)
      .optional(),
    /** Extra host addresses for ICE candidates (comma list). Default: 127.0.0.1 in development and tests. */
    MEDIA_HOST_ADDRESSES: z.string().optional(),
    /**
     * Whether the media engine uses ICE candidates on loopback, private or link-local addresses
     * (or names) that a WHIP/WHEP caller gives. Unset: on in development and test (everything is
     * on one machine: `npm start`, a browser next to it), off online and gray, where it would let
     * anyone make the server send to its own network.
     */
    MEDIA_ALLOW_PRIVATE_CANDIDATES: z
      .enum(['true', 'false', '1', '0'])
      .optional()
      .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1')),
    /** A WHIP or WHEP session whose media does not flow within this many seconds is closed. */
    MEDIA_CONNECT_TIMEOUT_SECONDS: z.coerce.number().positive().max(300).default(15),
    /** WHEP sessions of one broadcast from one address (IPv4, or IPv6 /64) at once. */
    MEDIA_VIEWERS_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(20),
    /** How the SFU sends to viewers: 'lean' (its own SRTP path) or 'werift' (werift's sender, slower). */
    MEDIA_FORWARD: z.enum(['lean', 'werift']).default('lean'),
    /**
     * The media engine: 'werift' (the embedded SFU, in this process: the one-command default) or
     * 'janus' (Debian's Janus 1.1; docs/media-engines.md says what each supports).
     */
    MEDIA_ENGINE: z.enum(['werift', 'janus']).default('werift'),
    /**
     * Janus's WebSocket API (ws://10.0.0.5:8188), for MEDIA_ENGINE=janus. Unset: this process
     * runs /usr/bin/janus itself, bound to loopback, with a configuration and secrets of its own.
     */
    MEDIA_JANUS_URL: z
      .string()
      .regex(/^wss?:\/\/\S+$/)
      .optional(),
    /** Janus's api_secret and the VideoRoom/Streaming admin_key, for a Janus at MEDIA_JANUS_URL. */
    MEDIA_JANUS_API_SECRET: z.string().min(1).optional(),
    MEDIA_JANUS_ADMIN_KEY: z.string().min(1).optional(),
    /**
     * The address other nodes' Janus forward broadcasts to, on this node's Janus (a private
     * network): where its mountpoints listen. Default 127.0.0.1 (every node on one host).
     */
    MEDIA_JANUS_FORWARD_ADDRESS: z.union([z.ipv4(), z.ipv6()]).optional(),
    /**
     * For the Janus this process runs (no MEDIA_JANUS_URL): a folder searched for its libraries
     * before the system's, holding a libsrtp2 built with OpenSSL (scripts/libsrtp-openssl.sh).
     * Debian's is built with NSS, and forwarding to viewers then costs Janus about twice the CPU
     * (docs/decisions.md, "Janus as a second media engine").
     */
    MEDIA_JANUS_LIBRARY_PATH: z.string().min(1).optional(),
    /**
     * This node's own base URL as other nodes and players reach it (https://media-3.example.com).
     * Set on every node of a site with several: each announces itself in the media-node registry
     * (Redis), serves any broadcast by pulling it from its origin node, and sends viewers on to a
     * node with room when full (WHEP 307). Unset: one node, no registry.
     */
    MEDIA_NODE_URL: z.url().optional(),
    /** Viewer sessions this node takes before sending viewers elsewhere (default 200 per core). */
    /**
     * Where pages may send WHEP besides this site (space list of CSP sources, e.g.
     * https://*.media.example.com): the media nodes a full node sends players to, when they are
     * on other hosts. Default: every node's MEDIA_NODE_URL is this site's own origin or none.
     */
    MEDIA_CONNECT_SRC: z.string().optional(),
    /**
     * Where players fetch LL-HLS playlists and parts: a CDN in front of the site's nodes (e.g.
     * https://live-cdn.example.com). The site's index playlist names media playlists there, and
     * pages may connect to it. Unset: this site itself.
     */
    MEDIA_HLS_BASE_URL: z.url().optional(),
    /**
     * TURN servers browsers may relay media through when their network blocks UDP (comma list of
     * turn:/turns: URLs, e.g. turn:turn.example.com:3478?transport=udp,turns:turn.example.com:5349),
     * with coturn's shared secret (`use-auth-secret`, `static-auth-secret`): each page gets
     * credentials that expire (the TURN REST scheme). Unset: no TURN.
     */
    MEDIA_TURN_URLS: z.string().optional(),
    MEDIA_TURN_SECRET: z.string().min(16).optional(),
    /** How long a page's TURN credentials last. */
    MEDIA_TURN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
    MEDIA_CAPACITY: z.coerce.number().int().min(0).max(1_000_000).optional(),
    /**
     * Signs node-to-node pulls of a broadcast (an edge asking its origin); the same on every node.
     * Unset: generated on first start and kept in DATA_DIR/secrets.json.
     */
    MEDIA_RELAY_SECRET: z.string().min(16).optional(),
    /** Key of analytics' identifier hashes (generated into DATA_DIR/secrets.json when unset). */
    ANALYTICS_KEY: z.string().min(16).optional(),
    /** Key that seals staff's authenticator secrets in the database (generated like ANALYTICS_KEY). */
    STAFF_TOTP_KEY: z.string().min(16).optional(),
    /**
     * More sensitive-word lists (comma list of files, one word per line) on top of
     * content/moderation/sensitive-words/: refused in titles, masked in chat.
     */
    SENSITIVE_WORDS_FILE: z
      .string()
      .default('')
      .transform((v) =>
        v
          .split(',')
          .map((f) => f.trim())
          .filter(Boolean),
      ),
    /** Record every broadcast for its replay (under DATA_DIR/recordings). */
    /**
     * Each broadcast is also packaged as Low-Latency HLS at its origin (served at
     * /api/v1/hls/{vid}/index.m3u8, meant to sit behind a CDN): the player's fallback when WebRTC
     * cannot connect or the broadcast is over its WebRTC capacity. Costs about 6% of a core per
     * broadcast (docs/llhls-notes.md).
     */
    MEDIA_HLS: z
      .enum(['true', 'false', '1', '0'])
      .default('true')
      .transform((v) => v === 'true' || v === '1'),
    RECORD_LIVES: z
      .enum(['true', 'false', '1', '0'])
      .default('true')
      .transform((v) => v === 'true' || v === '1'),
    /**
     * A broadcast's lease (docs/operations.md): it stays live this long after the node with its
     * media last renewed it (every quarter of it); every node ends lapsed ones every half of it.
     */
    LIVE_LEASE_MS: z.coerce.number().int().min(400).max(3_600_000).default(10_000),
    /** Spec §6 observer whitelist: who may broadcast from OBS: 'all', or a comma list of short ids. */
    OBS_WHITELIST: z.string().default('all'),
    /** Google sign-in (OpenID Connect). Unset client id: the button is not offered. */
    GOOGLE_ISSUER: urlString.default('https://accounts.google.com'),
    GOOGLE_CLIENT_ID: z.string().optional(),
    GOOGLE_CLIENT_SECRET: z.string().optional(),
    /** Seed demo content (news) on first start when the database is empty. */
    SEED_DEMO: z
      .enum(['true', 'false', '1', '0'])
      .default('true')
      .transform((v) => v === 'true' || v === '1'),
    /**
     * The demo hosts on air with a looping generated picture (server/modules/live/demo.ts). Unset:
     * on with SEED_DEMO in development on the embedded media engine (`npm start`), off elsewhere.
     */
    DEMO_LIVES: z
      .enum(['true', 'false', '1', '0'])
      .optional()
      .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1')),
    SITE_NAME: z.string().default('Beamly'),
    /** How often the browser checks builds/latest.json for a new deploy. */
    VERSION_POLL_SECONDS: z.coerce.number().int().min(10).default(300),
    GUILD_FORM_URL: urlString.default('https://forms.gle/beamly-guild-settlement'),
    SOCIAL_FACEBOOK: urlString.default('https://www.facebook.com/beamlylive'),
    SOCIAL_TWITTER: urlString.default('https://twitter.com/beamlylive'),
    SOCIAL_YOUTUBE: urlString.default('https://www.youtube.com/@beamlylive'),
    SOCIAL_INSTAGRAM: urlString.default('https://www.instagram.com/beamlylive'),
    APP_STORE_URL: urlString.default('https://apps.apple.com/app/beamly-live/id0000000000'),
    GOOGLE_PLAY_URL: urlString.default('https://play.google.com/store/apps/details?id=live.beamly'),
    SAMSUNG_STORE_URL: urlString.default('https://galaxystore.samsung.com/detail/live.beamly'),
    /** Direct APK download; the spec keeps this link hidden unless configured. */
    APK_URL: urlString.optional(),
  })
  .superRefine((c, ctx) => {
    if (c.CASHOUT_MIN_USD > c.CASHOUT_WEEKLY_CAP_USD)
      ctx.addIssue({
        code: 'custom',
        path: ['CASHOUT_MIN_USD'],
        message: 'must not be above CASHOUT_WEEKLY_CAP_USD (no cash-out could be made)',
      });
    if (c.APP_ENV === 'online' || c.APP_ENV === 'gray') {
      if (!c.DATABASE_URL)
        ctx.addIssue({ code: 'custom', path: ['DATABASE_URL'], message: 'required online/gray' });
      if (!c.PUBLIC_BASE_URL)
        ctx.addIssue({ code: 'custom', path: ['PUBLIC_BASE_URL'], message: 'required online/gray' });
      if (!c.SMTP_URL) ctx.addIssue({ code: 'custom', path: ['SMTP_URL'], message: 'required online/gray' });
      if (!c.METRICS_TOKEN)
        ctx.addIssue({ code: 'custom', path: ['METRICS_TOKEN'], message: 'required online/gray' });
      if (!c.SMS_URL) ctx.addIssue({ code: 'custom', path: ['SMS_URL'], message: 'required online/gray' });
      if (c.PAYMENT_PROVIDER !== 'stripe')
        ctx.addIssue({ code: 'custom', path: ['PAYMENT_PROVIDER'], message: 'stripe online/gray' });
    }
    if (c.HEADERS_TIMEOUT_SECONDS > c.REQUEST_TIMEOUT_SECONDS)
      ctx.addIssue({
        code: 'custom',
        path: ['HEADERS_TIMEOUT_SECONDS'],
        message: 'must not be above REQUEST_TIMEOUT_SECONDS',
      });
    if (c.PAYMENT_PROVIDER === 'stripe') {
      for (const k of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const)
        if (!c[k])
          ctx.addIssue({ code: 'custom', path: [k], message: 'required with PAYMENT_PROVIDER=stripe' });
    }
  });

export type RawConfig = z.infer<typeof schema>;

export interface Config extends RawConfig {
  publicBaseUrl: string;
  trustProxyHops: number;
  isDev: boolean;
  /** MEDIA_ALLOW_PRIVATE_CANDIDATES with its default applied. */
  mediaAllowPrivateCandidates: boolean;
  /** DEMO_LIVES with its default applied. */
  demoLives: boolean;
  /** MEDIA_CONNECT_SRC as a list. */
  mediaConnectSrc: string[];
}

export type { PublicConfig };

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${lines}`);
  }
  const c = parsed.data;
  const publicBaseUrl = (c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/$/, '');
  const trustProxyHops = c.TRUST_PROXY_HOPS ?? (c.APP_ENV === 'online' || c.APP_ENV === 'gray' ? 1 : 0);
  const local = c.APP_ENV === 'development' || c.APP_ENV === 'test';
  return {
    ...c,
    publicBaseUrl,
    trustProxyHops,
    isDev: c.APP_ENV === 'development',
    mediaAllowPrivateCandidates: c.MEDIA_ALLOW_PRIVATE_CANDIDATES ?? local,
    demoLives: c.DEMO_LIVES ?? (c.SEED_DEMO && c.APP_ENV === 'development' && c.MEDIA_ENGINE === 'werift'),
    mediaConnectSrc: [
      ...(c.MEDIA_CONNECT_SRC ?? '').split(/\s+/).filter((s) => /^https?:\/\/[\w.*:-]+$/.test(s)),
      ...(c.MEDIA_HLS_BASE_URL ? [new URL(c.MEDIA_HLS_BASE_URL).origin] : []),
    ],
  };
}

export function publicConfig(c: Config): PublicConfig {
  return {
    siteName: c.SITE_NAME,
    env: c.APP_ENV,
    versionPollSeconds: c.VERSION_POLL_SECONDS,
    followInviteSeconds: c.FOLLOW_INVITE_SECONDS,
    thirdParty: c.GOOGLE_CLIENT_ID ? ['google'] : [],
    links: {
      guildForm: c.GUILD_FORM_URL,
      facebook: c.SOCIAL_FACEBOOK,
      twitter: c.SOCIAL_TWITTER,
      youtube: c.SOCIAL_YOUTUBE,
      instagram: c.SOCIAL_INSTAGRAM,
      appStore: c.APP_STORE_URL,
      googlePlay: c.GOOGLE_PLAY_URL,
      samsungStore: c.SAMSUNG_STORE_URL,
      apk: c.APK_URL ?? null,
    },
  };
}

/** The wallet's rates and limits (the cash-out service, the wallet API and the wallet pages). */
export function moneyRules(config: Config): MoneyRules {
  return {
    diamondsPerUsd: config.DIAMONDS_PER_USD,
    convertDiamondsPerCoin: config.CONVERT_DIAMONDS_PER_COIN,
    minCashoutUsd: config.CASHOUT_MIN_USD,
    weeklyCapUsd: config.CASHOUT_WEEKLY_CAP_USD,
    weekUtcOffset: config.CASHOUT_WEEK_UTC_OFFSET,
  };
}
