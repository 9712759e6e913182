// The werift engine's rooms (server/media/werift-engine.ts): a room is what one broadcast is on
// this node, fed by a source (its publisher's connection, or a pull from its origin on another
// node) and sent to its viewers; here are its shape and the helpers that build and describe it.
import {
  RTCPeerConnection,
  RTCRtpCodecParameters,
  type MediaStreamTrack,
  type RTCRtpTransceiver,
} from 'werift';
import { AppError } from '../../common/errors';
import type { PullLink } from './engine';
import type { Fanout } from './fanout';
import type { PackagedRoom } from './hls/room';
import type { LiveRecording } from './recording';
import type { CodecChoice, InactiveSection } from './sdp';
import type { VideoLayer } from './video-layer';
import type { ViewerLayers } from './viewer-layers';

/** What a receiver of video asks of its sender: retransmissions, and keyframes (PLI, FIR). */
export const FEEDBACK = [
  { type: 'nack' },
  { type: 'nack', parameter: 'pli' },
  { type: 'ccm', parameter: 'fir' },
];
/** ICE gathering normally takes milliseconds on a host; give up on slow STUN after this. */
const GATHER_TIMEOUT_MS = 3000;

export interface Viewer {
  id: string;
  pc: RTCPeerConnection;
  unsubscribe: (() => void)[];
  /** Another node pulling the room (cascading): not one of its viewers. */
  relay: boolean;
  /** Its simulcast layer and what chooses it (a room with layers, on the lean path). */
  layers: ViewerLayers | null;
}

export interface Room {
  name: string;
  publisherId: string;
  pc: RTCPeerConnection;
  codecs: CodecChoice[];
  tracks: Map<'audio' | 'video', { track: MediaStreamTrack; transceiver: RTCRtpTransceiver }>;
  fanout: Record<'audio' | 'video', Fanout>;
  viewers: Map<string, Viewer>;
  /**
   * Its video streams, lowest first: one, or one per simulcast layer viewers switch between. The
   * last (the largest) is the room's main video (fanout.video): recorded, packaged, relayed.
   */
  layers: VideoLayer[];
  /** The RIDs its source sends, lowest first (none: one video stream). */
  rids: string[];
  recording: { live: LiveRecording; file: string } | null;
  /** Its LL-HLS packaging (a room published here, in H.264, with packaging on). */
  hls: PackagedRoom | null;
  /** Packets received from the publisher, and how many the stall check saw last time. */
  received: number;
  seen: number;
  /** Connected at the last stall check (a publisher is judged after a whole interval connected). */
  watched: boolean;
  stalled: boolean;
  /** Pulled from its origin on another node (null: published here). */
  pulled: PullLink | null;
  /** When the room last received anything (performance.now(), checked every CHECK_MS). */
  flowedAt: number;
  /** When the publisher's stall was last judged. */
  judgedAt: number;
  /** Counts changes of source: a task working for an earlier source stops. */
  epoch: number;
  /** A pull that lost its origin is looking for the broadcast again (see #relink). */
  relinking: boolean;
}

/** A source's receiving connection and what it sends, before it feeds a room. */
export interface Source {
  publisherId: string;
  pc: RTCPeerConnection;
  codecs: CodecChoice[];
  pulled: PullLink | null;
  /** The RIDs of its simulcast streams, lowest first (none: one stream). */
  rids: string[];
  /**
   * A pull's video streams: the origin sends each of its room's layers in a section of its own,
   * lowest first (1: one stream). A publisher's are told apart by RID instead.
   */
  sections: number;
}

/**
 * An origin's answer to an edge names the layers' RIDs in this session attribute (lowest first),
 * so that a player asks any node for a layer by the same name.
 */
export const LAYERS_ATTRIBUTE = 'a=x-beamly-layers:';

/**
 * The layers a room keeps for a source: one per RID (or per pulled section) when viewers can be
 * switched between them (H.264 only: see keyframeStart).
 */
export function layerCount(source: Source): number {
  if (videoCodec(source.codecs) !== 'H264') return 1;
  return source.pulled ? source.sections : Math.max(1, source.rids.length);
}

/** The name of the video codec in `codecs`, upper case ('' without video). */
export function videoCodec(codecs: CodecChoice[]): string {
  return codecs.find((c) => c.kind === 'video')?.name.toUpperCase() ?? '';
}

/** The RIDs of the room's layers, lowest first (the largest only, when its layers are not switched). */
export function layerNames(room: Pick<Room, 'rids' | 'layers'>): string[] {
  return room.rids.slice(room.rids.length - room.layers.length);
}

/** A room's state for a source that has sent nothing yet. */
export function fresh(source: Source) {
  const now = performance.now();
  return {
    ...source,
    tracks: new Map<'audio' | 'video', { track: MediaStreamTrack; transceiver: RTCRtpTransceiver }>(),
    received: 0,
    seen: 0,
    flowedAt: now,
    judgedAt: now,
    watched: false,
    stalled: false,
    recording: null,
    relinking: false,
  };
}

/**
 * H.264 as our werift peers offer it (the demo's publishers, an edge pulling from its origin, the
 * tests' and benches' peers): packetization mode 1, in `profile` (Constrained Baseline 3.1 unless
 * said), with retransmissions and keyframe requests.
 */
export function h264Codec(profile = '42e01f'): RTCRtpCodecParameters {
  return new RTCRtpCodecParameters({
    mimeType: 'video/H264',
    clockRate: 90000,
    rtcpFeedback: FEEDBACK,
    parameters: `level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=${profile}`,
  });
}

export function codecParams(choice: CodecChoice): RTCRtpCodecParameters {
  if (choice.kind === 'audio')
    return new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 });
  return new RTCRtpCodecParameters({
    mimeType: `video/${choice.name}`,
    clockRate: 90000,
    rtcpFeedback: FEEDBACK,
    ...(choice.fmtp ? { parameters: choice.fmtp } : {}),
  });
}

/** The offer's own codec for a section answered inactive (werift needs one it can agree on). */
export function placeholderParams(section: InactiveSection): RTCRtpCodecParameters {
  return new RTCRtpCodecParameters({
    mimeType: `${section.kind}/${section.name}`,
    clockRate: section.clockRate,
    ...(section.channels ? { channels: section.channels } : {}),
    ...(section.fmtp ? { parameters: section.fmtp } : {}),
  });
}

export async function gathered(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === 'complete') return;
  await pc.iceGatheringStateChange.watch((s) => s === 'complete', GATHER_TIMEOUT_MS).catch(() => undefined);
}

/** The answer to the offer set on `pc`, with every candidate gathered. */
export async function answerOf(pc: RTCPeerConnection): Promise<string> {
  await pc.setLocalDescription(await pc.createAnswer());
  await gathered(pc);
  const answer = pc.localDescription?.sdp;
  if (!answer) throw new AppError('bad_sdp');
  return answer;
}
