import type { RoomEvent } from '../../common/realtime';
import { ApiError } from '../lib/api';
import type { ConnectionState, RoomHandlers } from './realtime';
import { MediaHttpError, type Session } from './webrtc';

/**
 * What the viewer sees. `waiting`: not publishing yet; `interrupted`: the broadcaster's media
 * dropped (the room said so), waiting for them; `ended` and `blocked` are final.
 */
export type PlayerView =
  'connecting' | 'playing' | 'reconnecting' | 'waiting' | 'interrupted' | 'ended' | 'blocked';
export type HostState = Extract<RoomEvent, { t: 'host' }>['state'];

/** The part of a broadcast's status (GET /api/v1/live/{vid}) the player goes by. */
export interface PlayerLive {
  status: string;
  replay: readonly unknown[];
}

/** How the picture comes: WebRTC (WHEP, under a second) or LL-HLS (hls.js, a second or two). */
export type Transport = 'webrtc' | 'hls';

export interface PlayerState<L extends PlayerLive> {
  view: PlayerView;
  live: L;
  transport: Transport;
}

/** A playing LL-HLS stream (see PlayerDeps.playHls). */
export interface HlsSession {
  stop(): void;
}

/** The broadcast has no LL-HLS (it is not packaged: playHls rejects with this). */
export class HlsUnavailable extends Error {}

/** The world the player drives; the page passes the browser's, the tests fakes. */
export interface PlayerDeps<L extends PlayerLive> {
  /**
   * Opens a WHEP session; `onStream` gets the remote stream. `noHls`: the broadcast has no LL-HLS
   * (the server must not refuse the viewer for capacity, see media_full).
   */
  play(onStream: (stream: MediaStream) => void, opts?: { noHls: boolean }): Promise<Session>;
  /** Calls `onChange(false)` when the picture stalls and `onChange(true)` when it flows again. */
  watchFlow(pc: RTCPeerConnection, onChange: (flowing: boolean) => void): () => void;
  /** The broadcast's status over HTTP. */
  status(): Promise<L>;
  /** The room connection (realtime gateway). */
  room: {
    onState(listener: (s: ConnectionState) => void): () => void;
    join(room: string, handlers: RoomHandlers): () => void;
  };
  /** Where the played stream goes (the page's video element). */
  onStream(stream: MediaStream): void;
  /**
   * Plays the broadcast's LL-HLS on the page's video instead; `onFatal` is called when it stops
   * for good (the packaging started again, the broadcast ended, the network went). Without it,
   * the player has WebRTC only.
   */
  playHls?(onFatal: () => void): Promise<HlsSession>;
  /**
   * Whether nothing came back from the media node on a connection that is not up (every ICE
   * check unanswered). Without it, a connection not up in time is taken as blocked.
   */
  unanswered?(pc: RTCPeerConnection): Promise<boolean>;
  /** Whether this browser has WebRTC at all (without it, LL-HLS from the start); asked on start. */
  webrtc?: () => boolean;
}

export const RETRY_MS = 2500;
/**
 * A picture stalled this long past the stall itself while the broadcaster is on air (the room
 * has not said they dropped) is taken for a lost media node: the session is replaced at once by
 * one wherever the broadcast is served now (a node that died takes its sessions with it, and the
 * browser would notice only seconds later).
 */
export const STALL_REPLAY_MS = 500;
/**
 * A session connected whose media never starts (not one packet this long after it was made,
 * while the broadcaster is on air) is replaced, as a stalled one is: a new one asks for a
 * keyframe again and may be served by another node.
 */
export const FIRST_MEDIA_MS = 8000;
/**
 * A session whose connection is not up this long after it was answered, with not one of its ICE
 * checks answered, is taken for a network that blocks WebRTC (UDP, and TURN if any): the player
 * goes to LL-HLS. Connections come up in well under a second on the same network and in two or
 * three across the world, over TURN too.
 */
export const CONNECT_FALLBACK_MS = 6000;
/**
 * The room connection says at once when the broadcaster connects, drops or ends; the status is
 * also read over HTTP, slowly while that connection is up, as before while it is not.
 */
export const STATUS_POLL_MS = 10_000;
export const FALLBACK_POLL_MS = 30_000;
export const REPLAY_POLL_MS = 3000;
export const REPLAY_POLL_TRIES = 40;

const isOn = (status: string) => status === 'live' || status === 'created';
// The same broadcast, now ended ('ended' is one of every status type the page uses).
const asEnded = <L extends PlayerLive>(live: L): L => ({ ...live, status: 'ended' });
type Timer = ReturnType<typeof setTimeout>;

/**
 * The live player's state machine (/v/{videoid}): plays the broadcast over WHEP, follows the
 * broadcaster's state from the room and the status over HTTP, retries while they are away, and
 * stops for good when the broadcast ends or the viewer is blocked. A plain class so that every
 * transition can be tested without a browser; the page renders from `state`.
 */
export class LivePlayer<L extends PlayerLive> {
  #state: PlayerState<L>;
  readonly #deps: PlayerDeps<L>;
  readonly #vid: string;
  readonly #active: boolean;
  #listeners = new Set<() => void>();
  #running = false;
  // A block or the end of the broadcast ends the media on the server too: then there is no
  // session left to hang up.
  #mediaEnded = false;
  // The broadcaster's media is down (the room said so): waiting is for them, not for us.
  #hostDown = false;
  #endedInRoom = false;
  #roomOpen = false;
  // The media's response to the broadcaster's state, while the media is being played.
  #onHost: ((state: HostState) => void) | null = null;
  #stopMedia: (() => void) | null = null;
  #stopRoom: (() => void) | null = null;
  #poll: ReturnType<typeof setInterval> | undefined;
  #replayPoll: ReturnType<typeof setInterval> | undefined;
  #session: string;

  constructor(vid: string, initial: L, deps: PlayerDeps<L>, session = '') {
    this.#vid = vid;
    this.#deps = deps;
    this.#session = session;
    this.#active = isOn(initial.status);
    this.#state = {
      view: initial.status === 'ended' ? 'ended' : 'connecting',
      live: initial,
      transport: 'webrtc',
    };
  }

  get state(): PlayerState<L> {
    return this.#state;
  }

  /** For useSyncExternalStore. */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  getState = (): PlayerState<L> => this.#state;

  /** Starts playing (a broadcast that is on) and watching for the replay (one that ended). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    if (this.#deps.playHls && this.#deps.webrtc?.() === false)
      this.#set({ ...this.#state, transport: 'hls' });
    if (this.#active && !this.#final()) {
      this.#stopMedia = this.#startMedia();
      this.#stopRoom = this.#startRoom();
      this.#startPoll();
    }
    this.#syncReplayPoll();
  }

  /** Stops everything (the page is left). */
  stop(): void {
    this.#running = false;
    this.#stopLive();
    this.#syncReplayPoll();
  }

  /** Signing in or out starts the media again with the session: the server checks blocks. */
  setSession(mark: string): void {
    if (mark === this.#session) return;
    this.#session = mark;
    if (!this.#stopMedia) return;
    this.#stopMedia();
    this.#stopMedia = this.#startMedia();
  }

  /** The video element started playing. */
  playing(): void {
    this.#setView('playing');
  }

  /** The viewer was blocked by the host (the room said so): the server ended the media. */
  blocked(): void {
    this.#mediaEnded = true;
    this.#setView('blocked');
  }

  /** Reads the status over HTTP; an ended (or unknown) broadcast ends the player. */
  refresh = async (): Promise<L | null> => {
    try {
      let next = await this.#deps.status();
      // The room said it ended: a status read just before the end was recorded is older.
      if (this.#endedInRoom && isOn(next.status)) next = asEnded(next);
      this.#set({ ...this.#state, live: next });
      if (!isOn(next.status)) {
        this.#mediaEnded = true;
        this.#setView('ended');
      }
      return next;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        this.#mediaEnded = true;
        this.#setView('ended');
      }
      return null;
    }
  };

  #final(): boolean {
    return this.#state.view === 'ended' || this.#state.view === 'blocked';
  }

  #set(next: PlayerState<L>): void {
    if (next === this.#state) return;
    this.#state = next;
    for (const l of this.#listeners) l();
    this.#syncReplayPoll();
  }

  #setView(view: PlayerView | ((v: PlayerView) => PlayerView)): void {
    // Ended and blocked are final; a block shows over anything.
    if (this.#state.view === 'blocked' || (this.#state.view === 'ended' && view !== 'blocked')) return;
    const next = typeof view === 'function' ? view(this.#state.view) : view;
    if (next === this.#state.view) return;
    this.#set({ ...this.#state, view: next });
    if (this.#final()) this.#stopLive();
  }

  #stopLive(): void {
    this.#stopMedia?.();
    this.#stopMedia = null;
    this.#stopRoom?.();
    this.#stopRoom = null;
    clearInterval(this.#poll);
    this.#poll = undefined;
  }

  #startMedia(): () => void {
    return this.#state.transport === 'hls' ? this.#startHls() : this.#startWebrtc();
  }

  /**
   * WebRTC cannot serve this viewer (every media node is full, or the network blocks it): the
   * broadcast's LL-HLS plays instead, for as long as the page is open.
   */
  #fallBack(): void {
    if (!this.#canFallBack() || !this.#stopMedia) return;
    this.#stopMedia();
    this.#set({ ...this.#state, transport: 'hls' });
    this.#stopMedia = this.#startHls();
  }

  /** Reads the status, then `start`s the media again if the broadcast is still on. */
  #whileOn(start: () => Promise<void>): () => Promise<void> {
    return async () => {
      const next = await this.refresh();
      if (next && isOn(next.status)) await start();
    };
  }

  /** The room says the broadcaster's media dropped: waiting is for them. */
  #hostInterrupted(): void {
    this.#hostDown = true;
    this.#setView('interrupted');
  }

  #canFallBack(): boolean {
    return !!this.#deps.playHls && this.#state.transport !== 'hls' && !this.#noHls;
  }

  /** The broadcast has no LL-HLS after all (not packaged): WebRTC again, for good. */
  #backToWebrtc(): void {
    this.#noHls = true;
    this.#stopMedia?.();
    this.#set({ ...this.#state, transport: 'webrtc' });
    this.#stopMedia = this.#startWebrtc();
  }

  #noHls = false;

  #startHls(): () => void {
    const deps = this.#deps;
    if (!deps.playHls) return () => undefined;
    let stopped = false;
    let current: HlsSession | null = null;
    let starting = false;
    let timer: Timer | undefined;
    const start = async () => {
      // One at a time (a retry and the broadcaster's return may both ask).
      if (stopped || current || starting || !deps.playHls) return;
      starting = true;
      try {
        const started = await deps.playHls(() => {
          // Stopped for good: started again (from the multivariant playlist, which names the
          // packaging now), unless the broadcast is over.
          current?.stop();
          current = null;
          if (stopped) return;
          this.#setView((v) => (v === 'playing' ? (this.#hostDown ? 'interrupted' : 'reconnecting') : v));
          clearTimeout(timer);
          timer = setTimeout(() => void retry(), RETRY_MS);
        });
        if (stopped) return started.stop();
        current = started;
      } catch (err) {
        if (stopped) return;
        if (err instanceof HlsUnavailable) return this.#backToWebrtc();
        clearTimeout(timer);
        timer = setTimeout(() => void retry(), RETRY_MS);
      } finally {
        starting = false;
      }
    };
    const retry = this.#whileOn(start);
    this.#onHost = (state) => {
      if (state === 'interrupted') this.#hostInterrupted();
      else if (state === 'live') {
        this.#hostDown = false;
        if (!current) {
          clearTimeout(timer);
          void start();
        }
      }
    };
    void start();
    return () => {
      stopped = true;
      this.#onHost = null;
      clearTimeout(timer);
      current?.stop();
      current = null;
    };
  }

  #startWebrtc(): () => void {
    let session: Session | null = null;
    let connecting = false;
    let stopped = false;
    let timer: Timer | undefined;
    let stallTimer: Timer | undefined;
    let firstTimer: Timer | undefined;
    let connectTimer: Timer | undefined;
    let stopFlow: () => void = () => undefined;
    // Between sessions: waiting for the broadcaster when the room said they dropped.
    const between = (fallback: PlayerView) => this.#setView(this.#hostDown ? 'interrupted' : fallback);
    const connect = async () => {
      // One session at a time (a retry and the broadcaster's return may both ask).
      if (stopped || session || connecting) return;
      connecting = true;
      try {
        const started = await this.#deps.play(
          (stream) => {
            if (!stopped) this.#deps.onStream(stream);
          },
          { noHls: this.#noHls },
        );
        connecting = false;
        // Left (or signed in or out) while connecting: this one is not wanted any more.
        if (stopped) return void started.stop();
        session = started;
        const pc = session.pc;
        // A picture that stops (the broadcaster's tab crashed, a network went) says so within
        // seconds, and goes on by itself when the media comes back; the room or the status says
        // when the broadcast ended.
        stopFlow();
        // This session is given up for a new one (wherever the broadcast is served now), unless
        // it was replaced or stopped meanwhile or the broadcaster dropped.
        const replace = () => {
          if (stopped || session?.pc !== pc || this.#hostDown) return;
          const lost = session;
          session = null;
          stopFlow();
          void lost.stop();
          void connect();
        };
        let flowed = false;
        // Not connected in time: a network that blocks WebRTC (see CONNECT_FALLBACK_MS).
        clearTimeout(connectTimer);
        connectTimer = setTimeout(() => {
          const waiting = () => !stopped && session?.pc === pc && pc.connectionState !== 'connected';
          if (!waiting()) return;
          // Only when nothing at all came back from the media node (a slow network that answers
          // is waited for).
          void (this.#deps.unanswered?.(pc) ?? Promise.resolve(true))
            .then((none) => {
              if (none && waiting()) this.#fallBack();
            })
            // The connection closed meanwhile (its statistics are gone): nothing to decide.
            .catch(() => undefined);
        }, CONNECT_FALLBACK_MS);
        clearTimeout(firstTimer);
        firstTimer = setTimeout(() => {
          if (!flowed) replace();
        }, FIRST_MEDIA_MS);
        stopFlow = this.#deps.watchFlow(pc, (flowing) => {
          if (flowing) flowed = true;
          if (stopped || session?.pc !== pc) return;
          clearTimeout(stallTimer);
          if (flowing) {
            this.#setView((v) => (v === 'reconnecting' || v === 'interrupted' ? 'playing' : v));
            return;
          }
          this.#setView((v) => (v === 'playing' ? (this.#hostDown ? 'interrupted' : 'reconnecting') : v));
          stallTimer = setTimeout(replace, STALL_REPLAY_MS);
        });
        pc.addEventListener('connectionstatechange', () => {
          if (stopped || session?.pc !== pc) return;
          if (pc.connectionState === 'failed' || pc.connectionState === 'disconnected') {
            const lost = session;
            session = null;
            stopFlow();
            between('reconnecting');
            // Ended by the broadcaster: the server closed this session already.
            void this.refresh().then((next) => {
              if (next && isOn(next.status)) void lost.stop();
              else lost.close();
              if (!stopped && next?.status !== 'ended') timer = setTimeout(() => void retry(), RETRY_MS);
            });
          }
        });
      } catch (err) {
        connecting = false;
        // Not publishing yet (or between reconnects): wait for the broadcaster.
        if (err instanceof MediaHttpError && err.status === 410) {
          this.#mediaEnded = true;
          return this.#setView('ended');
        }
        if (err instanceof MediaHttpError && err.error === 'blocked_permanently')
          return this.#setView('blocked');
        // Every media node is at its WebRTC capacity: the broadcast's LL-HLS has room for all.
        if (err instanceof MediaHttpError && err.error === 'media_full' && this.#canFallBack())
          return this.#fallBack();
        between(err instanceof MediaHttpError && err.status === 404 ? 'waiting' : 'reconnecting');
        clearTimeout(timer);
        timer = setTimeout(() => void retry(), RETRY_MS);
      }
    };
    const retry = this.#whileOn(connect);
    this.#onHost = (state) => {
      if (state === 'interrupted') this.#hostInterrupted();
      else if (state === 'live') {
        this.#hostDown = false;
        // Still connected (the broadcaster's own connection recovered): the picture goes on.
        if (session?.pc.connectionState === 'connected') this.#setView('playing');
        else {
          // Back, maybe with a new connection: join it now rather than at the next retry.
          clearTimeout(timer);
          void connect();
        }
      }
    };
    void connect();
    return () => {
      stopped = true;
      stopFlow();
      this.#onHost = null;
      clearTimeout(timer);
      clearTimeout(stallTimer);
      clearTimeout(firstTimer);
      clearTimeout(connectTimer);
      if (this.#mediaEnded) session?.close();
      else void session?.stop();
    };
  }

  // The broadcaster's state as the room tells it: at once, instead of at the next poll.
  #startRoom(): () => void {
    const host = (state: HostState) => {
      if (state === 'ended') {
        this.#hostDown = false;
        this.#mediaEnded = true;
        this.#endedInRoom = true;
        // The replay (and whether there is one) comes with the status.
        this.#set({ ...this.#state, live: asEnded(this.#state.live) });
        this.#setView('ended');
        void this.refresh();
      } else this.#onHost?.(state);
    };
    const stopState = this.#deps.room.onState((s) => {
      const open = s === 'open';
      if (open === this.#roomOpen) return;
      this.#roomOpen = open;
      if (this.#poll !== undefined) this.#startPoll();
    });
    const leave = this.#deps.room.join(this.#vid, {
      joined: (events, _viewers, fresh) => {
        const last = events.findLast((e) => e.t === 'host');
        if (!last) return;
        // A page just opened has its state from the server; history may be older: check it.
        if (fresh && last.state === 'ended') void this.refresh();
        else if (!fresh || last.state === 'interrupted') host(last.state);
      },
      event: (e) => {
        if (e.t === 'host') host(e.state);
      },
      count: () => undefined,
    });
    return () => {
      leave();
      stopState();
    };
  }

  // A fallback for when the room connection misses something: the status over HTTP.
  #startPoll(): void {
    clearInterval(this.#poll);
    this.#poll = setInterval(() => void this.refresh(), this.#roomOpen ? FALLBACK_POLL_MS : STATUS_POLL_MS);
  }

  // A replay is rewrapped for a few seconds after the broadcast ends: look again until it is there.
  #syncReplayPoll(): void {
    const { view, live } = this.#state;
    const generating =
      this.#running && view === 'ended' && live.status === 'ended' && live.replay.length === 0;
    if (!generating) {
      clearInterval(this.#replayPoll);
      this.#replayPoll = undefined;
      return;
    }
    if (this.#replayPoll !== undefined) return;
    let tries = 0;
    const poll = setInterval(() => {
      if (++tries > REPLAY_POLL_TRIES) clearInterval(poll);
      else void this.refresh();
    }, REPLAY_POLL_MS);
    this.#replayPoll = poll;
  }
}
