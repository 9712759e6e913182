// The VideoRoom and Streaming requests the engine makes to run rooms, mountpoints and forwards,
// each in one place (what engine.ts decides, this says in Janus's words). All go through one pair
// of handles of the engine's API session, with the plugins' admin_key.
import type { ForwardTarget } from '../engine';
import type { CodecChoice } from '../sdp';
import type { JanusClient } from './client';

export const AUDIO_PT = 111;
export const VIDEO_PT = 96;

/** Where a forward goes: ports, and an address (default: the engine's own forward address). */
export type ForwardPorts = Pick<ForwardTarget, 'audio' | 'video' | 'videoRtcp'> & { host: string };

export class JanusPlugins {
  constructor(
    readonly client: JanusClient,
    private readonly handles: { videoroom: number; streaming: number },
    private readonly adminKey: string | undefined,
  ) {}

  #key(): Record<string, string> {
    return this.adminKey ? { admin_key: this.adminKey } : {};
  }

  /** A VideoRoom room for one broadcast's publisher (and a republish's, while the old one leaves). */
  async createRoom(room: number): Promise<void> {
    await this.client.sync(this.handles.videoroom, {
      request: 'create',
      room,
      ...this.#key(),
      publishers: 3,
      // OBS sends H.264 only; the room's order decides, not the publisher's (janus-notes §2.1).
      videocodec: 'h264,vp8',
      audiocodec: 'opus',
      bitrate: 0,
    });
  }

  async destroyRoom(room: number): Promise<void> {
    await this.client
      .sync(this.handles.videoroom, { request: 'destroy', room, ...this.#key() })
      .catch(() => undefined);
  }

  /** A Streaming mountpoint taking `codecs` as plain RTP on `ports`; answers its id. */
  async createMountpoint(id: number, name: string, codecs: readonly CodecChoice[], ports: ForwardPorts) {
    const media = codecs.map((c) =>
      c.kind === 'audio'
        ? {
            type: 'audio',
            mid: 'a',
            port: ports.audio,
            pt: AUDIO_PT,
            codec: c.name.toLowerCase(),
            iface: ports.host,
          }
        : {
            type: 'video',
            mid: 'v',
            port: ports.video,
            rtcpport: ports.videoRtcp,
            pt: VIDEO_PT,
            codec: c.name.toLowerCase(),
            ...(c.fmtp ? { fmtp: c.fmtp } : {}),
            iface: ports.host,
          },
    );
    await this.client.sync(this.handles.streaming, {
      request: 'create',
      type: 'rtp',
      id,
      name,
      ...this.#key(),
      media,
    });
  }

  async destroyMountpoint(id: number): Promise<void> {
    await this.client
      .sync(this.handles.streaming, { request: 'destroy', id, ...this.#key() })
      .catch(() => undefined);
  }

  /** Milliseconds since the mountpoint last received video; null when Janus does not say. */
  async videoAge(id: number): Promise<number | null> {
    const info = await this.client
      .sync(this.handles.streaming, { request: 'info', id, ...this.#key() })
      .catch(() => null);
    const media = (info?.data.info as { media?: { type?: string; age_ms?: number }[] } | undefined)?.media;
    const age = media?.find((m) => m.type === 'video')?.age_ms;
    return typeof age === 'number' ? age : null;
  }

  /**
   * A publisher's media to `ports`, with the receiver's keyframe requests back over the video's
   * RTCP; answers the video forwarder's own RTCP port and every forwarder's id.
   */
  async forward(
    room: number,
    feed: number,
    codecs: readonly (CodecChoice & { mid: string })[],
    ports: ForwardPorts,
  ): Promise<{ rtcpPort: number | null; streamIds: number[] }> {
    const streams = codecs.map((c) =>
      c.kind === 'audio'
        ? { mid: c.mid, port: ports.audio, pt: AUDIO_PT }
        : { mid: c.mid, port: ports.video, pt: VIDEO_PT, rtcp_port: ports.videoRtcp },
    );
    const forwarded = await this.client.sync(this.handles.videoroom, {
      request: 'rtp_forward',
      room,
      publisher_id: feed,
      host: ports.host,
      ...this.#key(),
      streams,
    });
    const forwarders = Array.isArray(forwarded.data.forwarders)
      ? (forwarded.data.forwarders as { port?: number; local_rtcp_port?: number; stream_id?: number }[])
      : [];
    return {
      rtcpPort: forwarders.find((f) => f.port === ports.video)?.local_rtcp_port ?? null,
      streamIds: forwarders.flatMap((f) => (typeof f.stream_id === 'number' ? [f.stream_id] : [])),
    };
  }

  async stopForward(room: number, feed: number, streamIds: readonly number[]): Promise<void> {
    for (const stream_id of streamIds)
      await this.client
        .sync(this.handles.videoroom, {
          request: 'stop_rtp_forward',
          room,
          publisher_id: feed,
          stream_id,
          ...this.#key(),
        })
        .catch(() => undefined);
  }
}
