import { randomUUID } from 'node:crypto';
import {
  RTCPeerConnection,
  // werift's names for header extensions (not React hooks).
  useSdesMid as midExtension,
  useSdesRTPStreamId as ridExtension,
  type RTCRtpTransceiver,
} from 'werift';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../common/errors';
import { allowedCandidate } from './addresses';
import { publicPairsOnly, waitForPeer } from './ice';
import type {
  LayerState,
  LayerWish,
  MediaConfig,
  MediaEngine,
  MediaSession,
  MediaStats,
  PublisherState,
  PublishOptions,
  PullLink,
  Recording,
  SessionInfo,
} from './engine';
import { Fanout, type Forwarder } from './fanout';
import { packageRoom } from './hls/room';
import type { HlsStream } from './hls/stream';
import { LeanSender } from './lean-forward';
import { simulcastRids } from './simulcast';
import { ViewerLayers } from './viewer-layers';
import { VideoLayer } from './video-layer';
import { finishRecording, LiveRecording } from './recording';
import { FrameGrabber } from './frames';
import {
  checkOffer,
  sameMedia,
  inactiveNotRejected,
  publisherChoice,
  selectCodecs,
  viewerChoice,
  withoutForbiddenCandidates,
  withStartBitrate,
  type CodecChoice,
  type InactiveSection,
} from './sdp';
import { dialOrigin } from './werift-pull';
import {
  answerOf,
  codecParams,
  fresh,
  LAYERS_ATTRIBUTE,
  layerCount,
  layerNames,
  placeholderParams,
  videoCodec,
  type Room,
  type Source,
  type Viewer,
} from './werift-room';

/** A session whose media does not flow by then is closed (MediaConfig.connectTimeoutMs). */
const CONNECT_TIMEOUT_MS = 15_000;
/**
 * A connected publisher that sends nothing for this long is reported interrupted (its tab
 * crashed or its network went): ICE consent would take 30 s to notice, viewers watch a frozen
 * frame meanwhile. Cameras send frames, and Opus at least every 400 ms, whatever the scene.
 */
const STALL_MS = 2500;
/**
 * A pulled room that receives nothing for this long pulls again (its origin died, or the link
 * between the nodes broke): an origin always sends something, Opus at least every 400 ms. Not
 * shorter: on a busy machine a second without packets happens, and each pull again costs the
 * viewers a keyframe.
 */
const PULL_STALL_MS = 1500;
/** How often stalls are looked for (a publisher is judged every STALL_MS, a pull every PULL_STALL_MS). */
const CHECK_MS = 250;
/** An edge that lost its origin asks where the broadcast is now this often, for at most RELINK_MS. */
const RELINK_EVERY_MS = 250;
const RELINK_MS = 30_000;

/**
 * The answer's hint to a simulcast publisher (Chromium) to start at this bitrate (kbit/s), so that
 * it sends every layer from the start: it otherwise starts at 300 kbit/s, sends the smallest only,
 * and takes some 20 s of receiver reports to reach the largest (see docs/media-engines.md).
 */
const SIMULCAST_START_KBPS = 2500;

/**
 * An SFU in this process on werift: one receiving peer connection per room's publisher, one
 * sending peer connection per viewer, RTP forwarded as it arrives (each viewer gets its own copy
 * of a packet: werift rewrites headers in place and keeps them for retransmission).
 */
export class WeriftEngine implements MediaEngine {
  readonly cascades = true;
  readonly audioOnly = true;
  readonly #rooms = new Map<string, Room>();
  readonly #frames: FrameGrabber | null;
  readonly #sessions = new Map<
    string,
    { room: string; role: 'publisher' | 'viewer'; pc: RTCPeerConnection }
  >();
  readonly #listeners = new Set<(room: string, state: PublisherState) => void>();
  readonly #viewerListeners = new Set<(room: string) => void>();
  readonly #recordedListeners = new Set<(room: string, recording: Recording) => void>();
  /** Recordings being rewrapped; shutdown waits for them. */
  readonly #processing = new Set<Promise<void>>();
  readonly #stallCheck: NodeJS.Timeout;
  /** Pulls under way, by room: viewers arriving together share one. */
  readonly #pulling = new Map<string, Promise<void>>();

  constructor(private readonly config: MediaConfig) {
    if (config.recordDir) mkdirSync(config.recordDir, { recursive: true });
    this.#frames = config.frames ? new FrameGrabber(config.frames) : null;
    this.#stallCheck = setInterval(() => this.#checkStalls(), CHECK_MS);
    this.#stallCheck.unref();
  }

  /**
   * Publishers whose media stopped (or came back) since they were last judged: interrupted (or
   * connected). A pull whose media stopped pulls again, from wherever the broadcast is now.
   */
  #checkStalls(): void {
    const now = performance.now();
    for (const room of this.#rooms.values()) {
      const connected = room.pc.connectionState === 'connected';
      if (room.received !== room.seen) {
        room.seen = room.received;
        room.flowedAt = now;
      }
      if (room.pulled) {
        // One that never received anything waits: its publisher may still be connecting.
        if (connected && room.received > 0 && now - room.flowedAt >= PULL_STALL_MS) void this.#relink(room);
        continue;
      }
      if (now - room.judgedAt < STALL_MS) continue;
      room.judgedAt = now;
      const watched = room.watched;
      room.watched = connected;
      const flowing = now - room.flowedAt < STALL_MS;
      if (!connected || !watched || flowing === !room.stalled) continue;
      room.stalled = !flowing;
      this.#emit(room.name, flowing ? 'connected' : 'interrupted');
    }
  }

  /** `simulcast`: a publisher's connection that takes several video streams told apart by RID. */
  #peer(codecs: CodecChoice[], inactive: InactiveSection[], simulcast = false): RTCPeerConnection {
    // An edge's offer has a video section per layer, all in the same codec: listed once.
    const once = codecs.filter(
      (c, i) => codecs.findIndex((d) => d.kind === c.kind && d.name === c.name && d.fmtp === c.fmtp) === i,
    );
    const of = (kind: 'audio' | 'video') => [
      ...once.filter((c) => c.kind === kind).map(codecParams),
      ...inactive.filter((c) => c.kind === kind).map(placeholderParams),
    ];
    const pc = new RTCPeerConnection({
      codecs: { audio: of('audio'), video: of('video') },
      iceServers: this.config.iceServers,
      ...(this.config.portRange ? { icePortRange: this.config.portRange } : {}),
      ...(this.config.hostAddresses.length ? { iceAdditionalHostAddresses: this.config.hostAddresses } : {}),
      ...(this.config.allowPrivateCandidates ? {} : { iceFilterCandidatePair: publicPairsOnly }),
      iceUseIpv6: false,
      ...(simulcast
        ? { headerExtensions: { video: [midExtension(), ridExtension()], audio: [midExtension()] } }
        : {}),
    });
    return pc;
  }

  /** Sets the caller's offer; the agent will wait for the caller's checks (see waitForPeer). */
  async #offer(pc: RTCPeerConnection, sdp: string): Promise<void> {
    await pc.setRemoteDescription({ type: 'offer', sdp });
    waitForPeer(pc, this.config.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
  }

  /** The offer as the engine may use it: codecs trimmed, and no candidates it may not send to. */
  #prepare(offer: string, choose: Parameters<typeof selectCodecs>[1]) {
    const usable = withoutForbiddenCandidates(offer, this.config.allowPrivateCandidates ?? false);
    checkOffer(usable);
    return selectCodecs(usable, choose);
  }

  /**
   * Registers a session: closed if its media is not flowing within the connect timeout (a caller
   * may send offers and never connect), and closed when its connection fails.
   */
  #track(id: string, room: string, role: 'publisher' | 'viewer', pc: RTCPeerConnection): void {
    this.#sessions.set(id, { room, role, pc });
    const timer = setTimeout(() => {
      if (pc.connectionState !== 'connected') void this.close(id);
    }, this.config.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
    timer.unref();
    pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected') clearTimeout(timer);
      else if (state === 'closed' || state === 'failed') clearTimeout(timer);
      if (role === 'viewer') this.#viewersChanged(room);
    });
  }

  #viewersChanged(room: string): void {
    for (const l of this.#viewerListeners) l(room);
  }

  #emit(room: string, state: PublisherState): void {
    for (const l of this.#listeners) l(room, state);
  }

  async publish(roomName: string, offer: string, opts: PublishOptions = {}): Promise<MediaSession> {
    const choose = publisherChoice(offer);
    const { sdp, chosen, inactive } = this.#prepare(
      offer,
      opts.audioOnly ? (kind, name, fmtp) => kind === 'audio' && choose(kind, name, fmtp) : choose,
    );
    if (!chosen.some((c) => c.kind === (opts.audioOnly ? 'audio' : 'video'))) throw new AppError('bad_sdp');
    const rids = simulcastRids(sdp);
    const current = this.#rooms.get(roomName);
    // One publisher at a time; one whose connection dropped, or whose media stopped, may be
    // replaced (its republish: the caller checked the token).
    if (
      current &&
      !current.pulled &&
      !current.stalled &&
      ['new', 'connecting', 'connected'].includes(current.pc.connectionState)
    )
      throw new AppError('publisher_exists');
    const pc = this.#peer(chosen, inactive, rids.length > 1);
    const id = randomUUID();
    const source: Source = { publisherId: id, pc, codecs: chosen, pulled: null, rids, sections: 1 };
    let room: Room;
    // Claimed before any await: a second publisher racing this one gets publisher_exists.
    if (current && sameMedia(current.codecs, chosen) && current.layers.length === layerCount(source)) {
      // A republish, or the publisher arriving at a node that pulled its broadcast: the viewers
      // here stay on their connections, and the picture goes on from the new source's keyframe.
      room = current;
      this.#swap(room, source);
    } else {
      if (current) {
        // Viewers agreed on other codecs: they ask again, and are answered in these.
        await this.closeRoom(roomName);
        if (this.#rooms.has(roomName)) throw new AppError('publisher_exists');
      }
      room = this.#room(roomName, source);
      this.#rooms.set(roomName, room);
    }
    this.#track(id, roomName, 'publisher', pc);
    const off = new Set(inactive.map((s) => s.mid));
    this.#receive(room, off);
    const mine = () => this.#rooms.get(roomName) === room && room.pc === pc;
    pc.connectionStateChange.subscribe((state) => {
      if (!mine()) return;
      if (state === 'connected') {
        this.#emit(roomName, 'connected');
        // Viewers kept from an earlier source need a keyframe of this one.
        this.#requestKeyframes(room);
      } else if (state === 'disconnected') this.#emit(roomName, 'interrupted');
      else if (state === 'failed') void this.close(id);
    });
    try {
      await this.#offer(pc, sdp);
      for (const transceiver of pc.getTransceivers())
        if (off.has(transceiver.mid ?? '')) transceiver.setDirection('inactive');
      // Recorded from the video's first keyframe, with every track there by then (tracks come
      // with the offer: werift announces them as it reads it).
      if (room.tracks.has('video') && opts.record !== false) this.#record(room);
      this.#package(room);
      const answer = inactiveNotRejected(await answerOf(pc));
      return {
        id,
        answer: rids.length > 1 ? withStartBitrate(answer, SIMULCAST_START_KBPS) : answer,
        codecs: chosen.map((c) => c.name),
      };
    } catch (err) {
      await this.close(id);
      throw err instanceof AppError ? err : new AppError('bad_sdp');
    }
  }

  /** A room receiving from `source`: published here (`pulled` null) or pulled over `pulled`. */
  #room(name: string, source: Source): Room {
    const batched = this.config.forward !== 'werift';
    const video = videoCodec(source.codecs);
    const layers = Array.from({ length: layerCount(source) }, () => new VideoLayer(batched, video));
    return {
      name,
      ...fresh(source),
      fanout: { audio: new Fanout(batched, 48_000), video: (layers.at(-1) as VideoLayer).fanout },
      layers,
      viewers: new Map(),
      epoch: 0,
      hls: null,
    };
  }

  /**
   * Feeds the room from another source, keeping its viewers (see StreamContinuity): the earlier
   * source's connection closes, its pull link (if any) ends, its recording is finished.
   */
  #swap(room: Room, source: Source): void {
    const before = { pc: room.pc, pulled: room.pulled, publisherId: room.publisherId };
    const recording = { name: room.name, recording: room.recording, codecs: room.codecs };
    this.#sessions.delete(before.publisherId);
    Object.assign(room, fresh(source));
    room.epoch++;
    // The broadcast's packaging is its origin's: a room that now pulls it stops packaging it
    // (one that now has its publisher goes on, on the same timeline: see StreamContinuity).
    if (source.pulled) this.#stopPackaging(room);
    room.fanout.audio.continuity.rebase();
    const video = videoCodec(source.codecs);
    for (const layer of room.layers) layer.reset(video);
    before.pulled?.close();
    void before.pc.close().catch(() => undefined);
    void this.#finishRecording(recording).catch(() => undefined);
  }

  /** Takes the tracks that reach the room's receiving connection (but sections in `off`). */
  #receive(room: Room, off: Set<string>): void {
    const pc = room.pc;
    pc.ontrack = ({ track, transceiver }) => {
      // A section answered inactive (say, audio in a codec we cannot use) carries nothing.
      if (off.has(transceiver.mid ?? '')) return;
      if (room.pc !== pc) return;
      if (track.kind === 'audio') {
        room.tracks.set('audio', { track, transceiver });
        // One subscription per track; each packet is kept once and handed to every viewer.
        const fanout = room.fanout.audio;
        track.onReceiveRtp.subscribe((rtp) => {
          // A source replaced by another may still deliver a packet or two.
          if (room.pc !== pc) return;
          room.received++;
          fanout.push(rtp);
        });
        return;
      }
      if (track.kind !== 'video') return;
      // Simulcast: one track per RID, each feeding its layer (only the largest when the layers
      // are not switched between: see layerCount); a pull: one section per layer.
      const tracks = room.rids.length > 1 ? transceiver.receiver.tracks : [track];
      const main = room.layers.length - 1;
      const section = pc
        .getTransceivers()
        .filter((t) => t.kind === 'video')
        .indexOf(transceiver);
      for (const t of tracks) {
        const i = room.pulled ? section : room.rids.length <= 1 ? 0 : layerNames(room).indexOf(t.rid ?? '');
        const layer = room.layers[i];
        if (!layer) continue;
        if (i === main) room.tracks.set('video', { track: t, transceiver });
        t.onReceiveRtp.subscribe((rtp) => {
          if (room.pc !== pc) return;
          room.received++;
          layer.push(rtp, transceiver.receiver);
        });
      }
    };
  }

  pull(roomName: string, link: PullLink): Promise<void> {
    if (this.#rooms.has(roomName)) return Promise.resolve();
    let pulling = this.#pulling.get(roomName);
    if (!pulling) {
      pulling = this.#pull(roomName, link).finally(() => this.#pulling.delete(roomName));
      this.#pulling.set(roomName, pulling);
    }
    return pulling;
  }

  /**
   * Offers the origin to receive its room (as a WHEP player does), and makes the room here once
   * it answers: its codecs are the origin's.
   */
  async #pull(roomName: string, link: PullLink): Promise<void> {
    const dialed = await dialOrigin(link, this.config);
    const room = this.#room(roomName, dialed.source);
    this.#rooms.set(roomName, room);
    await this.#connectPull(room, dialed.answer);
  }

  async follow(roomName: string, link: PullLink): Promise<void> {
    const room = this.#rooms.get(roomName);
    if (!room || room.pulled) return;
    const { source, answer } = await dialOrigin(link, this.config);
    const epoch = room.epoch;
    if (
      this.#rooms.get(roomName) !== room ||
      room.epoch !== epoch ||
      !sameMedia(room.codecs, source.codecs) ||
      room.layers.length !== layerCount(source)
    ) {
      source.pulled?.close();
      await source.pc.close().catch(() => undefined);
      throw new AppError('no_publisher');
    }
    this.#swap(room, source);
    await this.#connectPull(room, answer);
  }

  /** Feeds the room from its pull connection (tracks are announced as the answer is set). */
  async #connectPull(room: Room, answer: string): Promise<void> {
    const pc = room.pc;
    this.#receive(room, new Set());
    const mine = () => this.#rooms.get(room.name) === room && room.pc === pc;
    const timer = setTimeout(() => {
      if (mine() && pc.connectionState !== 'connected') void this.#relink(room);
    }, this.config.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
    timer.unref();
    pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected') {
        clearTimeout(timer);
        // Viewers that joined while the link was connecting get a picture at once.
        if (mine()) this.#requestKeyframes(room);
      } else if (state === 'failed' || state === 'closed') {
        clearTimeout(timer);
        if (mine()) void this.#relink(room);
      }
    });
    try {
      await pc.setRemoteDescription({ type: 'answer', sdp: answer });
    } catch {
      if (mine()) void this.#relink(room);
    }
  }

  /**
   * A pulled room lost its origin (the link failed, or its media stopped): its viewers stay while
   * it asks where the broadcast is now (PullLink.again) and pulls from there, in the codecs they
   * agreed on. It closes, and its viewers ask again, when the broadcast is over, when the new
   * source sends other codecs, or after RELINK_MS without one.
   */
  async #relink(room: Room): Promise<void> {
    const lost = room.pulled;
    if (room.relinking || !lost) return;
    room.relinking = true;
    const epoch = room.epoch;
    const current = () => this.#rooms.get(room.name) === room && room.epoch === epoch;
    lost.close();
    void room.pc.close().catch(() => undefined);
    const deadline = Date.now() + RELINK_MS;
    try {
      while (current()) {
        const next = lost.again ? await lost.again().catch(() => 'wait' as const) : 'over';
        if (!current()) return;
        if (next === 'over' || Date.now() > deadline) {
          await this.closeRoom(room.name);
          return;
        }
        if (next !== 'wait') {
          const dialed = await dialOrigin(next, this.config).catch(() => null);
          if (dialed && !current()) {
            dialed.source.pulled?.close();
            await dialed.source.pc.close().catch(() => undefined);
            return;
          }
          if (dialed) {
            if (
              !sameMedia(room.codecs, dialed.source.codecs) ||
              room.layers.length !== layerCount(dialed.source)
            ) {
              dialed.source.pulled?.close();
              await dialed.source.pc.close().catch(() => undefined);
              await this.closeRoom(room.name);
              return;
            }
            this.#swap(room, dialed.source);
            await this.#connectPull(room, dialed.answer);
            return;
          }
        }
        await new Promise((r) => setTimeout(r, RELINK_EVERY_MS));
      }
    } finally {
      if (room.epoch === epoch) room.relinking = false;
    }
  }

  async play(roomName: string, offer: string, opts: { relay?: boolean } = {}): Promise<MediaSession> {
    const room = this.#rooms.get(roomName);
    if (!room) {
      checkOffer(offer);
      throw new AppError('no_publisher');
    }
    // What the publisher does not send (a camera without a microphone: no audio) is answered
    // inactive rather than refusing the viewer.
    const { sdp, chosen, inactive } = this.#prepare(offer, viewerChoice(room.codecs));
    // A viewer of a broadcast takes its picture; of an audio room, its sound.
    const needs = room.codecs.some((c) => c.kind === 'video') ? 'video' : 'audio';
    if (!chosen.some((c) => c.kind === needs)) throw new AppError('bad_sdp');
    const pc = this.#peer(chosen, inactive);
    const id = randomUUID();
    const viewer: Viewer = { id, pc, unsubscribe: [], relay: opts.relay === true, layers: null };
    room.viewers.set(id, viewer);
    this.#track(id, roomName, 'viewer', pc);
    pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected') {
        if (viewer.layers) viewer.layers.keyframe();
        else this.#requestKeyframe(room, true);
      }
      if (state === 'failed' || state === 'closed') void this.close(id);
    });
    const off = new Set(inactive.map((s) => s.mid));
    try {
      await this.#offer(pc, sdp);
      // A relay (another node) offering a video section per layer gets each layer in its own,
      // lowest first; sections past the room's layers carry nothing.
      const sections = pc.getTransceivers().filter((t) => t.kind === 'video' && !off.has(t.mid ?? ''));
      const perLayer = viewer.relay && sections.length > 1;
      for (const transceiver of pc.getTransceivers()) {
        const kind = transceiver.kind;
        if (kind !== 'audio' && kind !== 'video') continue;
        const section = kind === 'video' ? sections.indexOf(transceiver) : 0;
        const layer = perLayer && kind === 'video' ? room.layers[section] : undefined;
        if (off.has(transceiver.mid ?? '') || (kind === 'video' && section > 0 && !layer)) {
          transceiver.setDirection('inactive');
          continue;
        }
        transceiver.setDirection('sendonly');
        // Viewers switch between a simulcast publisher's layers; relays that pull one stream
        // and the werift-sender baseline take the largest.
        if (kind === 'video' && room.layers.length > 1 && !viewer.relay && this.config.forward !== 'werift') {
          const layers = new ViewerLayers(room.layers, layerNames(room), transceiver.sender);
          viewer.layers = layers;
          viewer.unsubscribe.push(() => layers.close());
        } else this.#forward(room, viewer, kind, transceiver, layer);
      }
      let answer = inactiveNotRejected(await answerOf(pc));
      const rids = layerNames(room);
      if (perLayer && room.layers.length > 1 && rids.length === room.layers.length)
        answer = answer.replace(/\r\nm=/, `\r\n${LAYERS_ATTRIBUTE}${rids.join(',')}\r\nm=`);
      return { id, answer, codecs: chosen.map((c) => c.name) };
    } catch (err) {
      await this.close(id);
      throw err instanceof AppError ? err : new AppError('bad_sdp');
    }
  }

  /**
   * Sends the publisher's packets of one kind to a viewer's transceiver (from its next packet):
   * the room's main video, or `layer`'s.
   */
  #forward(
    room: Room,
    viewer: Viewer,
    kind: 'audio' | 'video',
    out: RTCRtpTransceiver,
    layer?: VideoLayer,
  ): void {
    const fanout = layer?.fanout ?? room.fanout[kind];
    const forwarder: Forwarder =
      this.config.forward === 'werift'
        ? { send: (rtp) => void out.sender.sendRtp(rtp.clone()) }
        : new LeanSender(out.sender, fanout.history);
    fanout.forwarders.add(forwarder);
    viewer.unsubscribe.push(() => {
      fanout.forwarders.delete(forwarder);
      forwarder.close?.();
    });
    if (kind === 'video') {
      const { unSubscribe } = out.sender.onPictureLossIndication.subscribe(() =>
        layer ? layer.requestKeyframe() : this.#requestKeyframe(room),
      );
      viewer.unsubscribe.push(unSubscribe);
    }
  }

  /** Records the publisher's packets as they are (no transcoding): see LiveRecording. */
  #record(room: Room): void {
    const video = room.tracks.get('video');
    const codec = room.codecs.find((c) => c.kind === 'video')?.name;
    if (!this.config.recordDir || room.recording || !video || !codec) return;
    const file = `${room.name}-${room.publisherId}.webm`;
    const live = new LiveRecording({
      path: join(this.config.recordDir, file),
      codec,
      video: video.track,
      tracks: [...room.tracks.values()].map((t) => t.track),
      requestKeyframe: () => this.#requestKeyframe(room, true),
    });
    room.recording = { live, file };
  }

  /** Packages a room published here as LL-HLS (see packageRoom), when that is on. */
  #package(room: Room): void {
    if (!this.config.hls || room.pulled || room.hls) return;
    room.hls = packageRoom({
      codecs: room.codecs,
      fanout: room.fanout,
      requestKeyframe: (force) => this.#requestKeyframe(room, force),
      lastKeyframeRequest: () => (room.layers.at(-1) as VideoLayer).lastPli,
    });
  }

  #stopPackaging(room: Room): void {
    room.hls?.stop();
    room.hls = null;
  }

  hls(name: string): HlsStream | null {
    return this.#rooms.get(name)?.hls?.stream ?? null;
  }

  /** Closes the room's recording file; rewrapping it and telling listeners go on in the background. */
  async #finishRecording(room: Pick<Room, 'name' | 'recording' | 'codecs'>): Promise<void> {
    const rec = room.recording;
    const dir = this.config.recordDir;
    if (!rec || !dir) return;
    room.recording = null;
    const times = await rec.live.stop();
    if (!times) return;
    const h264 = room.codecs.some((c) => c.name === 'H264');
    const task = finishRecording(dir, rec.file, h264, times).then((recording) => {
      if (recording) for (const l of this.#recordedListeners) l(room.name, recording);
    });
    this.#processing.add(task);
    void task.finally(() => this.#processing.delete(task));
  }

  onRecorded(listener: (room: string, recording: Recording) => void): () => void {
    this.#recordedListeners.add(listener);
    return () => this.#recordedListeners.delete(listener);
  }

  /** A keyframe of the room's main video (see VideoLayer.requestKeyframe). */
  /** A still of a room published (not pulled) here; see FrameGrabber. */
  frame(roomName: string): Promise<Buffer | null> {
    if (!this.#frames) return Promise.resolve(null);
    const room = this.#rooms.get(roomName);
    const video = room && !room.pulled ? room.tracks.get('video') : undefined;
    const codec = room?.codecs.find((c) => c.kind === 'video')?.name;
    return this.#frames.frame(
      roomName,
      room && video && codec
        ? { track: video.track, codec, requestKeyframe: () => this.#requestKeyframe(room, true) }
        : null,
    );
  }

  #requestKeyframe(room: Room, force = false): void {
    (room.layers.at(-1) as VideoLayer).requestKeyframe(force);
  }

  /** Keyframes of every layer at once: a new source, whose viewers all wait for a picture. */
  #requestKeyframes(room: Room): void {
    for (const layer of room.layers) layer.requestKeyframe(true);
  }

  /** The viewer's layers, when its room has some to switch between. */
  #layered(sessionId: string): ViewerLayers | null {
    const s = this.#sessions.get(sessionId);
    const room = s?.role === 'viewer' ? this.#rooms.get(s.room) : undefined;
    return room?.viewers.get(sessionId)?.layers ?? null;
  }

  layers(sessionId: string): LayerState | null {
    return this.#layered(sessionId)?.state() ?? null;
  }

  selectLayer(sessionId: string, wish: LayerWish): LayerState | null {
    return this.#layered(sessionId)?.select(wish) ?? null;
  }

  /** This engine answers viewers' offers: it never makes one of its own to be answered. */
  accept(): Promise<void> {
    return Promise.reject(new AppError('bad_sdp'));
  }

  async addCandidates(sessionId: string, fragment: string): Promise<void> {
    const pc = this.#sessions.get(sessionId)?.pc;
    if (!pc) throw new AppError('media_session_not_found');
    for (const line of fragment.split(/\r?\n/)) {
      if (!line.startsWith('a=candidate:')) continue;
      if (!allowedCandidate(line, this.config.allowPrivateCandidates ?? false)) continue;
      await pc.addIceCandidate({ candidate: line.slice(2), sdpMLineIndex: 0 }).catch(() => undefined);
    }
  }

  async close(sessionId: string): Promise<void> {
    const s = this.#sessions.get(sessionId);
    if (!s) return;
    this.#sessions.delete(sessionId);
    const room = this.#rooms.get(s.room);
    if (!room) return;
    if (s.role === 'viewer') {
      const viewer = room.viewers.get(sessionId);
      room.viewers.delete(sessionId);
      if (viewer) {
        for (const u of viewer.unsubscribe) u();
        await viewer.pc.close().catch(() => undefined);
      }
      this.#viewersChanged(s.room);
      return;
    }
    if (room.publisherId !== sessionId) return;
    await this.closeRoom(s.room);
  }

  async closeRoom(roomName: string): Promise<void> {
    const room = this.#rooms.get(roomName);
    if (!room) return;
    this.#rooms.delete(roomName);
    for (const layer of room.layers) layer.stop();
    this.#sessions.delete(room.publisherId);
    for (const viewer of room.viewers.values()) {
      this.#sessions.delete(viewer.id);
      for (const u of viewer.unsubscribe) u();
      await viewer.pc.close().catch(() => undefined);
    }
    room.viewers.clear();
    await this.#finishRecording(room);
    this.#stopPackaging(room);
    await room.pc.close().catch(() => undefined);
    this.#viewersChanged(roomName);
    // A pulled room's broadcast is its origin's: only the origin's session for it ends.
    if (room.pulled) room.pulled.close();
    else this.#emit(roomName, 'closed');
  }

  room(name: string): { viewers: number; pulled: boolean } | null {
    const room = this.#rooms.get(name);
    if (!room) return null;
    let viewers = 0;
    for (const v of room.viewers.values()) if (!v.relay && v.pc.connectionState === 'connected') viewers++;
    return { viewers, pulled: room.pulled !== null };
  }

  names(): string[] {
    return [...this.#rooms.keys()];
  }

  session(sessionId: string): SessionInfo | null {
    const s = this.#sessions.get(sessionId);
    return s ? { room: s.room, role: s.role, connected: s.pc.connectionState === 'connected' } : null;
  }

  onViewers(listener: (room: string) => void): () => void {
    this.#viewerListeners.add(listener);
    return () => this.#viewerListeners.delete(listener);
  }

  onPublisher(listener: (room: string, state: PublisherState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  stats(): MediaStats {
    let viewers = 0;
    let pulled = 0;
    for (const room of this.#rooms.values()) {
      viewers += room.viewers.size;
      if (room.pulled) pulled += 1;
    }
    return {
      rooms: this.#rooms.size,
      publishers: this.#rooms.size - pulled,
      pulled,
      viewers,
      peerConnections: this.#rooms.size + viewers,
    };
  }

  async shutdown(): Promise<void> {
    clearInterval(this.#stallCheck);
    for (const name of [...this.#rooms.keys()]) await this.closeRoom(name);
    await Promise.all([...this.#processing]);
  }
}
