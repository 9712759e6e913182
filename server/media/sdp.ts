import { AppError } from '../../common/errors';
import { allowedCandidate } from './addresses';

/** Offers larger than this are refused before parsing (a real one is a few kilobytes). */
export const MAX_SDP_BYTES = 64 * 1024;

export interface CodecChoice {
  kind: 'audio' | 'video';
  /** e.g. H264, VP8, opus */
  name: string;
  /** fmtp parameters of the chosen payload type, '' when none. */
  fmtp: string;
}

/**
 * A media section that will carry nothing (the publisher sends no such kind, or none of its
 * codecs can be used): answered inactive with this one codec of the offer, so the answer still
 * matches the offer line for line and the other sections work.
 */
export interface InactiveSection {
  kind: 'audio' | 'video';
  /** The section's a=mid, or its index when it has none. */
  mid: string;
  name: string;
  clockRate: number;
  channels: number | undefined;
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
  clockRate: number;
  channels: number | undefined;
  fmtp: string;
}

function formatsOf(section: Section): Format[] {
  const m = section.lines[0]?.split(' ') ?? [];
  return m.slice(3).map((pt) => {
    const rtpmap = section.lines.find((l) => l.startsWith(`a=rtpmap:${pt} `));
    const fmtp = section.lines.find((l) => l.startsWith(`a=fmtp:${pt} `));
    const [name = '', clock = '', channels] = rtpmap?.slice(`a=rtpmap:${pt} `.length).split('/') ?? [];
    return {
      pt,
      name,
      clockRate: Number(clock) || 0,
      channels: channels ? Number(channels) || undefined : undefined,
      fmtp: fmtp?.slice(`a=fmtp:${pt} `.length) ?? '',
    };
  });
}

/** Keeps one payload type of a section: its m-line format list and its rtpmap/fmtp/rtcp-fb lines. */
function keepFormat(section: Section, pt: string): string[] {
  const [mline = '', ...rest] = section.lines;
  const out = [mline.split(' ').slice(0, 3).concat(pt).join(' ')];
  for (const line of rest) {
    const m = /^a=(rtpmap|fmtp|rtcp-fb):(\d+)[ ]/.exec(line);
    if (m && m[2] !== pt) continue;
    out.push(line);
  }
  return out;
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
 * the first format `choose` accepts, in the offer's order. A section with no acceptable format is
 * to be answered inactive: it keeps the first format that has an rtpmap (the engine needs one
 * codec to agree on) and is listed in `inactive`; one with none at all is left as it is (the
 * engine then refuses the offer). Returns the munged offer and the choices.
 */
export function selectCodecs(
  sdp: string,
  choose: (kind: 'audio' | 'video', name: string, fmtp: string) => boolean,
): { sdp: string; chosen: CodecChoice[]; inactive: InactiveSection[] } {
  const { session, media } = sections(sdp);
  const chosen: CodecChoice[] = [];
  const inactive: InactiveSection[] = [];
  const out = [...session];
  media.forEach((section, index) => {
    const kind = section.kind;
    if (kind !== 'audio' && kind !== 'video') {
      out.push(...section.lines);
      return;
    }
    const formats = formatsOf(section);
    const pick = formats.find((f) => choose(kind, f.name, f.fmtp));
    if (pick) {
      chosen.push({ kind, name: pick.name, fmtp: pick.fmtp });
      out.push(...keepFormat(section, pick.pt));
      return;
    }
    const placeholder = formats.find((f) => f.name && f.clockRate);
    if (!placeholder) {
      out.push(...section.lines);
      return;
    }
    const mid = section.lines.find((l) => l.startsWith('a=mid:'))?.slice('a=mid:'.length) ?? String(index);
    inactive.push({
      kind,
      mid,
      name: placeholder.name,
      clockRate: placeholder.clockRate,
      channels: placeholder.channels,
      fmtp: placeholder.fmtp,
    });
    out.push(...keepFormat(section, placeholder.pt));
  });
  return { sdp: `${out.join('\r\n')}\r\n`, chosen, inactive };
}

/**
 * The offer without the ICE candidates the engine may not send to (see allowedCandidate): the
 * engine then only answers checks that reach it, from wherever they come (peer-reflexive).
 */
export function withoutForbiddenCandidates(sdp: string, allowPrivate: boolean): string {
  if (allowPrivate) return sdp;
  return sdp
    .split(/\r?\n/)
    .filter((l) => !l.startsWith('a=candidate:') || allowedCandidate(l, false))
    .join('\r\n');
}

/**
 * werift writes an inactive section with port 0, which means rejected, yet keeps it in the BUNDLE
 * group; browsers refuse that answer. Port 9 with a=inactive (what browsers write themselves)
 * says the section exists and carries nothing.
 */
export function inactiveNotRejected(answer: string): string {
  const { session, media } = sections(answer);
  const out = [...session];
  for (const section of media) {
    const [mline = '', ...rest] = section.lines;
    const parts = mline.split(' ');
    if (parts[1] === '0' && rest.includes('a=inactive') && section.kind !== 'application') parts[1] = '9';
    out.push(parts.join(' '), ...rest);
  }
  return `${out.join('\r\n')}\r\n`;
}

/**
 * Adds Chromium's start-bitrate hint (kbit/s) to the video codec of an answer: the sender starts
 * its bandwidth estimate there instead of at 300 kbit/s. Other browsers ignore the parameter.
 */
export function withStartBitrate(answer: string, kbps: number): string {
  const { session, media } = sections(answer);
  const out = [...session];
  for (const section of media) {
    const pt = section.kind === 'video' ? section.lines[0]?.split(' ')[3] : undefined;
    if (!pt) {
      out.push(...section.lines);
      continue;
    }
    const param = `x-google-start-bitrate=${kbps}`;
    const fmtp = section.lines.findIndex((l) => l.startsWith(`a=fmtp:${pt} `));
    const lines = [...section.lines];
    if (fmtp >= 0) lines[fmtp] = `${lines[fmtp] ?? ''};${param}`;
    else {
      const rtpmap = lines.findIndex((l) => l.startsWith(`a=rtpmap:${pt} `));
      lines.splice(rtpmap >= 0 ? rtpmap + 1 : lines.length, 0, `a=fmtp:${pt} ${param}`);
    }
    out.push(...lines);
  }
  return `${out.join('\r\n')}\r\n`;
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

/**
 * The codec of each media section an answer accepts (one per section: the engine answers with
 * one), leaving out sections answered inactive: what an edge receives from its origin.
 */
export function answeredCodecs(answer: string): CodecChoice[] {
  return answeredSections(answer).map(({ kind, name, fmtp }) => ({ kind, name, fmtp }));
}

/** As answeredCodecs, with each section's a=mid (its index when it has none). */
export function answeredSections(answer: string): (CodecChoice & { mid: string })[] {
  const out: (CodecChoice & { mid: string })[] = [];
  for (const [index, section] of sections(answer).media.entries()) {
    const kind = section.kind;
    if (kind !== 'audio' && kind !== 'video') continue;
    if (section.lines.includes('a=inactive') || section.lines[0]?.split(' ')[1] === '0') continue;
    const f = formatsOf(section)[0];
    const mid = section.lines.find((l) => l.startsWith('a=mid:'))?.slice(6) ?? String(index);
    if (f?.name) out.push({ kind, name: f.name, fmtp: f.fmtp, mid });
  }
  return out;
}

/**
 * Whether a room's viewers, who agreed on `current`, can take a new source sending `next` on the
 * connections they have: the same kinds, each in the same codec (H.264 in the same packetization
 * mode; another profile decodes alike).
 */
export function sameMedia(current: CodecChoice[], next: CodecChoice[]): boolean {
  const mode = (c: CodecChoice) => /packetization-mode=(\d)/.exec(c.fmtp)?.[1] ?? '0';
  const key = (c: CodecChoice) => `${c.kind}:${c.name.toLowerCase()}:${c.name === 'H264' ? mode(c) : ''}`;
  const a = current.map(key).sort();
  const b = next.map(key).sort();
  return a.length === b.length && a.every((k, i) => k === b[i]);
}
