import { defaultFfmpeg } from '../media/ffmpeg';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config';
import type { Db } from '../db/client';
import { localFileStore, type FileStore } from '../infra/files';
import { s3FileStore } from '../infra/s3-files';
import { openKv, type Kv } from '../infra/kv';
import { createMailer, type Mailer } from '../infra/mail';
import { createSms, type SmsSender } from '../infra/sms';
import type { MediaEngine } from '../media/engine';
import { JanusEngine } from '../media/janus/engine';
import { WeriftEngine } from '../media/werift-engine';
import { FingerprintRiskProvider, type RiskProvider } from '../modules/auth';
import { MemoryNodeRegistry, RedisNodeRegistry, type NodeRegistry } from '../modules/live';
import { SensitiveWords } from '../modules/moderation';
import type { PaymentProvider } from '../modules/payments';
import type { Assets } from '../ssr/assets';
import type { ContentStore } from '../modules/content';

export interface AppDeps {
  config: Config;
  db: Db;
  kv?: Kv;
  mailer?: Mailer;
  sms?: SmsSender;
  /** The payment provider (default: from PAYMENT_PROVIDER). */
  payments?: PaymentProvider;
  media?: MediaEngine;
  /** The media-node registry (default: Redis with REDIS_URL, else this process). */
  mediaNodes?: NodeRegistry;
  risk?: RiskProvider;
  files?: FileStore;
  /** The festival programme's clock (tests move it; default Date.now). */
  clock?: () => number;
  /** Overrides for tests. */
  assets?: Assets;
  content?: ContentStore;
}

/** What the services stand on: storage, senders, the media engine, shared word lists. */
export interface Infra {
  kv: Kv;
  mailer: Mailer;
  sms: SmsSender;
  risk: RiskProvider;
  files: FileStore;
  media: MediaEngine;
  mediaNodes: NodeRegistry;
  sensitive: SensitiveWords;
  recordingsDir: string;
  /** Closes what this node opened (what the caller passed in is the caller's to close). */
  close(): Promise<void>;
}

export function openInfra(deps: AppDeps): Infra {
  const { config, db } = deps;
  const files =
    deps.files ??
    (config.S3_BUCKET
      ? s3FileStore({
          ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
          region: config.S3_REGION,
          bucket: config.S3_BUCKET,
          accessKeyId: config.S3_ACCESS_KEY_ID,
          secretAccessKey: config.S3_SECRET_ACCESS_KEY,
          // Path style on another S3 (as the client speaks to it), the bucket's own host on AWS.
          publicUrl:
            config.S3_PUBLIC_URL ??
            (config.S3_ENDPOINT
              ? `${config.S3_ENDPOINT.replace(/\/+$/, '')}/${config.S3_BUCKET}`
              : `https://${config.S3_BUCKET}.s3.${config.S3_REGION}.amazonaws.com`),
        })
      : localFileStore(join(config.DATA_DIR, 'uploads')));
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
  const media = deps.media ?? mediaEngine(config);
  const mediaNodes =
    deps.mediaNodes ??
    (config.REDIS_URL
      ? new RedisNodeRegistry(config.REDIS_URL, `${config.REDIS_PREFIX}media:nodes`)
      : new MemoryNodeRegistry());
  const recordingsDir = join(config.DATA_DIR, 'recordings');
  mkdirSync(recordingsDir, { recursive: true });
  const sensitive = SensitiveWords.load(config.SENSITIVE_WORDS_FILE);
  return {
    kv,
    mailer,
    sms,
    risk,
    files,
    media,
    mediaNodes,
    sensitive,
    recordingsDir,
    async close() {
      if (!deps.media) await media.shutdown();
      if (!deps.mediaNodes) await mediaNodes.close();
      if (!deps.kv) await kv.close();
      if (!deps.mailer) mailer.close();
    },
  };
}

/** The WebRTC engine (WHIP in, WHEP out) with the configured ports, addresses and recording. */
function mediaEngine(config: Config): MediaEngine {
  const common = {
    iceServers: config.MEDIA_ICE_SERVERS,
    portRange: config.MEDIA_PORT_RANGE
      ? (config.MEDIA_PORT_RANGE.split('-').map(Number) as [number, number])
      : undefined,
    hostAddresses: [],
    allowPrivateCandidates: config.mediaAllowPrivateCandidates,
    connectTimeoutMs: config.MEDIA_CONNECT_TIMEOUT_SECONDS * 1000,
  };
  if (config.MEDIA_ENGINE === 'janus')
    return new JanusEngine({
      ...common,
      janusUrl: config.MEDIA_JANUS_URL,
      janusApiSecret: config.MEDIA_JANUS_API_SECRET,
      janusAdminKey: config.MEDIA_JANUS_ADMIN_KEY,
      janusForwardAddress: config.MEDIA_JANUS_FORWARD_ADDRESS,
      janusLibraryPath: config.MEDIA_JANUS_LIBRARY_PATH,
      hls: config.MEDIA_HLS,
      recordDir: config.RECORD_LIVES ? join(config.DATA_DIR, 'recordings') : undefined,
    });
  return new WeriftEngine({
    ...common,
    hostAddresses: (
      config.MEDIA_HOST_ADDRESSES ??
      (config.APP_ENV === 'development' || config.APP_ENV === 'test' ? '127.0.0.1' : '')
    )
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean),
    recordDir: config.RECORD_LIVES ? join(config.DATA_DIR, 'recordings') : undefined,
    frames: { dir: join(config.DATA_DIR, 'tmp', 'frames'), ffmpeg: config.FFMPEG_PATH ?? defaultFfmpeg() },
    forward: config.MEDIA_FORWARD,
    hls: config.MEDIA_HLS,
  });
}
