import { existingLive } from './existing';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../../common/errors';
import type { EndReason } from '../../../common/realtime';
import type { LiveCategory } from '../../../common/api/live';
import { cleanText } from '../../../common/text';
import type { Db } from '../../db/client';
import type { FileStore } from '../../infra/files';
import type { Kv } from '../../infra/kv';
import type {
  Forwarded,
  ForwardTarget,
  LayerState,
  LayerWish,
  MediaEngine,
  MediaSession,
  PublishOptions,
  PullLink,
} from '../../media/engine';
import { closeAt, originFrame, validRelayToken, viewerOf, viewerToken, type MediaCluster } from './cluster';
import { MemoryPresence, type Counted, type Presence } from '../../realtime/presence';
import { DEFAULT_VIEWER_LIMITS, ViewerBook, ViewerCounts, type ViewerLimits, type Watcher } from './viewers';
import type { SensitiveWords } from '../moderation';
import { processCover, type CoverBox } from './cover';
import { hashToken, newToken } from '../auth';
import { HlsOrigins } from './hls';
import { Leases, type LeaseOptions } from './lease';
import { liveRepo, type LiveRow, type LiveWithHost } from './repo';
import { Replays } from './replays';
import { SideRooms, sideOf } from './side-rooms';
import { StreamKeys } from './stream-keys';

/**
 * A publisher that lost its connection (or whose media stopped) may come back (ICE restart or
 * republish) within this; a new publisher's media must flow within it too.
 */
export const RECONNECT_GRACE_MS = 20_000;
/** A broadcast created for the studio must have its publisher within this (its first lease, or a lease if longer). */
const START_LEASE_MS = 30_000;
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
 * publisher's media flows, ended by the broadcaster, by another tab taking over, when the
 * publisher is gone for longer than the reconnect grace period, or by any node's sweep when the
 * node holding its media stops renewing its lease (see Leases).
 */
export class LiveService {
  readonly #graceTimers = new Map<string, NodeJS.Timeout>();
  /** The viewer sessions of broadcasts whose media is here: limits, counting, blocks. */
  readonly #book: ViewerBook;
  readonly #counts: ViewerCounts;
  readonly #viewing: Presence;
  /** Broadcasts being ended by their broadcaster right now. */
  readonly #ending = new Set<string>();
  /** Per broadcast with signed-in viewers here, how to stop listening for its blocks. */
  readonly #blockWatch = new Map<string, () => void>();
  readonly #leases: Leases;
  readonly #hls: HlsOrigins;
  /** The broadcasts' side rooms (an audio room's co-hosts' voices) on a site of several nodes. */
  readonly sides: SideRooms;
  /** Ended broadcasts' recordings. */
  readonly replays: Replays;
  /** Broadcasters' OBS set-up: who may, their stream keys. */
  readonly streamKeys: StreamKeys;
  #closing = false;

  constructor(
    private readonly db: Db,
    private readonly media: MediaEngine,
    private readonly files: FileStore,
    private readonly opts: {
      /** Whether the host blocked this person (the room module owns the rule: RoomService.isBlocked). */
      isBlocked: (host: number, uid: number) => Promise<boolean>;
      graceMs?: number;
      log?: (err: unknown) => void;
      /** Spec §7 obswhitelist: who may publish from OBS (ObsPolicy; everyone when absent). */
      obsAllowed?: (uid: number) => Promise<boolean>;
      /** Spec §5: titles may not contain sensitive words. */
      sensitive?: SensitiveWords;
      /** Refuses someone staff banned or suspended from going live (server/modules/safety). */
      mayGoLive?: (uid: number) => Promise<void>;
      /**
       * Each node's count of each broadcast's viewers (see viewers.ts), read by every node for the
       * cards and pages. Default: this process only.
       */
      viewing?: Presence;
      /** This node's name in `viewing` (unique per process). */
      node?: string;
      /** Told a broadcast's count over every node (the room hears it: the count in its header). */
      onViewerCount?: (vid: string, counted: Counted) => Promise<unknown>;
      /** Limits on plays (viewers.ts); the per-address rate needs `kv`. */
      viewerLimits?: ViewerLimits;
      kv?: Kv;
      limitScale?: number;
      /** Told when the broadcast goes live, loses its broadcaster for a while, or ends, and why (the room hears it). */
      onHostState?: (vid: string, state: HostState, reason?: EndReason) => Promise<unknown>;
      /**
       * Listens for the host's blocks in a room, wherever they are made (another node, say);
       * answers a function that stops listening. Viewers' media lives on this node (it ingests the
       * broadcast), which may have nobody in the room's chat to hear the block otherwise.
       */
      watchBlocks?: (vid: string, onBlock: (uid: number) => void) => () => void;
      /** This node's broadcast leases (see Leases); they run once `startLeases` is called. */
      lease?: LeaseOptions;
      /**
       * Told once when a broadcast goes on air (not when its publisher comes back): followers are
       * notified from it (wired in server/wiring/services.ts; this module knows nothing of them).
       */
      onLive?: (live: { vid: string; uid: number; title: string }) => void;
      /**
       * This node among the site's media nodes (cluster.ts): viewers of a broadcast whose media is
       * on another node are served here from a pull, or sent to a node with room. Unset: one node.
       */
      cluster?: MediaCluster;
      /**
       * Viewers this node serves over WebRTC before a new one is refused with media_full (the
       * player then plays LL-HLS); only with `hlsFallback`. With a cluster, the cluster's capacity
       * counts (and other nodes with room are tried first). Unset: no limit on one node.
       */
      capacity?: number;
      /** Broadcasts are packaged as LL-HLS (MEDIA_HLS): a viewer past capacity can be refused. */
      hlsFallback?: boolean;
    },
  ) {
    this.#viewing = opts.viewing ?? new MemoryPresence();
    this.replays = new Replays(db);
    this.streamKeys = new StreamKeys(db, opts.obsAllowed);
    this.#hls = new HlsOrigins(db, media, opts.cluster);
    this.#book = new ViewerBook(
      media,
      opts.viewerLimits ?? DEFAULT_VIEWER_LIMITS,
      opts.kv ? { kv: opts.kv, scale: opts.limitScale ?? 1 } : undefined,
    );
    this.#counts = new ViewerCounts(this.#book, {
      viewing: this.#viewing,
      node: opts.node ?? `live-${randomBytes(6).toString('hex')}`,
      hasMedia: (vid) => media.room(vid) !== null,
      onCount: opts.onViewerCount,
      noteViewers: (vid, viewers) => liveRepo.noteViewers(this.db, vid, viewers),
      log: opts.log,
    });
    media.onViewers((vid) => this.#counts.changed(vid));
    this.#leases = new Leases(db, opts.lease ?? {}, {
      holds: (vid) => this.media.room(vid) !== null || this.#graceTimers.has(vid),
      lost: (vid) => this.#moved(vid),
      swept: (vid) => {
        this.#tell(vid, 'ended', 'lapsed');
        void this.#drop(vid).catch((err: unknown) => opts.log?.(err));
      },
      log: (err) => opts.log?.(err),
    });
    this.sides = new SideRooms(media, this.#leases.node, opts.cluster);
    media.onPublisher((vid, state) => {
      void this.#publisherState(vid, state).catch((err: unknown) => opts.log?.(err));
    });
    media.onRecorded((vid, r) => {
      void this.replays.recorded(vid, r).catch((err: unknown) => opts.log?.(err));
    });
  }

  /** Tells the room; a failure to tell it is logged, never a failure of the broadcast itself. */
  #tell(vid: string, state: HostState, reason?: EndReason): void {
    void this.opts.onHostState?.(vid, state, reason).catch((err: unknown) => this.opts.log?.(err));
  }

  get #lease() {
    return { node: this.#leases.node, ms: this.#leases.ms };
  }

  async #publisherState(vid: string, state: 'connected' | 'interrupted' | 'closed'): Promise<void> {
    // Shutting down closes every room here: the lease (released with the grace) decides. A side
    // room (a co-host's voice) is not a broadcast: its owner follows its publisher.
    if (this.#closing || sideOf(vid)) return;
    if (state === 'connected') {
      this.#disarm(vid);
      this.#leases.hold(vid);
      const started = await liveRepo.markLive(this.db, vid, this.#lease);
      this.#tell(vid, 'live');
      if (started) this.opts.onLive?.({ vid, ...started });
      return;
    }
    // The broadcast ending closes the media too: that is not an interruption.
    if (this.#ending.has(vid)) return;
    this.#tell(vid, 'interrupted');
    // The publisher may come back (the same connection, or a republish with the same token); if
    // its media does not flow again within the grace, the broadcast ends.
    this.#arm(vid);
  }

  /** Starts the reconnect grace for a broadcast whose media is not flowing (once). */
  #arm(vid: string): void {
    if (this.#graceTimers.has(vid)) return;
    const timer = setTimeout(() => {
      this.#graceTimers.delete(vid);
      void this.#finish(vid, 'lost', true).catch((err: unknown) => this.opts.log?.(err));
    }, this.opts.graceMs ?? RECONNECT_GRACE_MS);
    timer.unref();
    this.#graceTimers.set(vid, timer);
  }

  #disarm(vid: string): void {
    clearTimeout(this.#graceTimers.get(vid));
    this.#graceTimers.delete(vid);
  }

  /**
   * Ends a broadcast: its media here stops, the row ends (with `holderOnly`, only while this node
   * holds its lease), the room is told why. Answers the ended row, or null if it was not active.
   */
  async #finish(vid: string, reason: EndReason, holderOnly = false): Promise<LiveRow | null> {
    this.#disarm(vid);
    this.#ending.add(vid);
    let row: LiveRow | null;
    // Its origin, when that is another node (the host's end or the staff's came through this one).
    const origin =
      this.opts.cluster && !holderOnly ? await this.#originUrlOrNull(this.opts.cluster, vid) : null;
    try {
      this.#leases.forget(vid);
      // The row ends and the room hears it before the media closes: a player that sees its
      // connection drop then finds the broadcast over instead of asking for it again.
      row = await liveRepo.end(this.db, vid, reason, holderOnly ? this.#leases.node : null);
      if (row) this.#tell(vid, 'ended', reason);
      await this.media.closeRoom(vid);
      this.#forgetViewers(vid);
    } finally {
      this.#ending.delete(vid);
    }
    // Its media there stops now, not at that node's next lease renewal (which would find it ended).
    if (row && origin && this.opts.cluster)
      await closeAt(origin, vid, this.opts.cluster.me.secret).catch((err: unknown) => this.opts.log?.(err));
    return row;
  }

  /**
   * Another node says a room published here is over (cluster.ts RELAY_ROOM_PATH): a co-host's
   * voice it cut, or a broadcast ended through it, whose row must say so (a node's word is not
   * enough to stop a broadcast that is on).
   */
  async closedElsewhere(room: string): Promise<void> {
    if (sideOf(room)) return this.sides.close(room, null);
    if (await liveRepo.isActive(this.db, room)) throw new AppError('not_allowed');
    await this.#drop(room);
  }

  /** The broadcast is not this node's any more (ended or taken elsewhere): its media here stops. */
  async #drop(vid: string): Promise<void> {
    this.#disarm(vid);
    this.#leases.forget(vid);
    if (!this.media.room(vid)) {
      this.#forgetViewers(vid);
      return;
    }
    this.#ending.add(vid);
    try {
      await this.media.closeRoom(vid);
      this.#forgetViewers(vid);
    } finally {
      this.#ending.delete(vid);
    }
  }

  /**
   * Another node took the broadcast's lease (its publisher went there). Viewers here stay on, fed
   * from a pull of the new origin; without viewers (or a cluster to pull through, or an engine
   * that pulls), the media here stops and its players play again where it is now.
   */
  async #moved(vid: string): Promise<void> {
    const cluster = this.opts.cluster;
    const room = this.media.room(vid);
    if (cluster && this.media.cascades && room && !room.pulled && room.viewers > 0) {
      // No grace runs for a broadcast that is now another node's.
      this.#disarm(vid);
      const link = await this.#originLink(cluster, vid);
      if (typeof link === 'object') {
        try {
          await this.media.follow(vid, link);
          return;
        } catch (err) {
          this.opts.log?.(err);
        }
      }
    }
    await this.#drop(vid);
  }

  /**
   * Starts the media engine, then renews this node's leases and sweeps lapsed ones from now on
   * (after a first sweep).
   */
  async startLeases(): Promise<void> {
    // The media engine first (Janus reached or started): a node that cannot have media fails now.
    await this.media.start?.();
    await this.#leases.start();
    // Announced once it serves: other nodes then pull from it and send viewers to it.
    await this.opts.cluster?.start();
  }

  /**
   * Starts a broadcast from the studio, answers the WHIP token. One live per broadcaster: one that
   * is live (its lease held) elsewhere, another tab or OBS, is refused (`live_elsewhere`) unless
   * `takeOver`, and then ended as taken over (that tab is told); a lapsed one just ends.
   */
  async start(
    uid: number,
    input: {
      title: string;
      orientation: 'portrait' | 'landscape';
      category?: LiveCategory;
      takeOver?: boolean;
      /** An audio room (server/modules/audio): its host speaks, nobody shows a picture. */
      kind?: 'video' | 'audio';
    },
  ): Promise<{ live: LiveRow; publishToken: string }> {
    // Shown to everyone: no direction overrides, invisible or control characters (common/text.ts).
    const title = cleanText(input.title).trim();
    if (!title) throw new AppError('title_required');
    if (this.opts.sensitive?.contains(title)) throw new AppError('title_sensitive');
    await this.opts.mayGoLive?.(uid);
    const previous = await liveRepo.active(this.db, uid);
    if (previous) {
      if (previous.leased && !input.takeOver) throw new AppError('live_elsewhere');
      await this.#finish(previous.vid, previous.leased ? 'taken_over' : 'lapsed');
    }
    const publishToken = newToken();
    const live = await liveRepo.insert(
      this.db,
      {
        vid: newVid(),
        uid,
        title,
        orientation: input.orientation,
        category: input.category ?? 'chat',
        source: 'studio',
        tokenHash: hashToken(publishToken),
        kind: input.kind ?? 'video',
      },
      { node: this.#leases.node, ms: Math.max(START_LEASE_MS, this.#leases.ms) },
    );
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
    const active = await liveRepo.active(this.db, await this.streamKeys.ownerOf(token));
    if (!active) throw new AppError('stream_key_invalid');
    if (active.vid !== vid) throw new AppError('not_room_owner');
    return active;
  }

  /**
   * OBS publishes to the WHIP URL with its stream key: a broadcast is created for the key's owner
   * (titled with their nickname; they can rename it later) unless one from OBS is waiting.
   */
  async publishWithKey(key: string | undefined, offer: string) {
    const uid = await this.streamKeys.ownerOf(key);
    if (!(await this.streamKeys.allowed(uid))) throw new AppError('obs_not_allowed');
    await this.opts.mayGoLive?.(uid);
    let live: LiveRow | null = await liveRepo.active(this.db, uid);
    const published = (vid: string) => this.media.room(vid)?.pulled === false;
    if (live && (live.source !== 'obs' || published(live.vid))) {
      if (published(live.vid)) throw new AppError('publisher_exists');
      // OBS cannot be asked: publishing from it takes over the studio's broadcast (told so).
      await this.#finish(live.vid, 'taken_over');
      live = null;
    }
    if (!live) {
      const nickname = (await liveRepo.nicknameOf(this.db, uid)) ?? 'Live';
      live = await liveRepo.insert(
        this.db,
        {
          vid: newVid(),
          uid,
          title: nickname.slice(0, 60),
          orientation: 'landscape',
          category: await this.streamKeys.category(uid),
          source: 'obs',
          tokenHash: null,
        },
        this.#lease,
      );
    }
    return { vid: live.vid, session: await this.#publishHere(live.vid, offer) };
  }

  /** `opts.record: false`: not recorded (the demo's broadcasts, ./demo.ts; WHIP records). */
  async publish(vid: string, token: string | undefined, offer: string, opts: { record?: boolean } = {}) {
    await this.authorizePublish(vid, token);
    return this.#publishHere(vid, offer, opts);
  }

  /**
   * An audio room's host speaking (server/modules/audio): their voice alone is the broadcast's
   * media, published by their signed-in session rather than a studio token.
   */
  async publishVoice(vid: string, uid: number, offer: string) {
    const live = await liveRepo.byVid(this.db, vid);
    if (!live) throw new AppError('video_not_found');
    if (live.uid !== uid) throw new AppError('not_room_owner');
    if (live.status !== 'created' && live.status !== 'live') throw new AppError('video_ended');
    return this.#publishHere(vid, offer, { audioOnly: true });
  }

  /**
   * The publisher's media comes to this node: its lease is this node's from now on (a node it
   * left lets it go at its next renewal). A grace already running (a republish after a loss) runs
   * on until the media flows.
   */
  async #publishHere(vid: string, offer: string, opts: PublishOptions = {}) {
    const session = await this.media.publish(vid, offer, opts);
    await this.#leases.take(vid);
    return session;
  }

  async unpublish(vid: string, sessionId: string, token: string | undefined): Promise<void> {
    await this.authorizePublish(vid, token);
    const s = this.media.session(sessionId);
    if (!s || s.room !== vid || s.role !== 'publisher') throw new AppError('media_session_not_found');
    // Hanging up on purpose (WHIP DELETE) ends the broadcast; a lost connection waits for a return.
    await this.#finish(vid, 'host');
  }

  /**
   * Trickled ICE for a session of this broadcast, through its own resource: a WHEP URL reaches
   * viewer sessions only, a WHIP URL the publisher's (whose route also checks the token).
   */
  async trickle(
    vid: string,
    sessionId: string,
    fragment: string,
    role: 'publisher' | 'viewer',
  ): Promise<void> {
    const s = this.media.session(sessionId);
    if (!s || s.room !== vid || s.role !== role) throw new AppError('media_session_not_found');
    await this.media.addCandidates(sessionId, fragment);
  }

  /** Whether viewers are switched between a publisher's simulcast layers (the studio sends them then). */
  get simulcast(): boolean {
    return typeof this.media.selectLayer === 'function';
  }

  /**
   * A viewer's simulcast layers (WHEP's layer extension), and with `wish` what its player calls
   * for; null when its broadcast has none to choose from.
   */
  layers(vid: string, sessionId: string, wish?: LayerWish): LayerState | null {
    const s = this.media.session(sessionId);
    if (!s || s.room !== vid || s.role !== 'viewer') throw new AppError('media_session_not_found');
    if (!wish) return this.media.layers?.(sessionId) ?? null;
    return this.media.selectLayer?.(sessionId, wish) ?? null;
  }

  /** A viewer's answer to the engine's offer (engines that take no viewer offers: Janus). */
  async acceptAnswer(vid: string, sessionId: string, answer: string): Promise<void> {
    const s = this.media.session(sessionId);
    if (!s || s.room !== vid || s.role !== 'viewer') throw new AppError('media_session_not_found');
    await this.media.accept(sessionId, answer);
  }

  /**
   * A viewer (WHEP) of a live broadcast. Signed in, the host may have blocked them. Limited per
   * address and broadcast, and counted only once the media flows (viewers.ts).
   */
  async play(
    vid: string,
    offer: string,
    who: Watcher,
  ): Promise<{ session: MediaSession } | { redirect: string }> {
    const live = await existingLive(this.db, vid);
    if (live.status !== 'live' && live.status !== 'created') throw new AppError('video_ended');
    const uid = who.uid;
    if (uid && (await this.opts.isBlocked(live.uid, uid))) throw new AppError('blocked_permanently');
    // Limits first (the rate per address among them): a pull costs the origin a session.
    const { ticket, replaces } = await this.#book.admit(vid, who);
    let session;
    try {
      const elsewhere = await this.#servedFrom(vid, who.noHls !== true);
      if (elsewhere) {
        this.#book.release(vid, ticket);
        return { redirect: elsewhere };
      }
      session = await this.media.play(vid, offer);
    } catch (err) {
      this.#book.release(vid, ticket);
      throw err;
    }
    this.#book.confirm(vid, ticket, session.id);
    // The same viewer playing again (a reload, a retry) replaces a session rather than adding one.
    for (const id of replaces) await this.media.close(id);
    if (uid && this.opts.watchBlocks && !this.#blockWatch.has(vid))
      this.#blockWatch.set(
        vid,
        this.opts.watchBlocks(vid, (blocked) => {
          void this.dropViewer(vid, blocked).catch((err: unknown) => this.opts.log?.(err));
        }),
      );
    return { session };
  }

  /**
   * Where a viewer of the broadcast is served: null for here (its media is here, or pulled from
   * its origin now), or the base URL of another node when this one is full and another has room.
   * A broadcast whose origin is not announcing (it died) is not pulled: the engine says so.
   */
  async #servedFrom(vid: string, hlsFallback: boolean): Promise<string | null> {
    const fallback = this.opts.hlsFallback === true && hlsFallback;
    const cluster = this.opts.cluster;
    if (!cluster) {
      const capacity = this.opts.capacity;
      if (fallback && capacity !== undefined && this.media.stats().viewers >= capacity && this.media.hls(vid))
        throw new AppError('media_full');
      return null;
    }
    // An engine that cannot pull another node's room: its viewers play at the origin.
    if (!this.media.cascades) return this.media.room(vid) ? null : this.#originUrl(cluster, vid);
    if (cluster.full()) {
      const other = await cluster.elsewhere(vid);
      if (other) return other;
      // Every node is full: the player plays the broadcast's LL-HLS instead (when it has one).
      if (fallback && (await this.#hls.source(vid))) throw new AppError('media_full');
    }
    if (this.media.room(vid)) return null;
    const link = await this.#originLink(cluster, vid);
    if (typeof link === 'object') await this.media.pull(vid, link);
    return null;
  }

  /** The node the broadcast's media is published to (its lease holder), when that is another. */
  async #originUrl(cluster: MediaCluster, vid: string): Promise<string> {
    const url = await this.#originUrlOrNull(cluster, vid);
    if (!url) throw new AppError('no_publisher');
    return url;
  }

  /** The same, or null when it is this node or no other node announces it. */
  async #originUrlOrNull(cluster: MediaCluster, vid: string): Promise<string | null> {
    const origin = await liveRepo.leaseHolder(this.db, vid);
    return origin && origin !== this.#leases.node ? cluster.urlOf(origin) : null;
  }

  /** Where the broadcast's LL-HLS is served from (see HlsOrigins). */
  hlsSource(vid: string): ReturnType<HlsOrigins['source']> {
    return this.#hls.source(vid);
  }

  /**
   * A link to the broadcast's media where it is now: its origin is the node holding its lease
   * (its publisher's). 'wait' while no other live node holds it (the publisher is reconnecting,
   * maybe to this node); 'over' once it ended. An edge that lost its origin asks again with it.
   */
  async #originLink(cluster: MediaCluster, vid: string): Promise<PullLink | 'wait' | 'over'> {
    const origin = await liveRepo.leaseHolder(this.db, vid);
    if (!origin) return (await liveRepo.isActive(this.db, vid)) ? 'wait' : 'over';
    if (origin === this.#leases.node) return 'wait';
    const url = await cluster.urlOf(origin);
    return url ? cluster.link(url, vid, () => this.#originLink(cluster, vid)) : 'wait';
  }

  /**
   * Another node pulls the broadcast to serve its own viewers (cascading, cluster.ts): a session
   * like a viewer's that counts for nobody and is not limited as viewers are.
   */
  async relay(room: string, offer: string): Promise<MediaSession> {
    const vid = sideOf(room);
    const live = await existingLive(this.db, vid ?? room);
    if (live.status !== 'live' && live.status !== 'created') throw new AppError('video_ended');
    // A side room of the broadcast (an audio room's co-host's voice) published here.
    if (vid) return this.sides.relay(room, offer);
    return this.media.play(room, offer, { relay: true });
  }

  /**
   * Another node pulls the broadcast as a forward of its RTP to its engine (engines whose pulls
   * are forwards: Janus); answers the forward's session and codecs.
   */
  async relayForward(vid: string, target: ForwardTarget): Promise<Forwarded> {
    const live = await existingLive(this.db, vid);
    if (live.status !== 'live' && live.status !== 'created') throw new AppError('video_ended');
    if (!this.media.forwardTo) throw new AppError('no_publisher');
    return this.media.forwardTo(vid, target);
  }

  /**
   * A media session's URL: on this node itself when the site has several (a balancer in front
   * would send its PATCH or DELETE to any node, and only this one has the session).
   */
  sessionUrl(path: string): string {
    const cluster = this.opts.cluster;
    return cluster ? new URL(path, cluster.me.url).href : path;
  }

  /**
   * Where the studio publishes a new broadcast: whichever node its WHIP reaches (the site's own
   * URL), unless this node is full and another has room: that node's URL (issue 22: a broadcast
   * is placed on a node with room; WHIP cannot be redirected, see media-routes.ts).
   */
  async whipUrl(vid: string): Promise<string> {
    const path = `/api/v1/whip/${vid}`;
    const cluster = this.opts.cluster;
    if (!cluster?.full()) return path;
    const other = await cluster.elsewhere(vid);
    return other ? new URL(path, other).href : path;
  }

  /**
   * A signed-in viewer sent to another node: who they are, for that node (see viewerToken); null
   * without a cluster.
   */
  redirectedAs(vid: string, uid: number): string | null {
    const cluster = this.opts.cluster;
    return cluster ? viewerToken(cluster.me.secret, vid, uid) : null;
  }

  /** The viewer a redirect's token names (see redirectedAs), or null. */
  redirectedViewer(vid: string, token: string): number | null {
    const cluster = this.opts.cluster;
    return cluster ? viewerOf(cluster.me.secret, vid, token) : null;
  }

  /** Whether a node-to-node pull's credential is good (only with a cluster). */
  relayAllowed(vid: string, token: string): boolean {
    const cluster = this.opts.cluster;
    return cluster !== undefined && validRelayToken(cluster.me.secret, vid, token);
  }

  /** The broadcast's media here is over: its blocks are no longer watched. */
  #forgetViewers(vid: string): void {
    this.#blockWatch.get(vid)?.();
    this.#blockWatch.delete(vid);
  }

  /** Ends a viewer's media sessions of a broadcast on this node (the host blocked them). */
  async dropViewer(vid: string, uid: number): Promise<void> {
    for (const id of this.#book.sessionsOf(vid, uid)) if (this.media.session(id)) await this.media.close(id);
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
    const ended = (await this.#finish(vid, 'host')) ?? live;
    const start = ended.started_at ?? ended.created_at;
    const stop = ended.ended_at ?? new Date();
    return {
      vid,
      durationSeconds: Math.max(0, Math.round((new Date(stop).getTime() - new Date(start).getTime()) / 1000)),
      peakViewers: ended.peak_viewers,
    };
  }

  /** Staff end a broadcast now (server/modules/safety): its room is told why. */
  async endByStaff(vid: string): Promise<void> {
    if (!(await liveRepo.byVid(this.db, vid))) throw new AppError('video_not_found');
    await this.#finish(vid, 'staff');
  }

  /** The broadcast `uid` has on (created or live), if any. */
  async activeOf(uid: number): Promise<string | null> {
    return (await liveRepo.active(this.db, uid))?.vid ?? null;
  }

  /** The broadcaster's broadcast that is on air now, if any (their personal page links to it). */
  async onAir(uid: number): Promise<LiveRow | null> {
    const row = await liveRepo.active(this.db, uid);
    return row?.status === 'live' ? row : null;
  }

  /**
   * How many watch a broadcast (viewers.ts): counted where its media is, which is here or on
   * another node (then as that node last reported it).
   */
  async #viewers(vid: string): Promise<number> {
    // With several media nodes, a broadcast's viewers may be on any of them.
    if (!this.opts.cluster && this.media.room(vid)) return this.#book.count(vid);
    return this.#viewing.count(vid).catch(() => 0);
  }

  async get(vid: string): Promise<(LiveWithHost & { viewers: number }) | null> {
    const live = await liveRepo.byVid(this.db, vid);
    return live ? { ...live, viewers: await this.#viewers(vid) } : null;
  }

  /** A host's latest broadcasts in any state (the staff's people lookup). */
  latestOf(uid: number, limit = 10): Promise<LiveRow[]> {
    return liveRepo.latestOf(this.db, uid, limit);
  }

  /**
   * A still of a broadcast (the staff's monitor): made here when it is published here, else asked
   * of the node it is published to (with several nodes; that node makes it from its own media
   * only, so a request never goes round); null when there is none now.
   */
  async frame(vid: string): Promise<Buffer | null> {
    const here = await this.localFrame(vid);
    const cluster = this.opts.cluster;
    if (here || !cluster || this.media.room(vid)?.pulled === false) return here;
    const url = await this.#originUrlOrNull(cluster, vid);
    return url ? originFrame(url, vid, cluster.me.secret) : null;
  }

  /** A still of a broadcast published to this node; null otherwise. */
  localFrame(vid: string): Promise<Buffer | null> {
    return this.media.frame ? this.media.frame(vid) : Promise.resolve(null);
  }

  /** Who is live now, hottest (most viewers) first. */
  async liveNow(limit = 40): Promise<(LiveWithHost & { viewers: number })[]> {
    const rows = await liveRepo.liveNow(this.db, limit);
    const counted = await Promise.all(rows.map(async (r) => ({ ...r, viewers: await this.#viewers(r.vid) })));
    return counted.sort((a, b) => b.viewers - a.viewers);
  }

  /**
   * Stops this node's part: the media here is about to stop with the process, so its broadcasts
   * keep a last lease of the reconnect grace, held by nobody (their publishers may republish to
   * another node, or to this one restarted); the sweep ends those that do not come back.
   */
  async shutdown(): Promise<void> {
    this.#closing = true;
    await this.opts.cluster?.stop();
    this.#counts.close();
    for (const t of this.#graceTimers.values()) clearTimeout(t);
    this.#graceTimers.clear();
    for (const vid of [...this.#blockWatch.keys()]) this.#forgetViewers(vid);
    await this.#leases.stop(this.opts.graceMs ?? RECONNECT_GRACE_MS);
  }
}
