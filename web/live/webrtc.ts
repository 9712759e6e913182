// WHIP (publish) and WHEP (play) clients: the site's own pages use exactly the standard endpoints.
import type { IceAnswer } from '../../common/api/live';
import { api, csrfHeader, deviceId } from '../lib/api';
import { followPlayerSize, layerUrl } from './layers';

/** The site's ICE servers, and until when their credentials may be used. */
let ice: { servers: RTCIceServer[]; until: number } | null = null;
let asking: Promise<RTCIceServer[]> | null = null;

/**
 * The ICE servers for this page's peer connections: TURN with credentials that expire, where the
 * site has TURN (so networks that block UDP still get media), else none. Asked once, kept until
 * a few minutes before they expire; a failure to ask means none (host candidates still work).
 */
export function siteIceServers(): Promise<RTCIceServer[]> {
  if (ice && ice.until > Date.now()) return Promise.resolve(ice.servers);
  asking ??= api<IceAnswer>('GET', '/api/v1/media/ice')
    .then((a) => {
      const servers = a.ice_servers.map(({ urls, username, credential }) => ({
        urls,
        ...(username ? { username } : {}),
        ...(credential ? { credential } : {}),
      }));
      const expires = Date.parse(a.expires);
      ice = { servers, until: Math.max(Date.now() + 60_000, expires - 5 * 60_000) };
      return servers;
    })
    .catch(() => [])
    .finally(() => {
      asking = null;
    });
  return asking;
}

function gathered(pc: RTCPeerConnection, timeoutMs = 3000): Promise<void> {
  return new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve();
    const done = () => {
      if (pc.iceGatheringState !== 'complete') return;
      pc.removeEventListener('icegatheringstatechange', done);
      resolve();
    };
    pc.addEventListener('icegatheringstatechange', done);
    // Slow STUN servers must not hold the broadcast: send what has been gathered.
    window.setTimeout(resolve, timeoutMs);
  });
}

export class MediaHttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: string | null,
    message: string,
  ) {
    super(message);
  }
}

/** A WHIP/WHEP request refused: its status and the site's error code, when the body has one. */
async function httpError(res: Response): Promise<MediaHttpError> {
  const body = (await res.json().catch(() => null)) as { error?: string; message?: string } | null;
  return new MediaHttpError(res.status, body?.error ?? null, body?.message ?? '');
}

async function exchange(
  url: string,
  pc: RTCPeerConnection,
  headers: Record<string, string>,
): Promise<{ answer: string; location: string; link: string | null }> {
  await pc.setLocalDescription(await pc.createOffer());
  await gathered(pc);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/sdp', ...headers },
    body: pc.localDescription?.sdp ?? '',
  });
  if (res.status !== 201) throw await httpError(res);
  const answer = await res.text();
  // The session's URL, on the node that answered (a full node may send the offer to another).
  const answered = res.url || new URL(url, window.location.href).href;
  const at = new URL(res.headers.get('location') ?? url, answered);
  const location = at.origin === window.location.origin ? at.pathname : at.href;
  if (res.headers.get('sdp-type') === 'offer') await answerServerOffer(pc, answer, location, headers);
  else await pc.setRemoteDescription({ type: 'answer', sdp: answer });
  return { answer, location, link: res.headers.get('link') };
}

/**
 * A media engine that makes its own offer for viewers (Janus 1.1, server/media/janus): ours is
 * set aside, theirs answered, and the answer sent to the session's URL. The tracks come with
 * their offer ('track' events, as with an answer).
 */
async function answerServerOffer(
  pc: RTCPeerConnection,
  offer: string,
  location: string,
  headers: Record<string, string>,
): Promise<void> {
  await pc.setLocalDescription({ type: 'rollback' });
  await pc.setRemoteDescription({ type: 'offer', sdp: offer });
  await pc.setLocalDescription(await pc.createAnswer());
  await gathered(pc);
  const res = await fetch(location, {
    method: 'PATCH',
    headers: { 'content-type': 'application/sdp', ...headers },
    body: pc.localDescription?.sdp ?? '',
  });
  if (res.status !== 204) throw await httpError(res);
}

export interface Session {
  pc: RTCPeerConnection;
  location: string;
  /** Hangs up (DELETE on the session URL) and closes the peer connection. */
  stop(): Promise<void>;
  /** Closes the peer connection only (the server has already ended the session). */
  close(): void;
}

/**
 * `headers` are read when hanging up: a viewer may have signed in or out since (CSRF). `onEnd`
 * runs once when the session ends either way.
 */
function session(
  pc: RTCPeerConnection,
  location: string,
  headers: () => Record<string, string>,
  onEnd: () => void = () => undefined,
): Session {
  let stopped = false;
  return {
    pc,
    location,
    async stop() {
      if (stopped) return;
      stopped = true;
      onEnd();
      pc.close();
      await fetch(location, { method: 'DELETE', headers: headers(), keepalive: true }).catch(() => undefined);
    },
    close() {
      if (!stopped) onEnd();
      stopped = true;
      pc.close();
    },
  };
}

/**
 * Keeps the picture at the camera's size when bandwidth is short (frame rate and quality give
 * instead). Chromium's default ('balanced') starts a 1280×720 camera at 640×360 and climbs over
 * some seconds, so viewers joining early and the recording (which takes its size from the first
 * keyframe) got the small picture.
 */
async function keepResolution(sender: RTCRtpSender): Promise<void> {
  const params = sender.getParameters() as RTCRtpSendParameters & { degradationPreference?: string };
  params.degradationPreference = 'maintain-resolution';
  await sender.setParameters(params).catch(() => undefined);
}

/**
 * Simulcast layers the studio sends when the media engine switches viewers between them: the
 * camera's picture, a half and a quarter of it, smallest first (the order the server reads them
 * in). The bitrates are the usual ones for 720p, 360p and 180p.
 */
const LAYERS: RTCRtpEncodingParameters[] = [
  { rid: 'q', scaleResolutionDownBy: 4, maxBitrate: 150_000 },
  { rid: 'h', scaleResolutionDownBy: 2, maxBitrate: 500_000 },
  { rid: 'f', maxBitrate: 1_500_000 },
];

/** A camera large enough for three layers (the smallest would be 320 × 180 or more). */
function layered(track: MediaStreamTrack): boolean {
  const { width = 0, height = 0 } = track.getSettings();
  return Math.min(width, height) >= 540;
}

/**
 * Publishes a camera stream over WHIP with the broadcast's bearer token; with `simulcast`, an HD
 * camera's video as three layers (LAYERS).
 */
export async function whipPublish(
  url: string,
  token: string,
  stream: MediaStream,
  opts: { simulcast?: boolean } = {},
): Promise<Session> {
  const pc = new RTCPeerConnection({ iceServers: await siteIceServers() });
  for (const track of stream.getTracks()) {
    const sendEncodings = track.kind === 'video' && opts.simulcast && layered(track) ? LAYERS : undefined;
    const { sender } = pc.addTransceiver(track, {
      direction: 'sendonly',
      streams: [stream],
      ...(sendEncodings ? { sendEncodings } : {}),
    });
    if (track.kind === 'video') await keepResolution(sender);
  }
  const headers = { authorization: `Bearer ${token}` };
  try {
    const { location } = await exchange(url, pc, headers);
    return session(pc, location, () => headers);
  } catch (err) {
    pc.close();
    throw err;
  }
}

/**
 * Whether this browser may open preview sessions (explore's cards, the next live's first frame):
 * each costs a peer connection, so none without WebRTC or for people who asked to save data.
 */
export function previewsAllowed(): boolean {
  if (typeof RTCPeerConnection === 'undefined') return false;
  return !(navigator as Navigator & { connection?: { saveData?: boolean } }).connection?.saveData;
}

/**
 * Plays a broadcast over WHEP; `onStream` receives the media as tracks arrive. The device id goes
 * along: signed out, a viewer is counted once per device however many times they play. Signed
 * in, the session cookie goes along too, so the CSRF token does (explore's previews and the next
 * live's first frame were refused without it).
 */
export async function whepPlay(
  url: string,
  onStream: (stream: MediaStream) => void,
  headers: () => Record<string, string> = csrfHeader,
  player?: () => HTMLElement | null,
): Promise<Session> {
  const pc = new RTCPeerConnection({ iceServers: await siteIceServers() });
  pc.addTransceiver('video', { direction: 'recvonly' });
  pc.addTransceiver('audio', { direction: 'recvonly' });
  receiveInto(pc, onStream);
  try {
    const { location, link } = await exchange(url, pc, { 'x-device-id': deviceId(), ...headers() });
    // A simulcast broadcast: the server is told the player's size, to send a layer that fits it.
    const layers = layerUrl(link, location);
    const el = player?.();
    const unfollow = layers && el ? followPlayerSize(layers, el, headers) : undefined;
    return session(pc, location, headers, unfollow);
  } catch (err) {
    pc.close();
    throw err;
  }
}

/**
 * Whether a connection heard nothing at all from its peer: no ICE check of any candidate pair was
 * answered (a network that drops UDP, with no TURN or TURN blocked too).
 */
export async function unanswered(pc: RTCPeerConnection): Promise<boolean> {
  let answered = 0;
  (await pc.getStats()).forEach((s: { type: string; responsesReceived?: number }) => {
    if (s.type === 'candidate-pair') answered += s.responsesReceived ?? 0;
  });
  return answered === 0;
}

/**
 * How often a player looks at what arrives, and how long nothing may arrive before it says so: a
 * camera sends 15–30 frames and Opus 50 packets a second, so a second of nothing at all is a
 * stall, not a slow frame (issue 22: a viewer whose media node died plays again within 3 s).
 */
const FLOW_CHECK_MS = 250;
const STALL_MS = 1000;

/**
 * Watches a player's incoming media: `onChange(false)` once nothing has arrived for STALL_MS
 * after media flowed (the broadcaster's tab crashed or a network went: the picture froze), and
 * `onChange(true)` when it flows again. Read from the receiver's statistics, which keep counting
 * in a background tab (frame callbacks do not). Answers a function that stops watching.
 *
 * `{ of: 'anything' }` watches every byte the connection receives instead (a publisher receives
 * only its media node's RTCP reports, every 0.5–1.5 s from werift, and ICE answers): with
 * `stallMs` past the longest gap between them, silence means the node is gone.
 */
export function watchFlow(
  pc: RTCPeerConnection,
  onChange: (flowing: boolean) => void,
  opts: { of?: 'media' | 'anything'; stallMs?: number } = {},
): () => void {
  const anything = opts.of === 'anything';
  const stallMs = opts.stallMs ?? STALL_MS;
  let packets = 0;
  let lastGrowth = 0;
  let flowing: boolean | null = null;
  let busy = false;
  const timer = window.setInterval(() => {
    if (busy) return;
    busy = true;
    pc.getStats()
      .then((stats) => {
        let now = 0;
        stats.forEach((s: { type: string; packetsReceived?: number; bytesReceived?: number }) => {
          if (anything ? s.type === 'transport' : s.type === 'inbound-rtp')
            now += (anything ? s.bytesReceived : s.packetsReceived) ?? 0;
        });
        const at = performance.now();
        if (now > packets) {
          packets = now;
          lastGrowth = at;
          if (flowing !== true) onChange((flowing = true));
        } else if (flowing === true && at - lastGrowth >= stallMs) onChange((flowing = false));
      })
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, FLOW_CHECK_MS);
  return () => window.clearInterval(timer);
}

/**
 * Audio rooms' answers name no session URL (no Location): hanging up is closing the connection,
 * which the media engine notices; a DELETE would go to the endpoint that made it.
 */
function audioSession(pc: RTCPeerConnection, location: string, url: string): Session {
  const s = session(pc, location, csrfHeader);
  if (location !== url) return s;
  return { ...s, stop: () => Promise.resolve(s.close()) };
}

/**
 * An audio room's voice (issue 23 item 3): the microphone's track offered sendonly to `url` (the
 * room's speak endpoint), like WHIP but with the session cookie and CSRF token: only a seat holder
 * may speak, and the server knows them by their session.
 */
export async function speakAudio(url: string, stream: MediaStream): Promise<Session> {
  const pc = new RTCPeerConnection({ iceServers: await siteIceServers() });
  for (const track of stream.getAudioTracks())
    pc.addTransceiver(track, { direction: 'sendonly', streams: [stream] });
  try {
    const { location } = await exchange(url, pc, { 'x-device-id': deviceId(), ...csrfHeader() });
    return audioSession(pc, location, url);
  } catch (err) {
    pc.close();
    throw err;
  }
}

/** The tracks `pc` receives, gathered in one stream handed to `onStream` as each arrives. */
function receiveInto(pc: RTCPeerConnection, onStream: (stream: MediaStream) => void): void {
  const stream = new MediaStream();
  pc.addEventListener('track', (e) => {
    stream.addTrack(e.track);
    onStream(stream);
  });
}

/** One speaker's voice in an audio room (recvonly audio, like WHEP); `onStream` gets its track. */
export async function hearAudio(url: string, onStream: (stream: MediaStream) => void): Promise<Session> {
  const pc = new RTCPeerConnection({ iceServers: await siteIceServers() });
  pc.addTransceiver('audio', { direction: 'recvonly' });
  receiveInto(pc, onStream);
  try {
    const { location } = await exchange(url, pc, { 'x-device-id': deviceId(), ...csrfHeader() });
    return audioSession(pc, location, url);
  } catch (err) {
    pc.close();
    throw err;
  }
}
