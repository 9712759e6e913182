import { AppError } from '../../common/errors';

/** Offers larger than this are refused before parsing (a real one is a few kilobytes). */
export const MAX_SDP_BYTES = 64 * 1024;

export interface CodecChoice {
  kind: 'audio' | 'video';
  /** e.g. H264, VP8, opus */
  name: string;
  /** fmtp parameters of the chosen payload type, '' when none. */
  fmtp: string;
}

interface Section {
  kind: string;
  lines: string[];
}

function sections(sdp: string): { session: string[]; media: Section[] } {
  const lines = sdp
    .replace(/\r\n/g, '\n')
    .split('\n')
    .filter((l) => l.length > 0);
  const session: string[] = [];
  const media: Section[] = [];
  for (const line of lines) {
    if (line.startsWith('m=')) media.push({ kind: line.slice(2).split(' ')[0] ?? '', lines: [line] });
    else if (media.length > 0) media[media.length - 1]?.lines.push(line);
    else session.push(line);
  }
  return { session, media };
}

/** Checks that an offer is an SDP offer with audio or video, not garbage (→ 400 bad_sdp). */
export function checkOffer(sdp: string): void {
  if (Buffer.byteLength(sdp) > MAX_SDP_BYTES || !sdp.startsWith('v=0')) throw new AppError('bad_sdp');
  const { media } = sections(sdp);
  if (!media.some((m) => m.kind === 'audio' || m.kind === 'video')) throw new AppError('bad_sdp');
  if (!media.every((m) => m.lines.some((l) => l.startsWith('a=ice-ufrag:'))) && !/a=ice-ufrag:/.test(sdp))
    throw new AppError('bad_sdp');
  if (!/a=fingerprint:/.test(sdp)) throw new AppError('bad_sdp');
}

interface Format {
  pt: string;
  name: string;
  fmtp: string;
}

function formatsOf(section: Section): Format[] {
  const m = section.lines[0]?.split(' ') ?? [];
  return m.slice(3).map((pt) => {
    const rtpmap = section.lines.find((l) => l.startsWith(`a=rtpmap:${pt} `));
    const fmtp = section.lines.find((l) => l.startsWith(`a=fmtp:${pt} `));
    return {
      pt,
      name: rtpmap?.slice(`a=rtpmap:${pt} `.length).split('/')[0] ?? '',
      fmtp: fmtp?.slice(`a=fmtp:${pt} `.length) ?? '',
    };
  });
}

function fmtpParam(fmtp: string, name: string): string | undefined {
  for (const part of fmtp.split(';')) {
    const [k, v] = part.trim().split('=');
    if (k === name) return v;
  }
  return undefined;
}

/**
 * Keeps only one payload type per media section of an offer, so the answer can only pick it:
 * the first format `choose` accepts, in the offer's order. Sections with no acceptable format
 * are left as they are (the answer then rejects them). Returns the munged offer and the choices.
 */
export function selectCodecs(
  sdp: string,
  choose: (kind: 'audio' | 'video', name: string, fmtp: string) => boolean,
): { sdp: string; chosen: CodecChoice[] } {
  const { session, media } = sections(sdp);
  const chosen: CodecChoice[] = [];
  const out = [...session];
  for (const section of media) {
    const kind = section.kind;
    if (kind !== 'audio' && kind !== 'video') {
      out.push(...section.lines);
      continue;
    }
    const pick = formatsOf(section).find((f) => choose(kind, f.name, f.fmtp));
    if (!pick) {
      out.push(...section.lines);
      continue;
    }
    chosen.push({ kind, name: pick.name, fmtp: pick.fmtp });
    const [mline = '', ...rest] = section.lines;
    out.push(mline.split(' ').slice(0, 3).concat(pick.pt).join(' '));
    for (const line of rest) {
      const m = /^a=(rtpmap|fmtp|rtcp-fb):(\d+)[ ]/.exec(line);
      if (m && m[2] !== pick.pt) continue;
      out.push(line);
    }
  }
  return { sdp: `${out.join('\r\n')}\r\n`, chosen };
}

/**
 * What a publisher may send: H.264 (packetization mode 1, so recordings need no transcoding)
 * when the browser offers it, otherwise VP8; Opus audio.
 */
export function publisherChoice(
  offer: string,
): (kind: 'audio' | 'video', name: string, fmtp: string) => boolean {
  const hasH264 = /a=rtpmap:\d+ H264\/90000/i.test(offer);
  return (kind, name, fmtp) => {
    if (kind === 'audio') return name.toLowerCase() === 'opus';
    if (hasH264) return name.toUpperCase() === 'H264' && fmtpParam(fmtp, 'packetization-mode') === '1';
    return name.toUpperCase() === 'VP8';
  };
}

/** What a viewer must receive: exactly the codec the publisher sends (same H.264 profile). */
export function viewerChoice(
  publisher: CodecChoice[],
): (kind: 'audio' | 'video', name: string, fmtp: string) => boolean {
  return (kind, name, fmtp) => {
    const sent = publisher.find((c) => c.kind === kind);
    if (!sent || sent.name.toLowerCase() !== name.toLowerCase()) return false;
    if (name.toUpperCase() !== 'H264') return true;
    return (
      fmtpParam(fmtp, 'packetization-mode') === '1' &&
      fmtpParam(fmtp, 'profile-level-id')?.slice(0, 2) ===
        fmtpParam(sent.fmtp, 'profile-level-id')?.slice(0, 2)
    );
  };
}
