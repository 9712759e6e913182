// The production media engine: Janus (Debian's 1.1.2) behind the same MediaEngine the werift SFU
// implements. Publishers (WHIP) join a VideoRoom with their own offer. Viewers watch a Streaming
// mountpoint that the room's publisher is rtp_forwarded to, so a publisher that reconnects feeds
// the same mountpoint and its viewers keep their connections (a VideoRoom subscriber does not
// recover, janus-notes §4.2). Janus 1.1.2 takes no offer from a viewer: a viewer gets Janus's
// offer and answers it (`accept`), which the site's player does (web/live/webrtc.ts).
import { randomInt, randomUUID } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdirSync } from 'node:fs';
import { AppError } from '../../../common/errors';
import { allowedCandidate } from '../addresses';
import type {
  Forwarded,
  ForwardTarget,
  MediaConfig,
  MediaEngine,
  MediaSession,
  MediaStats,
  PublisherState,
  PublishOptions,
  PullLink,
  Recording,
  SessionInfo,
} from '../engine';
import type { HlsStream } from '../hls/stream';
import { answeredSections, checkOffer, sameMedia, type CodecChoice } from '../sdp';
import { JanusClient, type HandleEvent } from './client';
import { startJanus, type JanusProcess } from './process';
import { ForwardedMedia } from './forwarded';
import { AUDIO_PT, JanusPlugins, VIDEO_PT } from './plugins';

const VIDEOROOM = 'janus.plugin.videoroom';
const STREAMING = 'janus.plugin.streaming';
const CONNECT_TIMEOUT_MS = 15_000;

export interface JanusConfig extends MediaConfig {
  /** Janus's WebSocket API (ws://10.0.0.5:8188); unset: the engine runs Janus itself. */
  janusUrl?: string | undefined;
  janusApiSecret?: string | undefined;
  /** The VideoRoom and Streaming plugins' admin_key (rtp_forward and creating rooms need it). */
  janusAdminKey?: string | undefined;
  /**
   * The address of this node's Janus that other nodes' Janus forward to (a private network):
   * mountpoints listen there. Default 127.0.0.1 (nodes on one host).
   */
  janusForwardAddress?: string | undefined;
  /** For a Janus the engine runs: a folder whose libsrtp2 it loads first (OpenSSL's crypto). */
  janusLibraryPath?: string | undefined;
}

/** How often a pulled room's mountpoint is asked how long ago its last packet came. */
const PULL_CHECK_MS = 500;
/** A pulled room whose media stopped this long ago pulls again (from wherever it is now). */
const PULL_STALL_MS = 1500;

interface Room {
  name: string;
  /** The VideoRoom room and the Streaming mountpoint, numbered by us. */
  janusRoom: number;
  mountpoint: number;
  /** Where the mountpoint listens: audio, video, video RTCP (keyframe requests back). */
  ports: ForwardTarget;
  codecs: CodecChoice[];
  publisher: Publisher | null;
  viewers: Map<string, Viewer>;
  /** The publisher's media forwarded to this process too: LL-HLS and the recording. */
  forwarded: ForwardedMedia | null;
  /** Other nodes this room is forwarded to (their pulls), by session id. */
  forwards: Map<string, Forward>;
  /** A room published on another node, forwarded here over this link (null: published here). */
  pulled: PullLink | null;
  /** The pulled media has flowed since the last (re)link; a relink is under way. */
  flowed: boolean;
  relinking: boolean;
}

interface Forward {
  target: ForwardTarget;
  /** The publisher feed it forwards, and its Janus forwarders (to stop them). */
  feed: number;
  streamIds: number[];
}

interface Publisher {
  id: string;
  handle: number;
  feed: number;
  /** What it sends, with its sections' mids (what rtp_forward names). */
  codecs: (CodecChoice & { mid: string })[];
  connected: boolean;
  /** Its video stopped arriving (Janus's media event), reported as interrupted. */
  stalled: boolean;
}

interface Viewer {
  id: string;
  handle: number;
  connected: boolean;
}

interface Session {
  room: string;
  role: 'publisher' | 'viewer';
}

/** Free UDP ports at `host` for a mountpoint (the OS picks; Janus binds them right after). */
async function freeUdpPorts(count: number, host: string): Promise<number[]> {
  const sockets = Array.from({ length: count }, () => createSocket('udp4'));
  const ports = await Promise.all(
    sockets.map(
      (s) =>
        new Promise<number>((resolve, reject) => {
          s.once('error', reject);
          s.bind(0, host, () => resolve(s.address().port));
        }),
    ),
  );
  for (const s of sockets) s.close();
  return ports;
}

export class JanusEngine implements MediaEngine {
  readonly cascades = true;
  /** Audio rooms are carried by the embedded SFU only (docs/media-engines.md). */
  readonly audioOnly = false;
  readonly #rooms = new Map<string, Room>();
  readonly #sessions = new Map<string, Session>();
  readonly #viewerListeners = new Set<(room: string) => void>();
  readonly #listeners = new Set<(room: string, state: PublisherState) => void>();
  readonly #recordedListeners = new Set<(room: string, recording: Recording) => void>();
  /** The publish under way per room (publishes to one room wait for each other). */
  readonly #publishing = new Map<string, Promise<unknown>>();
  /** Recordings being finished (shutdown waits for them). */
  readonly #processing = new Set<Promise<unknown>>();
  #client: Promise<JanusClient> | null = null;
  /** The handle rooms and mountpoints are made and ended through. */
  #admin: Promise<JanusPlugins> | null = null;
  #process: JanusProcess | null = null;
  #adminKey: string | undefined;
  #shuttingDown = false;
  /** Pulls under way, by room: viewers arriving together share one. */
  readonly #pulling = new Map<string, Promise<void>>();
  readonly #pullCheck: NodeJS.Timeout;

  constructor(private readonly config: JanusConfig) {
    this.#adminKey = config.janusAdminKey;
    if (config.recordDir) mkdirSync(config.recordDir, { recursive: true });
    this.#pullCheck = setInterval(() => void this.#checkPulls(), PULL_CHECK_MS);
    this.#pullCheck.unref();
  }

  /** Where mountpoints listen, and where this node's own forwards go. */
  get #forwardHost(): string {
    return this.config.janusForwardAddress ?? '127.0.0.1';
  }

  async start(): Promise<void> {
    await this.#plugins();
  }

  /** The API session, connected (and Janus started, when this engine runs it) on first use. */
  #janus(): Promise<JanusClient> {
    this.#client ??= (async () => {
      let url = this.config.janusUrl;
      let secret = this.config.janusApiSecret;
      if (!url) {
        // A Janus of ours that died (crashed, killed) is started again.
        if (this.#process && !this.#process.running) {
          await this.#process.stop();
          this.#process = null;
        }
        this.#process ??= await startJanus({
          portRange: this.config.portRange,
          libraryPath: this.config.janusLibraryPath,
        });
        url = this.#process.url;
        secret = this.#process.apiSecret;
        this.#adminKey = this.#process.adminKey;
      }
      return JanusClient.connect(url, secret, () => this.#lost());
    })().catch((err: unknown) => {
      this.#client = null;
      throw err;
    });
    return this.#client;
  }

  /**
   * The API session is gone, and Janus ended every peer connection it held: every room here is
   * over (publishers reconnect, viewers play again, on a new session).
   */
  #lost(): void {
    this.#client = null;
    this.#admin = null;
    if (this.#shuttingDown) return;
    for (const name of [...this.#rooms.keys()]) this.#forget(name);
  }

  /** The plugin requests (plugins.ts), on the API session's own pair of handles. */
  async #plugins(): Promise<JanusPlugins> {
    const client = await this.#janus();
    this.#admin ??= Promise.all([client.attach(VIDEOROOM), client.attach(STREAMING)]).then(
      ([videoroom, streaming]) => new JanusPlugins(client, { videoroom, streaming }, this.#adminKey),
    );
    return this.#admin;
  }

  #viewersChanged(room: string): void {
    for (const l of this.#viewerListeners) l(room);
  }

  #emit(room: string, state: PublisherState): void {
    for (const l of this.#listeners) l(room, state);
  }

  /** Closes a session whose media is not flowing by the connect timeout (a caller that never connects). */
  #deadline(id: string, connected: () => boolean): void {
    setTimeout(() => {
      if (this.#sessions.has(id) && !connected()) void this.close(id);
    }, this.config.connectTimeoutMs ?? CONNECT_TIMEOUT_MS).unref();
  }

  /** Publishes to one room one at a time: the check for a publisher there and the join are one step. */
  async publish(roomName: string, offer: string, opts: PublishOptions = {}): Promise<MediaSession> {
    if (opts.audioOnly) throw new AppError('audio_unavailable');
    checkOffer(offer);
    const before = this.#publishing.get(roomName) ?? Promise.resolve();
    const done = before
      .catch(() => undefined)
      .then(() => this.#publish(roomName, offer, opts.record !== false));
    const settled = done.catch(() => undefined);
    this.#publishing.set(roomName, settled);
    void settled.then(() => {
      if (this.#publishing.get(roomName) === settled) this.#publishing.delete(roomName);
    });
    return done;
  }

  async #publish(roomName: string, offer: string, record: boolean): Promise<MediaSession> {
    const current = this.#rooms.get(roomName);
    // One publisher at a time, connecting or connected (as the werift engine); one whose media
    // stopped may be replaced (its republish: the caller checked the token). One that vanished
    // is hung up by Janus, and one that never connects is closed at the connect timeout.
    if (current?.publisher && !current.publisher.stalled) throw new AppError('publisher_exists');
    const plugins = await this.#plugins();
    const client = plugins.client;
    const id = randomUUID();
    // A room pulled here until now has no VideoRoom room of its own yet.
    const janusRoom = current?.janusRoom || randomInt(1, 2 ** 47);
    if (!current?.janusRoom) await plugins.createRoom(janusRoom);
    const feed = randomInt(1, 2 ** 47);
    const publisher: Publisher = { id, handle: 0, feed, codecs: [], connected: false, stalled: false };
    publisher.handle = await client.attach(VIDEOROOM, (e) => this.#publisherEvent(roomName, publisher, e));
    this.#sessions.set(id, { room: roomName, role: 'publisher' });
    try {
      const joined = await client.async(
        publisher.handle,
        {
          request: 'joinandconfigure',
          room: janusRoom,
          ptype: 'publisher',
          id: feed,
          audio: true,
          video: true,
        },
        { type: 'offer', sdp: offer },
      );
      const answer = joined.jsep?.sdp;
      if (!answer) throw new AppError('bad_sdp');
      // A WHIP offer carries all its candidates.
      await client.trickle(publisher.handle, 'completed');
      const codecs = answeredSections(answer);
      if (!codecs.some((c) => c.kind === 'video')) throw new AppError('bad_sdp');
      publisher.codecs = codecs;
      const room = await this.#roomFor(roomName, janusRoom, codecs, current);
      room.janusRoom = janusRoom;
      const previous = room.publisher;
      room.publisher = publisher;
      if (previous && previous.id !== id) void this.#dropPublisher(previous);
      // A room pulled here until now is this node's own again (its publisher came here).
      if (room.pulled) {
        room.pulled.close();
        room.pulled = null;
      }
      await plugins.forward(janusRoom, feed, codecs, room.ports);
      // Other nodes pulling it get the new publisher on the forwards they have.
      for (const f of room.forwards.values()) {
        f.feed = feed;
        f.streamIds = (await plugins.forward(janusRoom, feed, codecs, f.target)).streamIds;
      }
      await this.#forwardHere(plugins, room, feed, codecs, id, record);
      this.#deadline(id, () => publisher.connected);
      return { id, answer, codecs: codecs.map((c) => c.name) };
    } catch (err) {
      this.#sessions.delete(id);
      await client.detach(publisher.handle);
      const room = this.#rooms.get(roomName);
      // It had taken the room over: the room is left without media, so it ends.
      if (room?.publisher === publisher) await this.closeRoom(roomName);
      else if (!room) await plugins.destroyRoom(janusRoom);
      throw err instanceof AppError ? err : new AppError('bad_sdp');
    }
  }

  /**
   * The room with a mountpoint for these codecs: the one there is when its viewers can take them
   * on the connections they have (a republish), else a new one (viewers of another ask again).
   */
  async #roomFor(
    name: string,
    janusRoom: number,
    codecs: (CodecChoice & { mid: string })[],
    current: Room | undefined,
  ) {
    if (current && this.#rooms.get(name) === current && sameMedia(current.codecs, codecs)) return current;
    if (current) await this.#endMountpoint(current);
    const ports = await this.#freePorts();
    const mountpoint = await this.#mountpoint(name, codecs, ports);
    const room: Room = {
      name,
      janusRoom,
      mountpoint,
      ports,
      codecs,
      publisher: current?.publisher ?? null,
      viewers: new Map(),
      forwarded: null,
      forwards: new Map(),
      pulled: null,
      flowed: false,
      relinking: false,
    };
    this.#rooms.set(name, room);
    return room;
  }

  async #freePorts(): Promise<ForwardTarget> {
    const [audio = 0, video = 0, videoRtcp = 0] = await freeUdpPorts(3, this.#forwardHost);
    return { host: this.#forwardHost, audio, video, videoRtcp };
  }

  /** A Streaming mountpoint taking `codecs` on `ports`; answers its id. */
  async #mountpoint(name: string, codecs: readonly CodecChoice[], ports: ForwardTarget): Promise<number> {
    const id = randomInt(1, 2 ** 47);
    await (await this.#plugins()).createMountpoint(id, name, codecs, ports);
    return id;
  }

  /**
   * The publisher forwarded to this process too, for what the werift engine does with its own
   * packets: LL-HLS (MEDIA_HLS) and the recording (RECORD_LIVES), see forwarded.ts. A republish
   * goes on in the same packaging, in a recording of its own.
   */
  async #forwardHere(
    plugins: JanusPlugins,
    room: Room,
    feed: number,
    codecs: (CodecChoice & { mid: string })[],
    publisherId: string,
    record: boolean,
  ): Promise<void> {
    room.forwarded ??= await ForwardedMedia.open({
      name: room.name,
      codecs: room.codecs,
      pt: { audio: AUDIO_PT, video: VIDEO_PT },
      hls: this.config.hls === true,
      recordDir: record ? this.config.recordDir : undefined,
      onRecorded: (recording) => {
        for (const l of this.#recordedListeners) l(room.name, recording);
      },
      keep: (task) => {
        this.#processing.add(task);
        void task.finally(() => this.#processing.delete(task));
      },
    });
    const forwarded = room.forwarded;
    if (!forwarded) return;
    const { rtcpPort } = await plugins.forward(room.janusRoom, feed, codecs, {
      ...forwarded.ports,
      host: '127.0.0.1',
    });
    forwarded.forwardedFrom(rtcpPort, publisherId);
  }

  #publisherEvent(roomName: string, publisher: Publisher, e: HandleEvent): void {
    const room = this.#rooms.get(roomName);
    const mine = room?.publisher === publisher;
    if (e.janus === 'webrtcup') {
      publisher.connected = true;
      if (mine) this.#emit(roomName, 'connected');
    } else if (e.janus === 'media' && e.type === 'video') {
      if (!mine || !publisher.connected || publisher.stalled === !e.receiving) return;
      publisher.stalled = !e.receiving;
      this.#emit(roomName, e.receiving ? 'connected' : 'interrupted');
    } else if (e.janus === 'hangup' || e.janus === 'detached') {
      // ICE failed (the publisher vanished) or DTLS closed (it left): its broadcast's media ends.
      if (this.#sessions.has(publisher.id)) void this.close(publisher.id);
    }
  }

  async #dropPublisher(p: Publisher): Promise<void> {
    this.#sessions.delete(p.id);
    const client = await this.#janus().catch(() => null);
    await client?.detach(p.handle);
  }

  async play(roomName: string, offer: string, opts: { relay?: boolean } = {}): Promise<MediaSession> {
    checkOffer(offer);
    const room = this.#rooms.get(roomName);
    if (!room?.publisher && !room?.pulled) throw new AppError('no_publisher');
    // Another node pulling over WHEP expects an answer to its offer: a site runs one engine.
    if (opts.relay) throw new AppError('no_publisher');
    const client = await this.#janus();
    const id = randomUUID();
    const viewer: Viewer = { id, handle: 0, connected: false };
    viewer.handle = await client.attach(STREAMING, (e) => this.#viewerEvent(roomName, viewer, e));
    room.viewers.set(id, viewer);
    this.#sessions.set(id, { room: roomName, role: 'viewer' });
    try {
      const watching = await client.async(viewer.handle, { request: 'watch', id: room.mountpoint });
      if (!watching.jsep?.sdp) throw new AppError('bad_sdp');
      this.#deadline(id, () => viewer.connected);
      // Janus 1.1.2 makes the offer: the viewer answers it (accept).
      return { id, answer: watching.jsep.sdp, codecs: room.codecs.map((c) => c.name), offer: true };
    } catch (err) {
      await this.close(id);
      throw err instanceof AppError ? err : new AppError('bad_sdp');
    }
  }

  async accept(sessionId: string, answer: string): Promise<void> {
    const s = this.#sessions.get(sessionId);
    const viewer = s?.role === 'viewer' ? this.#rooms.get(s.room)?.viewers.get(sessionId) : undefined;
    if (!viewer) throw new AppError('media_session_not_found');
    checkOffer(answer);
    const client = await this.#janus();
    await client.async(viewer.handle, { request: 'start' }, { type: 'answer', sdp: answer });
    await client.trickle(viewer.handle, 'completed');
  }

  #viewerEvent(roomName: string, viewer: Viewer, e: HandleEvent): void {
    if (e.janus === 'webrtcup') {
      viewer.connected = true;
      this.#viewersChanged(roomName);
    } else if (e.janus === 'hangup' || e.janus === 'detached') {
      if (this.#sessions.has(viewer.id)) void this.close(viewer.id);
    }
  }

  /**
   * A room published on another node, here for this node's viewers: the origin forwards it as
   * plain RTP to a mountpoint of this node's Janus (PullLink.forward). Viewers arriving together
   * share one pull; a pull whose media stops pulls again from where the broadcast is now.
   */
  pull(roomName: string, link: PullLink): Promise<void> {
    if (this.#rooms.has(roomName)) return Promise.resolve();
    const under = this.#pulling.get(roomName);
    if (under) return under;
    const pulling = this.#pull(roomName, link).finally(() => this.#pulling.delete(roomName));
    this.#pulling.set(roomName, pulling);
    return pulling;
  }

  async #pull(roomName: string, link: PullLink): Promise<void> {
    if (!link.forward) throw new AppError('no_publisher');
    const ports = await this.#freePorts();
    const { codecs } = await link.forward(ports);
    if (!codecs.some((c) => c.kind === 'video')) {
      link.close();
      throw new AppError('no_publisher');
    }
    let mountpoint: number;
    try {
      mountpoint = await this.#mountpoint(roomName, codecs, ports);
    } catch (err) {
      link.close();
      throw err;
    }
    this.#rooms.set(roomName, {
      name: roomName,
      janusRoom: 0,
      mountpoint,
      ports,
      codecs,
      publisher: null,
      viewers: new Map(),
      forwarded: null,
      forwards: new Map(),
      pulled: link,
      flowed: false,
      relinking: false,
    });
  }

  /**
   * A room published here whose publisher went to another node: its viewers stay on the
   * mountpoint, which the new origin forwards to from now on (the local publisher is let go).
   */
  async follow(roomName: string, link: PullLink): Promise<void> {
    const room = this.#rooms.get(roomName);
    if (!room || room.pulled || !link.forward) throw new AppError('no_publisher');
    const { codecs } = await link.forward(room.ports);
    if (!sameMedia(room.codecs, codecs)) {
      link.close();
      throw new AppError('no_publisher');
    }
    const client = await this.#janus();
    if (room.publisher) {
      this.#sessions.delete(room.publisher.id);
      await client.detach(room.publisher.handle);
      room.publisher = null;
    }
    room.forwarded?.stop();
    room.forwarded = null;
    room.pulled = link;
    room.flowed = false;
  }

  /** Forwards a room published here to another node's mountpoint (its pull, see `pull`). */
  async forwardTo(roomName: string, target: ForwardTarget): Promise<Forwarded> {
    const room = this.#rooms.get(roomName);
    const publisher = room?.publisher;
    if (!room || !publisher) throw new AppError('no_publisher');
    const plugins = await this.#plugins();
    const { streamIds } = await plugins.forward(room.janusRoom, publisher.feed, publisher.codecs, target);
    const id = randomUUID();
    room.forwards.set(id, { target, feed: publisher.feed, streamIds });
    this.#sessions.set(id, { room: roomName, role: 'viewer' });
    return { id, codecs: room.codecs.map(({ kind, name, fmtp }) => ({ kind, name, fmtp })) };
  }

  /** Pulled rooms whose media stopped (their origin died or moved) pull again. */
  async #checkPulls(): Promise<void> {
    for (const room of this.#rooms.values()) {
      if (!room.pulled || room.relinking) continue;
      const age = await this.#mediaAge(room);
      if (age === null) continue;
      if (age < PULL_STALL_MS) room.flowed = true;
      else if (room.flowed) void this.#relink(room);
    }
  }

  /** Milliseconds since the room's mountpoint last received video; null when unknown. */
  async #mediaAge(room: Room): Promise<number | null> {
    const client = this.#client ? await this.#client.catch(() => null) : null;
    if (!client || client.closed) return null;
    return (await this.#plugins()).videoAge(room.mountpoint);
  }

  async #relink(room: Room): Promise<void> {
    room.relinking = true;
    try {
      for (;;) {
        const link = room.pulled;
        if (!link || this.#rooms.get(room.name) !== room) return;
        const next = link.again ? await link.again().catch(() => 'wait' as const) : 'over';
        if (next === 'over') return await this.closeRoom(room.name);
        if (next === 'wait') {
          await new Promise((r) => setTimeout(r, PULL_CHECK_MS * 2));
          continue;
        }
        if (!next.forward) return await this.closeRoom(room.name);
        const got = await next.forward(room.ports).catch(() => null);
        if (!got) {
          next.close();
          await new Promise((r) => setTimeout(r, PULL_CHECK_MS * 2));
          continue;
        }
        link.close();
        // Viewers agreed on other codecs: the room ends, and they ask again.
        if (!sameMedia(room.codecs, got.codecs)) {
          room.pulled = next;
          return await this.closeRoom(room.name);
        }
        room.pulled = next;
        room.flowed = false;
        return;
      }
    } finally {
      room.relinking = false;
    }
  }

  async addCandidates(sessionId: string, fragment: string): Promise<void> {
    const s = this.#sessions.get(sessionId);
    const room = s ? this.#rooms.get(s.room) : undefined;
    const handle = s?.role === 'publisher' ? room?.publisher?.handle : room?.viewers.get(sessionId)?.handle;
    if (!handle) throw new AppError('media_session_not_found');
    let mid = '0';
    const candidates: { sdpMid: string; candidate: string }[] = [];
    for (const line of fragment.split(/\r?\n/)) {
      if (line.startsWith('a=mid:')) mid = line.slice(6);
      if (!line.startsWith('a=candidate:')) continue;
      if (!allowedCandidate(line, this.config.allowPrivateCandidates ?? false)) continue;
      candidates.push({ sdpMid: mid, candidate: line.slice(2) });
    }
    if (candidates.length) await (await this.#janus()).trickle(handle, candidates);
  }

  async close(sessionId: string): Promise<void> {
    const s = this.#sessions.get(sessionId);
    if (!s) return;
    this.#sessions.delete(sessionId);
    const room = this.#rooms.get(s.room);
    if (!room) return;
    const forward = room.forwards.get(sessionId);
    if (forward) {
      room.forwards.delete(sessionId);
      await this.#stopForward(room, forward);
      return;
    }
    if (s.role === 'viewer') {
      const viewer = room.viewers.get(sessionId);
      room.viewers.delete(sessionId);
      if (viewer) await (await this.#janus().catch(() => null))?.detach(viewer.handle);
      this.#viewersChanged(s.room);
      return;
    }
    if (room.publisher?.id !== sessionId) return;
    await this.closeRoom(s.room);
  }

  async #stopForward(room: Room, f: Forward): Promise<void> {
    const client = await this.#janus().catch(() => null);
    if (!client || client.closed || !room.janusRoom) return;
    await (await this.#plugins()).stopForward(room.janusRoom, f.feed, f.streamIds);
  }

  async #endMountpoint(room: Room): Promise<void> {
    room.forwarded?.stop();
    room.forwarded = null;
    const client = await this.#janus().catch(() => null);
    for (const viewer of room.viewers.values()) {
      this.#sessions.delete(viewer.id);
      await client?.detach(viewer.handle);
    }
    room.viewers.clear();
    if (!client || client.closed) return;
    await (await this.#plugins()).destroyMountpoint(room.mountpoint);
  }

  async closeRoom(roomName: string): Promise<void> {
    const room = this.#rooms.get(roomName);
    if (!room) return;
    this.#rooms.delete(roomName);
    const client = await this.#janus().catch(() => null);
    if (room.publisher) {
      this.#sessions.delete(room.publisher.id);
      await client?.detach(room.publisher.handle);
    }
    for (const id of room.forwards.keys()) this.#sessions.delete(id);
    room.forwards.clear();
    await this.#endMountpoint(room);
    if (client && !client.closed && room.janusRoom) await (await this.#plugins()).destroyRoom(room.janusRoom);
    this.#viewersChanged(roomName);
    // A pulled room's broadcast is its origin's: only the origin's forward for it ends.
    if (room.pulled) room.pulled.close();
    else this.#emit(roomName, 'closed');
  }

  /** A room whose Janus session is gone: nothing to end in Janus, only here. */
  #forget(roomName: string): void {
    const room = this.#rooms.get(roomName);
    if (!room) return;
    this.#rooms.delete(roomName);
    room.forwarded?.stop();
    if (room.publisher) this.#sessions.delete(room.publisher.id);
    for (const id of room.viewers.keys()) this.#sessions.delete(id);
    this.#viewersChanged(roomName);
    this.#emit(roomName, 'closed');
  }

  room(name: string): { viewers: number; pulled: boolean } | null {
    const room = this.#rooms.get(name);
    if (!room?.publisher && !room?.pulled) return null;
    let viewers = 0;
    for (const v of room.viewers.values()) if (v.connected) viewers++;
    return { viewers, pulled: room.pulled !== null };
  }

  hls(name: string): HlsStream | null {
    return this.#rooms.get(name)?.forwarded?.hls ?? null;
  }

  names(): string[] {
    return [...this.#rooms.keys()];
  }

  session(sessionId: string): SessionInfo | null {
    const s = this.#sessions.get(sessionId);
    if (!s) return null;
    const room = this.#rooms.get(s.room);
    const connected =
      s.role === 'publisher'
        ? room?.publisher?.id === sessionId && room.publisher.connected
        : room?.viewers.get(sessionId)?.connected === true || room?.forwards.has(sessionId) === true;
    return { room: s.room, role: s.role, connected };
  }

  onViewers(listener: (room: string) => void): () => void {
    this.#viewerListeners.add(listener);
    return () => this.#viewerListeners.delete(listener);
  }

  onRecorded(listener: (room: string, recording: Recording) => void): () => void {
    this.#recordedListeners.add(listener);
    return () => this.#recordedListeners.delete(listener);
  }

  onPublisher(listener: (room: string, state: PublisherState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  stats(): MediaStats {
    let viewers = 0;
    let publishers = 0;
    let pulled = 0;
    let forwards = 0;
    for (const room of this.#rooms.values()) {
      viewers += room.viewers.size;
      forwards += room.forwards.size;
      if (room.publisher) publishers++;
      if (room.pulled) pulled++;
    }
    // Other nodes' forwards cost what a viewer does (one more copy of every packet).
    viewers += forwards;
    return {
      rooms: this.#rooms.size,
      publishers,
      pulled,
      viewers,
      peerConnections: publishers + viewers - forwards,
    };
  }

  async shutdown(): Promise<void> {
    clearInterval(this.#pullCheck);
    for (const name of [...this.#rooms.keys()]) await this.closeRoom(name);
    await Promise.all([...this.#processing]);
    this.#shuttingDown = true;
    const client = this.#client ? await this.#client.catch(() => null) : null;
    client?.close();
    this.#client = null;
    await this.#process?.stop();
    this.#process = null;
  }
}
