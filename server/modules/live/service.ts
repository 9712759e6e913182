import { roomRepo } from '../room/repo';
import { existingLive } from './existing';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../../common/errors';
import { cleanText } from '../../../common/text';
import type { Db } from '../../db/client';
import type { FileStore } from '../../infra/files';
import type { MediaEngine } from '../../media/engine';
import type { SensitiveWords } from '../moderation/sensitive';
import { processCover, type CoverBox } from './cover';
import { hashToken, newToken } from '../auth/crypto';
import { liveRepo, type LiveRow, type LiveWithHost } from './repo';

/** A publisher that lost its connection may come back (ICE restart or republish) within this. */
export const RECONNECT_GRACE_MS = 20_000;
const VID_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

function newVid(): string {
  const bytes = randomBytes(12);
  return Array.from(bytes, (b) => VID_ALPHABET[b % VID_ALPHABET.length]).join('');
}

export type HostState = 'live' | 'interrupted' | 'ended';

export interface LiveSummary {
  vid: string;
  durationSeconds: number;
  peakViewers: number;
}

/**
 * Broadcasts (spec §4 live states): created by the studio or by an OBS publish, live while the
 * publisher's media flows, ended by the broadcaster or when the publisher is gone for longer
 * than the reconnect grace period.
 */
export class LiveService {
  readonly #graceTimers = new Map<string, NodeJS.Timeout>();
  /** Per broadcast, its signed-in viewers' media sessions (a block ends them). */
  readonly #viewerSessions = new Map<string, Map<string, number>>();
  /** Broadcasts being ended by their broadcaster right now. */
  readonly #ending = new Set<string>();
  /** Per broadcast with signed-in viewers here, how to stop listening for its blocks. */
  readonly #blockWatch = new Map<string, () => void>();

  constructor(
    private readonly db: Db,
    private readonly media: MediaEngine,
    private readonly files: FileStore,
    private readonly opts: {
      graceMs?: number;
      log?: (err: unknown) => void;
      /** Spec §6 observer whitelist: who may publish from OBS ('all', or short ids). */
      obsWhitelist?: 'all' | string[];
      /** Spec §5: titles may not contain sensitive words. */
      sensitive?: SensitiveWords;
      /** People in a broadcast's live room over every node (the realtime presence). */
      audience?: (vid: string) => Promise<number>;
      /** Told when the broadcast goes live, loses its broadcaster for a while, or ends (the room hears it). */
      onHostState?: (vid: string, state: HostState) => Promise<unknown>;
      /**
       * Listens for the host's blocks in a room, wherever they are made (another node, say);
       * answers a function that stops listening. Viewers' media lives on this node (it ingests the
       * broadcast), which may have nobody in the room's chat to hear the block otherwise.
       */
      watchBlocks?: (vid: string, onBlock: (uid: number) => void) => () => void;
    } = {},
  ) {
    media.onPublisher((vid, state) => {
      void this.#publisherState(vid, state).catch((err: unknown) => opts.log?.(err));
    });
    media.onRecorded((vid, r) => {
      void liveRepo
        .addReplayPart(this.db, {
          vid,
          file: r.file,
          bytes: r.bytes,
          startedAt: r.startedAt,
          endedAt: r.endedAt,
        })
        .catch((err: unknown) => opts.log?.(err));
    });
  }

  /** Tells the room; a failure to tell it is logged, never a failure of the broadcast itself. */
  #tell(vid: string, state: HostState): void {
    void this.opts.onHostState?.(vid, state).catch((err: unknown) => this.opts.log?.(err));
  }

  async #publisherState(vid: string, state: 'connected' | 'interrupted' | 'closed'): Promise<void> {
    if (state === 'connected') {
      clearTimeout(this.#graceTimers.get(vid));
      this.#graceTimers.delete(vid);
      await liveRepo.markLive(this.db, vid);
      this.#tell(vid, 'live');
      return;
    }
    // The broadcaster ending it closes the media too: that is not an interruption.
    if (this.#ending.has(vid)) return;
    this.#tell(vid, 'interrupted');
    if (state === 'closed' && !this.#graceTimers.has(vid)) {
      // The publisher may republish with the same token; end the broadcast only if it does not.
      const timer = setTimeout(() => {
        this.#graceTimers.delete(vid);
        if (this.media.room(vid)) return;
        this.#forgetViewers(vid);
        void liveRepo
          .end(this.db, vid)
          .then((ended) => {
            if (ended) this.#tell(vid, 'ended');
          })
          .catch((err: unknown) => this.opts.log?.(err));
      }, this.opts.graceMs ?? RECONNECT_GRACE_MS);
      timer.unref();
      this.#graceTimers.set(vid, timer);
    }
  }

  /** Starts a broadcast from the studio: ends any other of this broadcaster's, answers the WHIP token. */
  async start(
    uid: number,
    input: { title: string; orientation: 'portrait' | 'landscape' },
  ): Promise<{ live: LiveRow; publishToken: string }> {
    // Shown to everyone: no direction overrides, invisible or control characters (common/text.ts).
    const title = cleanText(input.title).trim();
    if (!title) throw new AppError('title_required');
    if (this.opts.sensitive?.contains(title)) throw new AppError('title_sensitive');
    const previous = await liveRepo.active(this.db, uid);
    if (previous) await this.end(uid, previous.vid);
    const publishToken = newToken();
    const live = await liveRepo.insert(this.db, {
      vid: newVid(),
      uid,
      title,
      orientation: input.orientation,
      source: 'studio',
      tokenHash: hashToken(publishToken),
    });
    return { live, publishToken };
  }

  /**
   * The broadcast a WHIP bearer token may publish to: the studio's token for this vid, or the
   * owner's OBS stream key.
   */
  async authorizePublish(vid: string, token: string | undefined): Promise<LiveRow> {
    if (!token) throw new AppError('stream_key_invalid');
    const live = await liveRepo.byPublishToken(this.db, hashToken(token));
    if (live) {
      if (live.vid !== vid) throw new AppError('not_room_owner');
      return live;
    }
    const owner = await liveRepo.streamKeyOwner(this.db, hashToken(token));
    if (owner === null) throw new AppError('stream_key_invalid');
    const active = await liveRepo.active(this.db, owner);
    if (!active) throw new AppError('stream_key_invalid');
    if (active.vid !== vid) throw new AppError('not_room_owner');
    return active;
  }

  /** Spec §7 obswhitelist: whether this broadcaster may publish from OBS. */
  async obsAllowed(uid: number): Promise<boolean> {
    const list = this.opts.obsWhitelist ?? 'all';
    if (list === 'all') return true;
    const user = await liveRepo.shortIdOf(this.db, uid);
    return user !== null && list.includes(user);
  }

  /** A new OBS stream key (shown once; stored as SHA-256). The previous key stops working. */
  async regenerateStreamKey(uid: number): Promise<string> {
    if (!(await this.obsAllowed(uid))) throw new AppError('obs_not_allowed');
    const key = newToken();
    await liveRepo.setStreamKey(this.db, uid, hashToken(key));
    return key;
  }

  async obsStatus(uid: number): Promise<{ allowed: boolean; hasKey: boolean; active: LiveRow | null }> {
    return {
      allowed: await this.obsAllowed(uid),
      hasKey: await liveRepo.hasStreamKey(this.db, uid),
      active: await liveRepo.active(this.db, uid),
    };
  }

  /**
   * OBS publishes to the WHIP URL with its stream key: a broadcast is created for the key's owner
   * (titled with their nickname; they can rename it later) unless one from OBS is waiting.
   */
  async publishWithKey(key: string | undefined, offer: string) {
    if (!key) throw new AppError('stream_key_invalid');
    const uid = await liveRepo.streamKeyOwner(this.db, hashToken(key));
    if (uid === null) throw new AppError('stream_key_invalid');
    if (!(await this.obsAllowed(uid))) throw new AppError('obs_not_allowed');
    let live = await liveRepo.active(this.db, uid);
    if (live && (live.source !== 'obs' || this.media.room(live.vid))) {
      if (this.media.room(live.vid)) throw new AppError('publisher_exists');
      await this.end(uid, live.vid);
      live = null;
    }
    if (!live) {
      const nickname = (await liveRepo.nicknameOf(this.db, uid)) ?? 'Live';
      live = await liveRepo.insert(this.db, {
        vid: newVid(),
        uid,
        title: nickname.slice(0, 60),
        orientation: 'landscape',
        source: 'obs',
        tokenHash: null,
      });
    }
    const session = await this.media.publish(live.vid, offer);
    clearTimeout(this.#graceTimers.get(live.vid));
    this.#graceTimers.delete(live.vid);
    return { vid: live.vid, session };
  }

  async publish(vid: string, token: string | undefined, offer: string) {
    await this.authorizePublish(vid, token);
    const session = await this.media.publish(vid, offer);
    clearTimeout(this.#graceTimers.get(vid));
    this.#graceTimers.delete(vid);
    return session;
  }

  async unpublish(vid: string, sessionId: string, token: string | undefined): Promise<void> {
    await this.authorizePublish(vid, token);
    const s = this.media.session(sessionId);
    if (!s || s.room !== vid || s.role !== 'publisher') throw new AppError('media_session_not_found');
    await this.media.close(sessionId);
    // Hanging up on purpose (WHIP DELETE) ends the broadcast; a lost connection waits for a return.
    await liveRepo.end(this.db, vid);
  }

  /** Trickled ICE for a session of this broadcast. */
  async trickle(vid: string, sessionId: string, fragment: string): Promise<void> {
    const s = this.media.session(sessionId);
    if (!s || s.room !== vid) throw new AppError('media_session_not_found');
    await this.media.addCandidates(sessionId, fragment);
  }

  /** A viewer (WHEP) of a live broadcast; `uid` when signed in (the host may have blocked them). */
  async play(vid: string, offer: string, uid: number | null = null) {
    const live = await existingLive(this.db, vid);
    if (live.status !== 'live' && live.status !== 'created') throw new AppError('video_ended');
    if (uid && (await roomRepo.isBlocked(this.db, live.uid, uid))) throw new AppError('blocked_permanently');
    const session = await this.media.play(vid, offer);
    if (uid) {
      let sessions = this.#viewerSessions.get(vid);
      if (!sessions) this.#viewerSessions.set(vid, (sessions = new Map<string, number>()));
      if (this.opts.watchBlocks && !this.#blockWatch.has(vid))
        this.#blockWatch.set(
          vid,
          this.opts.watchBlocks(vid, (blocked) => {
            void this.dropViewer(vid, blocked).catch((err: unknown) => this.opts.log?.(err));
          }),
        );
      // Sessions that ended on their own are forgotten here, now and then.
      if (sessions.size > 1000)
        for (const id of sessions.keys()) if (!this.media.session(id)) sessions.delete(id);
      sessions.set(session.id, uid);
    }
    const viewers = this.media.room(vid)?.viewers ?? 0;
    if (viewers > live.peak_viewers) await liveRepo.notePeak(this.db, vid, viewers);
    return session;
  }

  /** The broadcast's media here is over: its viewers' sessions and blocks are no longer watched. */
  #forgetViewers(vid: string): void {
    this.#viewerSessions.delete(vid);
    this.#blockWatch.get(vid)?.();
    this.#blockWatch.delete(vid);
  }

  /** Ends a viewer's media sessions of a broadcast on this node (the host blocked them). */
  async dropViewer(vid: string, uid: number): Promise<void> {
    const sessions = this.#viewerSessions.get(vid);
    for (const [id, who] of sessions ?? []) {
      if (who !== uid) continue;
      sessions?.delete(id);
      if (this.media.session(id)) await this.media.close(id);
    }
  }

  async stopPlaying(vid: string, sessionId: string): Promise<void> {
    const s = this.media.session(sessionId);
    if (!s || s.room !== vid || s.role !== 'viewer') throw new AppError('media_session_not_found');
    await this.media.close(sessionId);
  }

  /** The broadcast's cover (spec §5: GIF, JPG or PNG under 500 KB, cropped to 3:4). */
  async setCover(uid: number, vid: string, image: Buffer, box: CoverBox): Promise<string> {
    const live = await liveRepo.byVid(this.db, vid);
    if (!live) throw new AppError('video_not_found');
    if (live.uid !== uid) throw new AppError('not_room_owner');
    const url = await this.files.put('covers', await processCover(image, box), 'webp');
    await liveRepo.setCover(this.db, vid, url);
    return url;
  }

  /** The broadcaster ends the broadcast: media stops at once; answers the summary. */
  async end(uid: number, vid: string): Promise<LiveSummary> {
    const live = await liveRepo.byVid(this.db, vid);
    if (!live) throw new AppError('video_not_found');
    if (live.uid !== uid) throw new AppError('not_room_owner');
    clearTimeout(this.#graceTimers.get(vid));
    this.#graceTimers.delete(vid);
    this.#ending.add(vid);
    let row;
    try {
      await this.media.closeRoom(vid);
      this.#forgetViewers(vid);
      row = await liveRepo.end(this.db, vid);
    } finally {
      this.#ending.delete(vid);
    }
    if (row) this.#tell(vid, 'ended');
    const ended = row ?? live;
    const start = ended.started_at ?? ended.created_at;
    const stop = ended.ended_at ?? new Date();
    return {
      vid,
      durationSeconds: Math.max(0, Math.round((new Date(stop).getTime() - new Date(start).getTime()) / 1000)),
      peakViewers: ended.peak_viewers,
    };
  }

  /** The replay's parts (URLs under /replays/), in order; empty while it is being generated. */
  async replay(vid: string): Promise<{ url: string; seconds: number }[]> {
    return (await liveRepo.replayParts(this.db, vid)).map((p) => ({
      url: `/replays/${p.file}`,
      seconds: Math.round((new Date(p.ended_at).getTime() - new Date(p.started_at).getTime()) / 1000),
    }));
  }

  async replaysOf(uid: number, limit = 12): Promise<LiveRow[]> {
    return liveRepo.replaysOf(this.db, uid, limit);
  }

  /**
   * How many watch a broadcast: its live room's people over every node, or the media sessions
   * here when more (players that only speak WHEP have no room connection).
   */
  async #viewers(vid: string): Promise<number> {
    const media = this.media.room(vid)?.viewers ?? 0;
    const room = await (this.opts.audience?.(vid) ?? Promise.resolve(0)).catch(() => 0);
    return Math.max(media, room);
  }

  async get(vid: string): Promise<(LiveWithHost & { viewers: number }) | null> {
    const live = await liveRepo.byVid(this.db, vid);
    return live ? { ...live, viewers: await this.#viewers(vid) } : null;
  }

  /** Who is live now, hottest (most viewers) first. */
  async liveNow(limit = 40): Promise<(LiveWithHost & { viewers: number })[]> {
    const rows = await liveRepo.liveNow(this.db, limit);
    const counted = await Promise.all(rows.map(async (r) => ({ ...r, viewers: await this.#viewers(r.vid) })));
    return counted.sort((a, b) => b.viewers - a.viewers);
  }

  shutdown(): void {
    for (const t of this.#graceTimers.values()) clearTimeout(t);
    this.#graceTimers.clear();
    for (const vid of [...this.#blockWatch.keys()]) this.#forgetViewers(vid);
  }
}
