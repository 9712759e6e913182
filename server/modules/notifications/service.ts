import type {
  NotificationItem,
  NotificationPage,
  NotificationSettings,
} from '../../../common/api/notifications';
import { AppError } from '../../../common/errors';
import { LOCALES, type Locale } from '../../../common/locales';
import { UNREAD_MAX } from '../../../common/notifications';
import { localizedPath } from '../../../common/routes';
import type { Db } from '../../db/client';
import { translate } from '../../i18n';
import type { Bus } from '../../realtime/bus';
import { online, tellUser } from '../../realtime/inbox';
import { knownPushService, sendPush, type PushOutcome, type VapidKeys } from './push';
import {
  notificationsRepo as repo,
  type HostRow,
  type Job,
  type NotificationRow,
  type PushRow,
} from './repo';

/** Followers written per INSERT … SELECT of a fan-out. */
export const FAN_OUT_BATCH = 10_000;
/** How long a node holds a job or a push it claimed before another may take it over. */
const CLAIM_MS = 60_000;
const PUSH_BATCH = 100;
/** Pushes in flight at once per node. */
const PUSH_CONCURRENCY = 20;
const PUSH_ATTEMPTS = 5;
/** A go-live push is worth nothing after the hour (the push service drops it after this). */
const PUSH_TTL_SECONDS = 3600;
/** Devices kept per person (the newest). */
const DEVICES_PER_PERSON = 10;
/** In-site notifications are kept this long. */
const KEEP_DAYS = 30;
const PRUNE_EVERY_MS = 3_600_000;

export interface NotificationOptions {
  /** Web Push: the site's VAPID keys and contact; null leaves push off. */
  push: { keys: VapidKeys; subject: string } | null;
  /** Endpoints the server may post pushes to (default: the browsers' push services over HTTPS). */
  allowEndpoint?: (endpoint: string) => boolean;
  /** Followers per batch of a fan-out (tests and benches change it). */
  batchSize?: number;
  log?: (err: unknown) => void;
}

/**
 * Go-live notifications (issue 19 item 6). A host going on air enqueues a fan-out job; workers on
 * every node write the followers' in-site rows in batches (mutes, settings and the one-per-host-
 * per-hour rule applied in SQL), tell the followers who are connected through their own bus
 * topic, and queue pushes that the push worker sends (docs/decisions.md, "Notifications").
 */
export class NotificationService {
  #prunedAt = 0;
  readonly #batch: number;
  readonly #allow: (endpoint: string) => boolean;

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
    private readonly opts: NotificationOptions,
  ) {
    this.#batch = opts.batchSize ?? FAN_OUT_BATCH;
    this.#allow = opts.allowEndpoint ?? knownPushService;
  }

  /** A broadcast went on air: its followers are notified in the background (never in the caller's time). */
  async wentLive(live: { uid: number; vid: string; title: string }): Promise<void> {
    await repo.enqueue(this.db, live);
    void this.fanOut().catch((err: unknown) => this.opts.log?.(err));
  }

  /**
   * A festival slot started: the programme's followers are told (the host's hour rule, mutes and
   * settings hold as for a go-live). `vid` is the host's broadcast if they are on air already.
   */
  async slotStarted(slot: { host: number; vid: string; title: string; programme: number }): Promise<void> {
    await repo.enqueue(this.db, {
      uid: slot.host,
      vid: slot.vid,
      title: slot.title,
      programme: slot.programme,
    });
    void this.fanOut().catch((err: unknown) => this.opts.log?.(err));
  }

  /** One turn of the background work (every second on each node): fan-outs, then pushes, then pruning. */
  async work(): Promise<void> {
    await this.fanOut();
    await this.sendPushes();
    if (Date.now() - this.#prunedAt > PRUNE_EVERY_MS) {
      this.#prunedAt = Date.now();
      while ((await repo.prune(this.db, KEEP_DAYS, 10_000)) > 0);
    }
  }

  /** Runs the fan-out jobs no node holds, one after another, until none is left. */
  readonly fanOut = serial(async () => {
    for (let job = await repo.claimJob(this.db, CLAIM_MS); job; job = await repo.claimJob(this.db, CLAIM_MS))
      await this.#run(job);
  });

  async #run(job: Job): Promise<void> {
    const host = await repo.host(this.db, job.host);
    if (!host) return repo.finishJob(this.db, job.id);
    const names = job.programme === null ? null : await repo.programmeNames(this.db, job.programme);
    if (job.programme !== null && !names) return repo.finishJob(this.db, job.id);
    let at = job;
    for (;;) {
      const batch = await repo.fanOut(this.db, at, this.#batch, CLAIM_MS);
      // Another node took the job over (this one was too slow to renew its claim).
      if (!batch) return;
      if (batch.made.length) await this.#tell(host, at, batch.made, batch.at, names);
      if (batch.pushed) void this.sendPushes().catch((err: unknown) => this.opts.log?.(err));
      if (batch.scanned < this.#batch || batch.last === null) return repo.finishJob(this.db, job.id);
      at = { ...at, after: batch.last };
      // The node keeps answering requests between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The new notifications reach the followers connected anywhere (their bus topics). */
  async #tell(
    host: HostRow,
    job: Job,
    made: [number, number][],
    at: Date,
    names: Record<string, string> | null,
  ): Promise<void> {
    try {
      const here = new Set(
        await online(
          this.bus,
          made.map(([, uid]) => uid),
        ),
      );
      const created = at.toISOString();
      await Promise.all(
        made
          .filter(([, uid]) => here.has(uid))
          .map(([id, uid]) =>
            tellUser(this.bus, uid, {
              id,
              kind: job.programme === null ? 'live' : 'programme',
              programme: job.programme === null || !names ? null : { id: job.programme, names },
              host: { uid: host.uid, short_id: host.short_id, nickname: host.nickname, face: host.face },
              vid: job.vid,
              title: job.title,
              created_at: created,
              read: false,
            }),
          ),
      );
    } catch (err) {
      // The rows are written: the bell shows them when it next asks.
      this.opts.log?.(err);
    }
  }

  /** Sends the due pushes (claimed with SKIP LOCKED, so every node can work the queue at once). */
  readonly sendPushes = serial(async () => {
    const push = this.opts.push;
    if (!push) return;
    for (;;) {
      const rows = await repo.claimPushes(this.db, PUSH_BATCH, CLAIM_MS);
      if (!rows.length) return;
      const outcomes = new Map<PushRow, PushOutcome>();
      const queue = [...rows];
      const worker = async () => {
        for (let r = queue.shift(); r; r = queue.shift()) outcomes.set(r, await this.#send(push, r));
      };
      await Promise.all(Array.from({ length: PUSH_CONCURRENCY }, worker));
      const drop: number[] = [];
      const gone: number[] = [];
      for (const [r, outcome] of outcomes) {
        if (outcome === 'gone') gone.push(r.subscription);
        else if (outcome === 'retry' && r.attempts < PUSH_ATTEMPTS)
          await repo.retryPush(this.db, r.id, 2 ** r.attempts * 10_000);
        else drop.push(r.id);
      }
      await repo.dropPushes(this.db, drop);
      await repo.dropSubscriptions(this.db, gone);
    }
  });

  async #send(push: { keys: VapidKeys; subject: string }, r: PushRow): Promise<PushOutcome> {
    if (!this.#allow(r.endpoint)) return 'gone';
    const locale: Locale = (LOCALES as readonly string[]).includes(r.locale) ? (r.locale as Locale) : 'en';
    // What the service worker (web/public/sw.js) shows, in the device's language.
    const festival = r.programme !== null && r.names ? (r.names[locale] ?? r.names.en ?? '') : null;
    const payload = JSON.stringify(
      festival === null
        ? {
            title: translate(locale, 'notify.push.title', { name: r.nickname }),
            body: r.title,
            url: localizedPath(locale, `/v/${r.vid}`),
            icon: r.face ?? '/favicon.svg',
            tag: `live-${r.host}`,
          }
        : {
            title: translate(locale, 'notify.push.programme', { programme: festival, name: r.nickname }),
            body: r.title,
            url: localizedPath(locale, `/festival/${r.programme}`),
            icon: r.face ?? '/favicon.svg',
            tag: `live-${r.host}`,
          },
    );
    // One pending push per host at the push service: a newer one replaces it.
    return sendPush(push.keys, push.subject, r, payload, {
      topic: `live${r.host}`,
      ttlSeconds: PUSH_TTL_SECONDS,
    });
  }

  async list(uid: number, q: { before?: number | undefined; limit: number }): Promise<NotificationPage> {
    const [rows, unread] = await Promise.all([
      repo.list(this.db, uid, q.limit + 1, q.before),
      repo.unread(this.db, uid, UNREAD_MAX),
    ]);
    const list = rows.slice(0, q.limit).map(item);
    return { list, unread, next: rows.length > q.limit ? (list.at(-1)?.id ?? null) : null };
  }

  async read(uid: number, id: number): Promise<{ unread: number }> {
    if (!(await repo.markRead(this.db, uid, id))) throw new AppError('not_found');
    return { unread: await repo.unread(this.db, uid, UNREAD_MAX) };
  }

  async readAll(uid: number): Promise<{ unread: number }> {
    await repo.markAllRead(this.db, uid);
    return { unread: 0 };
  }

  async settings(uid: number): Promise<NotificationSettings> {
    return { ...(await repo.settings(this.db, uid)), vapid_key: this.opts.push?.keys.publicKey ?? null };
  }

  async setSettings(
    uid: number,
    change: { go_live?: boolean; push?: boolean },
  ): Promise<NotificationSettings> {
    const now = await repo.settings(this.db, uid);
    await repo.setSettings(this.db, uid, { ...now, ...change });
    return this.settings(uid);
  }

  async muted(uid: number, host: number): Promise<{ muted: boolean }> {
    return { muted: await repo.muted(this.db, uid, host) };
  }

  async mute(uid: number, host: number, on: boolean): Promise<{ muted: boolean }> {
    if (uid === host) throw new AppError('follow_self');
    await repo.mute(this.db, uid, host, on);
    return this.muted(uid, host);
  }

  async subscribe(
    uid: number,
    s: { endpoint: string; keys: { p256dh: string; auth: string }; locale: Locale },
  ): Promise<{ subscribed: boolean }> {
    if (!this.opts.push) throw new AppError('not_found');
    if (!this.#allow(s.endpoint)) throw new AppError('validation_failed', { endpoint: 'not a push service' });
    await repo.subscribe(
      this.db,
      uid,
      { endpoint: s.endpoint, ...s.keys, locale: s.locale },
      DEVICES_PER_PERSON,
    );
    return { subscribed: true };
  }

  async unsubscribe(uid: number, endpoint: string): Promise<{ subscribed: boolean }> {
    await repo.unsubscribe(this.db, uid, endpoint);
    return { subscribed: false };
  }
}

/**
 * `work` one run at a time: a call during a run waits for one more run after it (what it was
 * called for, a job or pushes just queued, may have come after the run looked).
 */
function serial(work: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    const run = async () => {
      try {
        do {
          again = false;
          await work();
        } while (again);
      } finally {
        running = null;
      }
    };
    running = run();
    return running;
  };
}

function item(r: NotificationRow): NotificationItem {
  return {
    id: r.id,
    kind: r.programme === null ? 'live' : 'programme',
    programme: r.programme === null || !r.names ? null : { id: r.programme, names: r.names },
    host: { uid: r.host, short_id: r.short_id, nickname: r.nickname, face: r.face },
    vid: r.vid,
    title: r.title,
    created_at: r.created_at.toISOString(),
    read: r.read_at !== null,
  };
}
