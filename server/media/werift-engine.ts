import { randomUUID } from 'node:crypto';
import {
  RTCPeerConnection,
  RTCRtpCodecParameters,
  type MediaStreamTrack,
  type RTCRtpTransceiver,
  type RtpPacket,
} from 'werift';
import { MediaRecorder } from 'werift/nonstandard';
import { mkdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../common/errors';
import type { MediaConfig, MediaEngine, MediaSession, MediaStats, PublisherState, Recording } from './engine';
import { LeanSender, RtpHistory } from './lean-forward';
import { remuxToMp4 } from './remux';
import { PlainBatch } from './srtp';
import { checkOffer, publisherChoice, selectCodecs, viewerChoice, type CodecChoice } from './sdp';

const FEEDBACK = [{ type: 'nack' }, { type: 'nack', parameter: 'pli' }, { type: 'ccm', parameter: 'fir' }];
/** ICE gathering normally takes milliseconds on a host; give up on slow STUN after this. */
const GATHER_TIMEOUT_MS = 3000;
/** At most one keyframe request to the publisher per this interval (viewers join in bursts). */
const PLI_INTERVAL_MS = 500;
/** While recording, a keyframe this often, so the replay can be sought. */
const RECORD_KEYFRAME_MS = 2000;
/**
 * A connected publisher that sends nothing for this long is reported interrupted (its tab
 * crashed or its network went): ICE consent would take 30 s to notice, viewers watch a frozen
 * frame meanwhile. Cameras send frames, and Opus at least every 400 ms, whatever the scene.
 */
const STALL_MS = 2500;

interface Viewer {
  id: string;
  pc: RTCPeerConnection;
  unsubscribe: (() => void)[];
}

/** Sends the publisher's packets of one kind to one viewer: a LeanSender, or werift's sender. */
interface Forwarder {
  send(rtp: RtpPacket): void;
  sendBatch?(batch: PlainBatch, packets: readonly RtpPacket[]): void;
  close?(): void;
}

/**
 * A room's track: its recent packets and the viewers it is forwarded to. Packets that arrive in
 * one turn of the event loop (a video frame is several) are forwarded together just after it,
 * so each viewer's encryption is one call per batch, not per packet (see AesCmSealer).
 */
class Fanout {
  readonly history = new RtpHistory();
  readonly forwarders = new Set<Forwarder>();
  #pending: RtpPacket[] = [];

  /** `batched` false: each packet forwarded as it arrives (werift's sender, the baseline). */
  constructor(private readonly batched: boolean) {}

  push(rtp: RtpPacket): void {
    this.history.put(rtp);
    if (!this.batched) {
      for (const f of this.forwarders) f.send(rtp);
      return;
    }
    if (this.#pending.push(rtp) === 1) setImmediate(() => this.#flush());
  }

  #flush(): void {
    const packets = this.#pending;
    this.#pending = [];
    if (!this.forwarders.size) return;
    const batch = new PlainBatch(
      packets.map((rtp) => ({
        marker: rtp.header.marker,
        seq: rtp.header.sequenceNumber,
        timestamp: rtp.header.timestamp,
        payload: rtp.payload,
      })),
    );
    for (const f of this.forwarders) {
      if (f.sendBatch) f.sendBatch(batch, packets);
      else for (const rtp of packets) f.send(rtp);
    }
  }
}

interface Room {
  name: string;
  publisherId: string;
  pc: RTCPeerConnection;
  codecs: CodecChoice[];
  tracks: Map<'audio' | 'video', { track: MediaStreamTrack; transceiver: RTCRtpTransceiver }>;
  fanout: Record<'audio' | 'video', Fanout>;
  viewers: Map<string, Viewer>;
  lastPli: number;
  /** Packets received from the publisher, and how many the stall check saw last time. */
  received: number;
  checked: number;
  /** Connected at the last stall check (a publisher is judged after a whole interval connected). */
  watched: boolean;
  stalled: boolean;
  recording: { recorder: MediaRecorder; file: string; startedAt: Date; keyframes: NodeJS.Timeout } | null;
}

function codecParams(choice: CodecChoice): RTCRtpCodecParameters {
  if (choice.kind === 'audio')
    return new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 });
  return new RTCRtpCodecParameters({
    mimeType: `video/${choice.name}`,
    clockRate: 90000,
    rtcpFeedback: FEEDBACK,
    ...(choice.fmtp ? { parameters: choice.fmtp } : {}),
  });
}

async function gathered(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === 'complete') return;
  await pc.iceGatheringStateChange.watch((s) => s === 'complete', GATHER_TIMEOUT_MS).catch(() => undefined);
}

/** The answer to the offer set on `pc`, with every candidate gathered. */
async function answerOf(pc: RTCPeerConnection): Promise<string> {
  await pc.setLocalDescription(await pc.createAnswer());
  await gathered(pc);
  const answer = pc.localDescription?.sdp;
  if (!answer) throw new AppError('bad_sdp');
  return answer;
}

/**
 * An SFU in this process on werift: one receiving peer connection per room's publisher, one
 * sending peer connection per viewer, RTP forwarded as it arrives (each viewer gets its own copy
 * of a packet: werift rewrites headers in place and keeps them for retransmission).
 */
export class WeriftEngine implements MediaEngine {
  readonly #rooms = new Map<string, Room>();
  readonly #sessions = new Map<string, { room: string; role: 'publisher' | 'viewer' }>();
  readonly #listeners = new Set<(room: string, state: PublisherState) => void>();
  readonly #recordedListeners = new Set<(room: string, recording: Recording) => void>();
  /** Recordings being rewrapped; shutdown waits for them. */
  readonly #processing = new Set<Promise<void>>();
  readonly #stallCheck: NodeJS.Timeout;

  constructor(private readonly config: MediaConfig) {
    if (config.recordDir) mkdirSync(config.recordDir, { recursive: true });
    this.#stallCheck = setInterval(() => this.#checkStalls(), STALL_MS);
    this.#stallCheck.unref();
  }

  /** Publishers whose media stopped (or came back) since the last check: interrupted (or connected). */
  #checkStalls(): void {
    for (const room of this.#rooms.values()) {
      const connected = room.pc.connectionState === 'connected';
      const watched = room.watched;
      room.watched = connected;
      const flowing = room.received !== room.checked;
      room.checked = room.received;
      if (!connected || !watched || flowing === !room.stalled) continue;
      room.stalled = !flowing;
      this.#emit(room.name, flowing ? 'connected' : 'interrupted');
    }
  }

  #peer(codecs: CodecChoice[]): RTCPeerConnection {
    const audio = codecs.filter((c) => c.kind === 'audio').map(codecParams);
    const video = codecs.filter((c) => c.kind === 'video').map(codecParams);
    return new RTCPeerConnection({
      codecs: { audio, video },
      iceServers: this.config.iceServers,
      ...(this.config.portRange ? { icePortRange: this.config.portRange } : {}),
      ...(this.config.hostAddresses.length ? { iceAdditionalHostAddresses: this.config.hostAddresses } : {}),
      iceUseIpv6: false,
    });
  }

  #emit(room: string, state: PublisherState): void {
    for (const l of this.#listeners) l(room, state);
  }

  async publish(roomName: string, offer: string): Promise<MediaSession> {
    checkOffer(offer);
    const current = this.#rooms.get(roomName);
    if (current) {
      // One publisher at a time; one whose connection dropped may be replaced (its republish).
      if (['new', 'connecting', 'connected'].includes(current.pc.connectionState))
        throw new AppError('publisher_exists');
      await this.closeRoom(roomName);
      if (this.#rooms.has(roomName)) throw new AppError('publisher_exists');
    }
    const { sdp, chosen } = selectCodecs(offer, publisherChoice(offer));
    if (!chosen.some((c) => c.kind === 'video')) throw new AppError('bad_sdp');
    const pc = this.#peer(chosen);
    const id = randomUUID();
    const batched = this.config.forward !== 'werift';
    const room: Room = {
      name: roomName,
      publisherId: id,
      pc,
      codecs: chosen,
      tracks: new Map(),
      fanout: { audio: new Fanout(batched), video: new Fanout(batched) },
      viewers: new Map(),
      lastPli: 0,
      received: 0,
      checked: 0,
      watched: false,
      stalled: false,
      recording: null,
    };
    // Claimed before any await: a second publisher racing this one gets publisher_exists.
    this.#rooms.set(roomName, room);
    this.#sessions.set(id, { room: roomName, role: 'publisher' });
    const wantsAudio = chosen.some((c) => c.kind === 'audio');
    pc.ontrack = ({ track, transceiver }) => {
      if (track.kind === 'audio' || track.kind === 'video') {
        room.tracks.set(track.kind, { track, transceiver });
        // One subscription per track; each packet is kept once and handed to every viewer.
        const fanout = room.fanout[track.kind];
        track.onReceiveRtp.subscribe((rtp) => {
          room.received++;
          fanout.push(rtp);
        });
      }
      // Record once every negotiated track is there.
      if (room.tracks.has('video') && (room.tracks.has('audio') || !wantsAudio)) this.#record(room);
    };
    pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected') this.#emit(roomName, 'connected');
      else if (state === 'disconnected') this.#emit(roomName, 'interrupted');
      else if (state === 'failed') void this.close(id);
    });
    try {
      await pc.setRemoteDescription({ type: 'offer', sdp });
      return { id, answer: await answerOf(pc), codecs: chosen.map((c) => c.name) };
    } catch (err) {
      await this.close(id);
      throw err instanceof AppError ? err : new AppError('bad_sdp');
    }
  }

  async play(roomName: string, offer: string): Promise<MediaSession> {
    checkOffer(offer);
    const room = this.#rooms.get(roomName);
    if (!room) throw new AppError('no_publisher');
    const { sdp, chosen } = selectCodecs(offer, viewerChoice(room.codecs));
    if (!chosen.some((c) => c.kind === 'video')) throw new AppError('bad_sdp');
    const pc = this.#peer(chosen);
    const id = randomUUID();
    const viewer: Viewer = { id, pc, unsubscribe: [] };
    room.viewers.set(id, viewer);
    this.#sessions.set(id, { room: roomName, role: 'viewer' });
    pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected') this.#requestKeyframe(room, true);
      if (state === 'failed' || state === 'closed') void this.close(id);
    });
    try {
      await pc.setRemoteDescription({ type: 'offer', sdp });
      for (const transceiver of pc.getTransceivers()) {
        const kind = transceiver.kind;
        if (kind !== 'audio' && kind !== 'video') continue;
        transceiver.setDirection('sendonly');
        this.#forward(room, viewer, kind, transceiver);
      }
      return { id, answer: await answerOf(pc), codecs: chosen.map((c) => c.name) };
    } catch (err) {
      await this.close(id);
      throw err instanceof AppError ? err : new AppError('bad_sdp');
    }
  }

  /** Sends the publisher's packets of one kind to a viewer's transceiver (from its next packet). */
  #forward(room: Room, viewer: Viewer, kind: 'audio' | 'video', out: RTCRtpTransceiver): void {
    const fanout = room.fanout[kind];
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
      const { unSubscribe } = out.sender.onPictureLossIndication.subscribe(() => this.#requestKeyframe(room));
      viewer.unsubscribe.push(unSubscribe);
    }
  }

  /** Writes the publisher's packets as they are (no transcoding) into a WebM file. */
  #record(room: Room): void {
    if (!this.config.recordDir || room.recording) return;
    const file = `${room.name}-${room.publisherId}.webm`;
    const recorder = new MediaRecorder({
      path: join(this.config.recordDir, file),
      tracks: [...room.tracks.values()].map((t) => t.track),
      width: 1280,
      height: 720,
      // Timestamps from each track's RTP clock, not from the publisher's sender reports: with
      // sender-report (NTP) timing the file sometimes started with frames Chromium would not play
      // past (currentTime stuck at 0, then 'demuxer seek failed'), seen about one run in three.
      disableNtp: true,
    });
    recorder.onError.subscribe(() => undefined);
    const keyframes = setInterval(() => this.#requestKeyframe(room, true), RECORD_KEYFRAME_MS);
    keyframes.unref();
    room.recording = { recorder, file, startedAt: new Date(), keyframes };
    this.#requestKeyframe(room, true);
  }

  /** Closes the room's recording file; rewrapping it and telling listeners go on in the background. */
  async #finishRecording(room: Room): Promise<void> {
    const rec = room.recording;
    const dir = this.config.recordDir;
    if (!rec || !dir) return;
    room.recording = null;
    clearInterval(rec.keyframes);
    await rec.recorder.stop().catch(() => undefined);
    const endedAt = new Date();
    const h264 = room.codecs.some((c) => c.name === 'H264');
    const task = this.#publishRecording(room.name, dir, rec.file, h264, {
      startedAt: rec.startedAt,
      endedAt,
    });
    this.#processing.add(task);
    void task.finally(() => this.#processing.delete(task));
  }

  /**
   * Tells listeners about a finished recording, H.264 first rewrapped as MP4 (Safari plays no WebM);
   * until then the replay is 'being generated'.
   */
  async #publishRecording(
    room: string,
    dir: string,
    webm: string,
    h264: boolean,
    times: { startedAt: Date; endedAt: Date },
  ): Promise<void> {
    let bytes = 0;
    try {
      bytes = statSync(join(dir, webm)).size;
    } catch {
      return;
    }
    if (bytes === 0) return;
    let file = webm;
    if (h264) {
      const mp4 = webm.replace(/\.webm$/, '.mp4');
      const size = await remuxToMp4(join(dir, webm), join(dir, mp4));
      if (size) {
        await rm(join(dir, webm), { force: true });
        file = mp4;
        bytes = size;
      }
    }
    const recording: Recording = { file, bytes, ...times };
    for (const l of this.#recordedListeners) l(room, recording);
  }

  onRecorded(listener: (room: string, recording: Recording) => void): () => void {
    this.#recordedListeners.add(listener);
    return () => this.#recordedListeners.delete(listener);
  }

  #requestKeyframe(room: Room, force = false): void {
    const now = Date.now();
    if (!force && now - room.lastPli < PLI_INTERVAL_MS) return;
    const video = room.tracks.get('video');
    if (!video?.track.ssrc) return;
    room.lastPli = now;
    void video.transceiver.receiver.sendRtcpPLI(video.track.ssrc);
  }

  async addCandidates(sessionId: string, fragment: string): Promise<void> {
    const pc = this.#pc(sessionId);
    if (!pc) throw new AppError('media_session_not_found');
    for (const line of fragment.split(/\r?\n/)) {
      if (!line.startsWith('a=candidate:')) continue;
      await pc.addIceCandidate({ candidate: line.slice(2), sdpMLineIndex: 0 }).catch(() => undefined);
    }
  }

  #pc(sessionId: string): RTCPeerConnection | null {
    const s = this.#sessions.get(sessionId);
    if (!s) return null;
    const room = this.#rooms.get(s.room);
    if (!room) return null;
    return s.role === 'publisher' ? room.pc : (room.viewers.get(sessionId)?.pc ?? null);
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
      return;
    }
    if (room.publisherId !== sessionId) return;
    await this.closeRoom(s.room);
  }

  async closeRoom(roomName: string): Promise<void> {
    const room = this.#rooms.get(roomName);
    if (!room) return;
    this.#rooms.delete(roomName);
    this.#sessions.delete(room.publisherId);
    for (const viewer of room.viewers.values()) {
      this.#sessions.delete(viewer.id);
      for (const u of viewer.unsubscribe) u();
      await viewer.pc.close().catch(() => undefined);
    }
    room.viewers.clear();
    await this.#finishRecording(room);
    await room.pc.close().catch(() => undefined);
    this.#emit(roomName, 'closed');
  }

  room(name: string): { viewers: number } | null {
    const room = this.#rooms.get(name);
    return room ? { viewers: room.viewers.size } : null;
  }

  session(sessionId: string): { room: string; role: 'publisher' | 'viewer' } | null {
    return this.#sessions.get(sessionId) ?? null;
  }

  onPublisher(listener: (room: string, state: PublisherState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  stats(): MediaStats {
    let viewers = 0;
    for (const room of this.#rooms.values()) viewers += room.viewers.size;
    return {
      rooms: this.#rooms.size,
      publishers: this.#rooms.size,
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
