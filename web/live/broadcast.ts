import type { Answer } from '../../common/api/envelope';
import type { StartedLive as Started, endLiveAnswer } from '../../common/api/live';
import { api } from '../lib/api';
import { MediaHttpError, watchFlow, whipPublish, type Session } from './webrtc';

/** Spec §4: a broadcaster whose connection drops has this long to come back before it ends. */
export const RECONNECT_GRACE_MS = 20_000;
const RETRY_MS = 1000;
/**
 * A connection that says 'disconnected' has heard nothing from its media node for a few seconds
 * already (the browser's own check): its node may have died. A republish then goes wherever the
 * site sends it, and viewers play on from it (the server swaps it in under them); one that comes
 * back meanwhile is kept.
 */
const DISCONNECTED_MS = 300;
/**
 * A publisher hears its media node's RTCP reports every 0.5–1.5 s: silence for this long means
 * the node died (the browser's own 'disconnected' comes seconds later), and it republishes.
 */
const SILENT_MS = 2000;

export type { Started };

export interface BroadcastEvents {
  state: (s: 'live' | 'reconnecting') => void;
  /** The connection did not come back within the grace period. */
  lost: () => void;
  /** The server ended the broadcast meanwhile (its token no longer publishes): ask it why. */
  over: () => void;
}

/**
 * A live broadcast from the studio: publishes over WHIP, and when the connection drops,
 * republishes (same token) until it works again, the grace period runs out, or the server says
 * the broadcast is over (taken over from another tab, ended by the server).
 */
export class Broadcast {
  #session: Session | null = null;
  #stopWatch: () => void = () => undefined;
  /** The current connection hears nothing from its media node (see SILENT_MS). */
  #silent = false;
  /** Where WHIP goes: the node the site placed the broadcast on, then the site itself if that node is gone. */
  #whipUrl: string;
  #ended = false;
  #lostAt: number | null = null;
  #retry = 0;
  #on: BroadcastEvents = { state: () => undefined, lost: () => undefined, over: () => undefined };

  constructor(
    readonly started: Started,
    private stream: MediaStream,
  ) {
    this.#whipUrl = started.whip_url;
  }

  /**
   * Sends another stream's tracks (the other camera) in place of the current ones, on the same
   * connection: viewers keep playing, and a republish takes the new stream.
   */
  async useStream(stream: MediaStream): Promise<void> {
    this.stream = stream;
    for (const sender of this.#session?.pc.getSenders() ?? []) {
      const kind = sender.track?.kind;
      const track = stream.getTracks().find((t) => t.kind === kind);
      if (track && track !== sender.track) await sender.replaceTrack(track);
    }
  }

  /** Who hears about reconnecting and about the broadcast being lost or over for good. */
  listen(on: BroadcastEvents): void {
    this.#on = on;
  }

  async start(): Promise<void> {
    await this.#publish();
  }

  async #publish(): Promise<void> {
    const session = await whipPublish(this.#whipUrl, this.started.publish_token, this.stream, {
      simulcast: this.started.simulcast,
    });
    this.#session = session;
    this.#silent = false;
    this.#stopWatch();
    this.#stopWatch = watchFlow(
      session.pc,
      (hearing) => {
        if (this.#ended || this.#session !== session) return;
        this.#silent = !hearing;
        if (hearing) {
          // A slow moment, not a dead node: this connection goes on.
          if (session.pc.connectionState === 'connected') {
            this.#lostAt = null;
            this.#on.state('live');
          }
          return;
        }
        this.#lostAt ??= Date.now();
        this.#on.state('reconnecting');
        this.#scheduleRepublish(0);
      },
      { of: 'anything', stallMs: SILENT_MS },
    );
    session.pc.addEventListener('connectionstatechange', () => {
      if (this.#ended || this.#session !== session) return;
      const state = session.pc.connectionState;
      if (state === 'connected') {
        this.#lostAt = null;
        this.#on.state('live');
      } else if (state === 'disconnected' || state === 'failed') {
        this.#lostAt ??= Date.now();
        this.#on.state('reconnecting');
        this.#scheduleRepublish(state === 'failed' ? 0 : DISCONNECTED_MS);
      }
    });
  }

  #scheduleRepublish(delay = RETRY_MS): void {
    if (this.#ended || this.#retry) return;
    this.#retry = window.setTimeout(() => {
      this.#retry = 0;
      // Came back by itself meanwhile.
      if (this.#ended || (!this.#silent && this.#session?.pc.connectionState === 'connected')) return;
      if (this.#lostAt !== null && Date.now() - this.#lostAt > RECONNECT_GRACE_MS) {
        this.#on.lost();
        return;
      }
      // The old connection closes once the new one is taken: closed first, it would end the
      // media under the viewers (a node that still has it takes the new one in its place).
      const old = this.#session;
      this.#publish().then(
        () => old?.pc.close(),
        (err: unknown) => {
          // The token ends with the broadcast: no use retrying what the server has ended.
          if (err instanceof MediaHttpError && (err.status === 401 || err.status === 410)) this.#on.over();
          else {
            // Unreachable (the node it was placed on died): the site sends it to one alive.
            if (!(err instanceof MediaHttpError)) this.#whipUrl = `/api/v1/whip/${this.started.vid}`;
            this.#scheduleRepublish();
          }
        },
      );
    }, delay);
  }

  /**
   * Hangs up as the page goes away (WHIP DELETE, which ends the broadcast): the request is sent
   * before the connection closes and outlives the page (keepalive).
   */
  hangUp(): void {
    this.#ended = true;
    this.#stopWatch();
    window.clearTimeout(this.#retry);
    const session = this.#session;
    if (!session) return;
    void fetch(session.location, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${this.started.publish_token}` },
      keepalive: true,
    }).catch(() => undefined);
    session.close();
  }

  /** Ends the broadcast on the server and hangs up; answers the summary. */
  async end(): Promise<{ duration_seconds: number; peak_viewers: number } | null> {
    this.#ended = true;
    this.#stopWatch();
    window.clearTimeout(this.#retry);
    this.#session?.pc.close();
    try {
      return await api<Answer<typeof endLiveAnswer>>('POST', `/api/v1/live/${this.started.vid}/end`, {});
    } catch {
      return null;
    }
  }
}
