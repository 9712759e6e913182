import { randomBytes } from 'node:crypto';

/**
 * One broadcast's Low-Latency HLS (RFC 8216bis: partial segments, blocking playlist reload,
 * preload hints) as it is packaged: the init segment, the recent segments and their parts, and
 * the playlists that list them. Everything is in memory and short-lived: a viewer far behind the
 * live edge is told the part is gone, not served an old one.
 *
 * One packaging run has its own name (`run`), part of every URL below the multivariant playlist:
 * a new run (the origin moved, the picture's size changed) starts its numbering again, and a
 * cache in front must never mix two runs' `p3.1.m4s`. See docs/decisions.md ("LL-HLS").
 */

/** Parts are cut at this duration (or before the frame that would pass it). */
export const PART_TARGET_S = 0.2;
/** Segments start on a keyframe at about this duration (the engine asks for one this often). */
export const SEGMENT_S = 2;
/**
 * The playlist's target duration: twice the usual segment, so a keyframe that comes late does not
 * break the rule that no segment rounds to more; a segment is cut without one at this length.
 */
export const TARGET_DURATION_S = 4;
/** hls.js plays this far behind the newest part (the spec asks at least 3 part targets). */
export const PART_HOLD_BACK_S = 0.6;
/** Segments listed in the playlist, and how many of the newest list their parts. */
const LISTED_SEGMENTS = 6;
const SEGMENTS_WITH_PARTS = 3;
/** Segments kept past the listed ones, for a viewer that read an older playlist. */
const KEPT_SEGMENTS = 4;
/** A blocking reload waits at most this long (the spec: three target durations at most). */
export const BLOCK_MS = 3 * SEGMENT_S * 1000;

interface Part {
  data: Buffer;
  duration: number;
  independent: boolean;
}

interface Segment {
  msn: number;
  parts: Part[];
  /** Wall-clock time of its first frame (EXT-X-PROGRAM-DATE-TIME). */
  at: number;
  done: boolean;
  bytes: Buffer | null;
}

export interface StreamInfo {
  /** RFC 6381 codecs, e.g. "avc1.42e01f,opus". */
  codecs: string;
  width: number;
  height: number;
}

/** What a request for a part or segment finds. */
export type Media = { data: Buffer } | 'later' | 'gone' | 'unknown';

export type Blocked = 'ok' | 'timeout' | 'ended' | 'too_far';

export class HlsStream {
  readonly run = randomBytes(6).toString('base64url');
  #init: Buffer | null = null;
  #info: StreamInfo | null = null;
  #segments: Segment[] = [];
  #ended = false;
  /** Told whenever a part is added or the stream ends. */
  readonly #waiters = new Set<() => void>();
  /** Bytes of the listed segments, for the multivariant playlist's BANDWIDTH. */
  #bits = { bytes: 0, seconds: 0 };

  get info(): StreamInfo | null {
    return this.#info;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Playable: the init segment and one whole segment exist (hls.js gives up on parts alone). */
  get ready(): boolean {
    return this.#init !== null && this.#segments.some((s) => s.done);
  }

  setInit(data: Buffer, info: StreamInfo): void {
    this.#init = data;
    this.#info = info;
  }

  init(): Buffer | null {
    return this.#init;
  }

  /**
   * A part as it is cut. `segment` starts a new segment with it (a keyframe at the segment's
   * length, or the hard limit), `at` is its first frame's wall-clock time.
   */
  addPart(
    data: Buffer,
    duration: number,
    opts: { independent: boolean; segment: boolean; at: number },
  ): void {
    if (this.#ended) return;
    let current = this.#segments.at(-1);
    if (!current || opts.segment) {
      if (current) this.#close(current);
      current = { msn: current ? current.msn + 1 : 0, parts: [], at: opts.at, done: false, bytes: null };
      this.#segments.push(current);
      const excess = this.#segments.length - (LISTED_SEGMENTS + KEPT_SEGMENTS + 1);
      if (excess > 0) this.#segments.splice(0, excess);
    }
    current.parts.push({ data, duration, independent: opts.independent });
    this.#wake();
  }

  #close(segment: Segment): void {
    segment.done = true;
    this.#bits.bytes += segment.parts.reduce((n, p) => n + p.data.length, 0);
    this.#bits.seconds += segmentDuration(segment);
    // A running figure over roughly the last minute.
    if (this.#bits.seconds > 60)
      this.#bits = { bytes: this.#bits.bytes / 2, seconds: this.#bits.seconds / 2 };
  }

  /** The broadcast's media ended here: waiting requests are answered, nothing more comes. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const last = this.#segments.at(-1);
    if (last && !last.done) this.#close(last);
    this.#wake();
  }

  #wake(): void {
    this.#text = null;
    for (const w of [...this.#waiters]) w();
  }

  #listed(): Segment[] {
    // The current (unfinished) segment, and the finished ones before it.
    const done = this.#segments.filter((s) => s.done);
    const current = this.#segments.at(-1);
    const listed = done.slice(-LISTED_SEGMENTS);
    if (current && !current.done) listed.push(current);
    return listed;
  }

  /** Whether a blocking reload for part `part` of segment `msn` (or the whole segment) can answer. */
  #satisfied(msn: number, part: number | undefined): boolean {
    const last = this.#segments.at(-1);
    if (!last) return false;
    if (last.msn > msn) return true;
    if (part === undefined) return last.msn === msn && last.done;
    return last.msn === msn && last.parts.length > part;
  }

  /**
   * Waits until the playlist holds part `part` of segment `msn` (or the whole segment), as a
   * blocking reload asks (`_HLS_msn`, `_HLS_part`). Asking more than two segments ahead is an
   * error (the spec's 400).
   */
  async until(msn: number, part: number | undefined, timeoutMs = BLOCK_MS): Promise<Blocked> {
    const last = this.#segments.at(-1)?.msn ?? -1;
    if (msn > last + 2) return 'too_far';
    return this.#wait(() => this.#satisfied(msn, part), timeoutMs);
  }

  /** Waits until the stream is ready to be played (see `ready`). */
  async whenReady(timeoutMs = BLOCK_MS): Promise<Blocked> {
    return this.#wait(() => this.ready, timeoutMs);
  }

  #wait(done: () => boolean, timeoutMs: number): Promise<Blocked> {
    if (done()) return Promise.resolve('ok');
    if (this.#ended) return Promise.resolve('ended');
    return new Promise((resolve) => {
      const finish = (result: Blocked) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(result);
      };
      const check = () => {
        if (done()) finish('ok');
        else if (this.#ended) finish('ended');
      };
      const timer = setTimeout(() => finish('timeout'), timeoutMs);
      this.#waiters.add(check);
    });
  }

  /** Part `i` of segment `msn`: there, the next one to come ('later'), gone, or unknown. */
  part(msn: number, i: number): Media {
    const segment = this.#segments.find((s) => s.msn === msn);
    if (segment) {
      const part = segment.parts[i];
      if (part) return { data: part.data };
      if (!segment.done && i === segment.parts.length) return 'later';
      return 'unknown';
    }
    const last = this.#segments.at(-1);
    if (last && msn === last.msn + 1 && i === 0 && !this.#ended) return 'later';
    return this.#gone(msn);
  }

  /** A whole segment (its parts together), once it is finished. */
  segment(msn: number): Media {
    const segment = this.#segments.find((s) => s.msn === msn);
    if (!segment) return this.#gone(msn);
    if (!segment.done) return 'later';
    segment.bytes ??= Buffer.concat(segment.parts.map((p) => p.data));
    return { data: segment.bytes };
  }

  #gone(msn: number): Media {
    const first = this.#segments[0];
    return first && msn < first.msn ? 'gone' : 'unknown';
  }

  /**
   * Waits for a part that is the next to be cut (a preload hint: Safari asks for it before it
   * exists), then returns what is there.
   */
  async partWhenCut(msn: number, i: number): Promise<Media> {
    const now = this.part(msn, i);
    if (now !== 'later') return now;
    await this.#wait(() => this.part(msn, i) !== 'later', BLOCK_MS);
    const then = this.part(msn, i);
    return then === 'later' ? 'unknown' : then;
  }

  /**
   * The media playlist (RFC 8216bis §4.4) with parts for the newest segments and a preload hint;
   * written once per part (every viewer's reload asks for the same text).
   */
  playlist(): string {
    this.#text ??= this.#write();
    return this.#text;
  }

  #text: string | null = null;

  #write(): string {
    const listed = this.#listed();
    const first = listed[0];
    const lines = [
      '#EXTM3U',
      '#EXT-X-VERSION:9',
      `#EXT-X-TARGETDURATION:${TARGET_DURATION_S}`,
      `#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=${PART_HOLD_BACK_S.toFixed(3)}`,
      `#EXT-X-PART-INF:PART-TARGET=${PART_TARGET_S.toFixed(3)}`,
      `#EXT-X-MEDIA-SEQUENCE:${first?.msn ?? 0}`,
      '#EXT-X-MAP:URI="init.mp4"',
    ];
    const withParts = new Set(listed.slice(-SEGMENTS_WITH_PARTS));
    for (const s of listed) {
      lines.push(`#EXT-X-PROGRAM-DATE-TIME:${new Date(s.at).toISOString()}`);
      if (withParts.has(s))
        s.parts.forEach((p, i) =>
          lines.push(
            `#EXT-X-PART:DURATION=${p.duration.toFixed(5)},URI="p${s.msn}.${i}.m4s"${p.independent ? ',INDEPENDENT=YES' : ''}`,
          ),
        );
      if (s.done) lines.push(`#EXTINF:${segmentDuration(s).toFixed(5)},`, `s${s.msn}.m4s`);
    }
    const last = listed.at(-1);
    if (this.#ended) lines.push('#EXT-X-ENDLIST');
    else if (last) {
      const next = last.done ? `p${last.msn + 1}.0.m4s` : `p${last.msn}.${last.parts.length}.m4s`;
      lines.push(`#EXT-X-PRELOAD-HINT:TYPE=PART,URI="${next}"`);
    }
    return `${lines.join('\n')}\n`;
  }

  /**
   * The multivariant playlist: this run's one rendition, with what a player decides by; `prefix`
   * goes before its media playlist's name (a CDN's URL; empty: beside this playlist).
   */
  multivariant(prefix = ''): string {
    const info = this.#info;
    const bandwidth =
      this.#bits.seconds > 0 ? Math.round((this.#bits.bytes * 8) / this.#bits.seconds) : 2_500_000;
    const attrs = [
      `BANDWIDTH=${Math.max(bandwidth, 100_000)}`,
      ...(info ? [`CODECS="${info.codecs}"`, `RESOLUTION=${info.width}x${info.height}`] : []),
    ];
    return [
      '#EXTM3U',
      '#EXT-X-VERSION:9',
      `#EXT-X-STREAM-INF:${attrs.join(',')}`,
      `${prefix}${this.run}/media.m3u8`,
      '',
    ].join('\n');
  }
}

function segmentDuration(s: Segment): number {
  return s.parts.reduce((n, p) => n + p.duration, 0);
}
