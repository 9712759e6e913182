// Cascading in the werift engine: an edge node pulls a broadcast from its origin node as a WHEP
// player would, offering every codec the origin may send and a video section per simulcast layer
// (server/media/werift-engine.ts makes a room of what it answers).
import { randomUUID } from 'node:crypto';
import { RTCPeerConnection, RTCRtpCodecParameters } from 'werift';
import { AppError } from '../../common/errors';
import type { MediaConfig, PullLink } from './engine';
import { answeredCodecs } from './sdp';
import { FEEDBACK, gathered, h264Codec, LAYERS_ATTRIBUTE, type Source } from './werift-room';

/**
 * What an edge offers its origin: every H.264 profile browsers publish in (the origin answers the
 * publisher's own, see viewerChoice), VP8, Opus.
 */
const PULL_VIDEO = ['42e01f', '42001f', '4d001f', '640c1f', '64001f'].map(h264Codec);

/** The most simulcast layers an edge pulls from its origin (our studio sends three). */
const PULL_LAYERS = 3;

/**
 * A connection to the origin over `link`, answered, not yet fed to a room. The link between nodes
 * may use private addresses.
 */
export async function dialOrigin(
  link: PullLink,
  config: Pick<MediaConfig, 'iceServers' | 'portRange' | 'hostAddresses'>,
): Promise<{ source: Source; answer: string }> {
  const pc = new RTCPeerConnection({
    codecs: {
      audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 })],
      video: [
        ...PULL_VIDEO,
        new RTCRtpCodecParameters({ mimeType: 'video/VP8', clockRate: 90000, rtcpFeedback: FEEDBACK }),
      ],
    },
    iceServers: config.iceServers,
    ...(config.portRange ? { icePortRange: config.portRange } : {}),
    ...(config.hostAddresses.length ? { iceAdditionalHostAddresses: config.hostAddresses } : {}),
    iceUseIpv6: false,
  });
  // A section per simulcast layer the origin may have (it answers those it has not inactive).
  for (let i = 0; i < PULL_LAYERS; i++) pc.addTransceiver('video', { direction: 'recvonly' });
  pc.addTransceiver('audio', { direction: 'recvonly' });
  try {
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc);
    const answer = await link.offer(pc.localDescription?.sdp ?? '');
    // The origin answered with the one codec of each kind it sends, and a video section per
    // layer it has.
    const answered = answeredCodecs(answer);
    const codecs = answered.filter((c, i) => answered.findIndex((d) => d.kind === c.kind) === i);
    const sections = answered.filter((c) => c.kind === 'video').length;
    const named = new RegExp(`^${LAYERS_ATTRIBUTE}(.+)$`, 'm').exec(answer)?.[1]?.trim().split(',') ?? [];
    const rids = named.length === sections ? named : [];
    return {
      source: { publisherId: randomUUID(), pc, codecs, pulled: link, rids, sections },
      answer,
    };
  } catch (err) {
    link.close();
    await pc.close().catch(() => undefined);
    throw err instanceof AppError ? err : new AppError('no_publisher');
  }
}
