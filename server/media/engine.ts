import type { HlsStream } from './hls/stream';
import type { CodecChoice } from './sdp';

/** How a room is published (see MediaEngine.publish). */
export interface PublishOptions {
  audioOnly?: boolean;
  record?: boolean;
}

/**
 * The media engine behind WHIP and WHEP: the one narrow interface the rest of the server uses.
 * The embedded default is an SFU on werift in this process; a second engine (Janus, for
 * production capacity) can implement the same calls.
 */
export interface MediaEngine {
  /**
   * Whether this engine pulls rooms published on other nodes (`pull`, `follow`). Without, a node
   * sends the room's viewers to its origin node instead (WHEP 307).
   */
  readonly cascades: boolean;
  /** Whether it carries audio-only rooms (`publish` with `audioOnly`): audio rooms need it. */
  readonly audioOnly: boolean;
  /**
   * Reaches what the engine stands on (Janus), so a site that cannot have media fails when it
   * starts rather than at its first broadcast. Engines in this process need nothing.
   */
  start?(): Promise<void>;
  /**
   * A publisher's offer (WHIP) for a room: one publisher per room at a time. A broadcast needs
   * video; `audioOnly` (an audio room's speaker) takes the offer's Opus alone and answers any
   * video section inactive. An engine that cannot carry audio-only rooms refuses with bad_sdp.
   * `record: false`: not recorded whatever RECORD_LIVES says (the demo's endless broadcasts).
   */
  publish(room: string, offer: string, opts?: PublishOptions): Promise<MediaSession>;
  /**
   * A viewer's offer (WHEP) for a room that has a publisher. `relay`: another node pulling the
   * room to serve its own viewers (not counted among this room's viewers).
   */
  play(room: string, offer: string, opts?: { relay?: boolean }): Promise<MediaSession>;
  /**
   * Makes a room that is published on another node (its origin) available here: the engine pulls
   * it once over `link` and serves its own viewers from it (cascading). Resolves once viewers may
   * play it; concurrent pulls of one room share one link. When the link fails or its media stops,
   * the room keeps its viewers and pulls again from where `link.again` says the broadcast is now
   * (or closes, when it is over); a publisher arriving here takes the room over, viewers and all.
   * A pulled room never reports publisher states (its broadcast is the origin's).
   */
  pull(room: string, link: PullLink): Promise<void>;
  /**
   * A room published here whose publisher moved to another node (its new origin, over `link`):
   * its viewers stay, fed from a pull of the new origin (as `pull` does). Rejects when the new
   * origin cannot be pulled (the room is left as it was).
   */
  follow(room: string, link: PullLink): Promise<void>;
  /**
   * A viewer's answer to the engine's own offer, for a session whose `offer` is true (an engine
   * that takes no offers from viewers: Janus 1.1). Rejects with bad_sdp for any other session.
   */
  accept(sessionId: string, answer: string): Promise<void>;
  /**
   * Sends a room published here to another node's engine as plain RTP (Janus's rtp_forward): how
   * an engine whose pulls are forwards (`PullLink.forward`) gets its edge's media. The session it
   * answers ends with `close` and counts as no viewer. Engines that pull over WebRTC lack it.
   */
  forwardTo?(room: string, target: ForwardTarget): Promise<Forwarded>;
  /** Trickled ICE candidates (an SDP fragment, RFC 8840) for a session. */
  addCandidates(sessionId: string, fragment: string): Promise<void>;
  /**
   * A viewer's simulcast layers and the one it gets; null when its room has no layers to choose
   * from (one stream, or an engine that does not switch them).
   */
  layers?(sessionId: string): LayerState | null;
  /** What the viewer's player calls for (WHEP's layer extension): caps the layers it may get. */
  selectLayer?(sessionId: string, wish: LayerWish): LayerState | null;
  /** Ends one session (a publisher's ends the room's media and its viewers). */
  close(sessionId: string): Promise<void>;
  /**
   * A still of a room published here now, as a small JPEG (the staff's live monitor); null when
   * the room has no picture here, or the engine makes none.
   */
  frame?(room: string): Promise<Buffer | null>;
  /** Ends a room's media: its publisher and every viewer. */
  closeRoom(room: string): Promise<void>;
  /**
   * A room that has a publisher, with its viewers whose media flows (connected sessions, not
   * those still connecting); null when nobody publishes to it.
   */
  room(room: string): { viewers: number; pulled: boolean } | null;
  /**
   * The room's LL-HLS packaging, when it is published here (its origin) in H.264 and packaging is
   * on; null otherwise (a pulled room's is its origin's).
   */
  hls(room: string): HlsStream | null;
  /** Rooms with media here, published or pulled. */
  names(): string[];
  /** Which room a session belongs to, its role, and whether its media flows (ICE and DTLS done). */
  session(sessionId: string): SessionInfo | null;
  /** Told when a room's viewer session connects, loses its connection or ends. */
  onViewers(listener: (room: string) => void): () => void;
  /** Told when a recording of a room is ready to play (one file per publishing session). */
  onRecorded(listener: (room: string, recording: Recording) => void): () => void;
  /** Told when a room's publisher connects, loses its connection, comes back, or is gone. */
  onPublisher(listener: (room: string, state: PublisherState) => void): () => void;
  stats(): MediaStats;
  shutdown(): Promise<void>;
}

/** How an edge reaches a room's origin (server/modules/live/cluster.ts makes one over WHEP). */
export interface LayerState {
  /** The publisher's layers, lowest first (a size is 0 × 0 before the layer's first keyframe). */
  layers: { encodingId: string; width: number; height: number }[];
  /** The layer the viewer gets (-1 before its first picture), and the one it is moving to. */
  current: number;
  target: number;
  /** The highest layer it may get (its player's size, or its choice). */
  max: number;
}

/** A player's wish: a layer by its RID, or no larger than needed for a player of this size (pixels). */
export interface LayerWish {
  encodingId?: string;
  maxWidth?: number;
  maxHeight?: number;
}

export interface PullLink {
  /** Sends the edge's offer to the origin; answers the origin's answer. */
  offer(sdp: string): Promise<string>;
  /**
   * Asks the origin to send the room here as plain RTP to `target` (an engine whose pulls are
   * forwards: Janus); answers the codecs it sends. Links over WHEP have both.
   */
  forward?(target: ForwardTarget): Promise<Forwarded>;
  /** The pulled room here is over: the origin's session for it may end. */
  close(): void;
  /**
   * Asked when the link is lost: a link to where the broadcast's media is now, 'wait' when it is
   * nowhere yet (its publisher is reconnecting; asked again shortly), 'over' when it ended.
   * Without it, a lost link ends the pulled room.
   */
  again?(): Promise<PullLink | 'wait' | 'over'>;
}

/** Where another node's engine takes a forwarded room: its address, and a UDP port per stream. */
export interface ForwardTarget {
  host: string;
  audio: number;
  video: number;
  /** The video's RTCP (its sender reports out, the receiver's keyframe requests back). */
  videoRtcp: number;
}

/** A forward made: its session at the origin, and the codecs of what it sends. */
export interface Forwarded {
  id: string;
  codecs: CodecChoice[];
}

export type PublisherState = 'connected' | 'interrupted' | 'closed';

export interface SessionInfo {
  room: string;
  role: 'publisher' | 'viewer';
  connected: boolean;
}

export interface MediaSession {
  id: string;
  /** The SDP answer, with every ICE candidate already gathered (the engine's offer, when `offer`). */
  answer: string;
  /**
   * True when `answer` is the engine's own offer, not an answer to the caller's: the caller
   * answers it (MediaEngine.accept). Only viewers' sessions, and only on engines that take no
   * offers from viewers.
   */
  offer?: boolean;
  /** Codecs in use: 'H264', 'VP8', 'opus'. */
  codecs: string[];
}

export interface Recording {
  /** File name inside the engine's recording directory. */
  file: string;
  bytes: number;
  startedAt: Date;
  endedAt: Date;
}

export interface MediaStats {
  rooms: number;
  publishers: number;
  /** Rooms pulled from their origin on another node. */
  pulled: number;
  /** Viewer sessions, other nodes' pulls included (each costs what a viewer does). */
  viewers: number;
  /** Peer connections open in the engine (tests check they return to zero). */
  peerConnections: number;
}

export interface MediaConfig {
  /** STUN/TURN servers offered to the engine's own ICE agent. */
  iceServers: { urls: string | string[]; username?: string; credential?: string }[];
  /** UDP port range for media, e.g. [40000, 40999]; undefined = any port. */
  portRange: [number, number] | undefined;
  /** Extra host addresses to gather candidates on (127.0.0.1 for tests, a public IP on a VM). */
  hostAddresses: string[];
  /**
   * Whether a caller's ICE candidates on loopback, link-local, private or other non-public
   * addresses (or names) are used. Off, the engine never sends to them: it answers checks that
   * reach it instead (see server/media/addresses.ts). On for local development only. Default off.
   */
  allowPrivateCandidates?: boolean;
  /** A session (publisher or viewer) whose media does not flow within this is closed. Default 15 s. */
  connectTimeoutMs?: number;
  /**
   * How packets reach viewers: 'lean' (default, server/media/lean-forward.ts) or 'werift' (its
   * RTCRtpSender, kept as the benchmark's baseline and as a fallback).
   */
  forward?: 'lean' | 'werift';
  /**
   * Where recordings go, never transcoded: H.264 with Opus rewrapped as MP4 once the broadcast
   * ends, VP8 with Opus left in WebM; unset: none.
   */
  recordDir?: string | undefined;
  /**
   * Whether each broadcast published here is also packaged as Low-Latency HLS (H.264 only; see
   * server/media/hls). Default off.
   */
  hls?: boolean;
  /** Stills of live rooms for the staff's monitor (server/media/frames.ts): where and with what. */
  frames?: { dir: string; ffmpeg: string };
}
