import type { RtpPacket } from 'werift';
import type { Fanout, Forwarder } from './fanout';
import { stapUnit } from './h264';
import { NO_SHIFT, type Resendable, type Shift } from './lean-forward';
import type { PlainBatch } from './srtp';

/**
 * Simulcast: a publisher sends the same picture in several encodings (layers, told apart by RID,
 * RFC 8851/8853), and each viewer is forwarded the one that fits its network and its player.
 */

/**
 * The RIDs a publisher's offer sends as simulcast layers (`a=simulcast:send q;h;f`), in the
 * offer's order, which is taken as lowest first (as mediasoup does: browsers list encodings as
 * the page gave them, and our studio gives them smallest first). Alternatives (`,`) count as their
 * first; paused ones (`~`) still count (they may resume). Empty without simulcast.
 */
export function simulcastRids(offer: string): string[] {
  for (const section of offer.split(/\r?\nm=/).slice(1)) {
    if (!section.startsWith('video')) continue;
    const line = /\na=simulcast:send ([^\r\n\s]+)/.exec(section)?.[1];
    if (!line) return [];
    return line
      .split(';')
      .map((entry) => (entry.split(',')[0] ?? '').replace(/^~/, ''))
      .filter((rid) => /^[A-Za-z0-9_-]{1,16}$/.test(rid));
  }
  return [];
}

/**
 * Whether an RTP payload starts a keyframe, so a viewer may start on this layer here: for H.264
 * (RFC 6184) a packet carrying the sequence parameter set or an IDR slice, alone, in a STAP-A,
 * or as the first fragment of an FU-A. Only H.264 layers are switched (VP8's picture ids would
 * need rewriting too).
 */
export function keyframeStart(payload: Buffer): boolean {
  const type = (payload[0] ?? 0) & 0x1f;
  if (type === 5 || type === 7) return true;
  if (type === 28) return ((payload[1] ?? 0) & 0x80) !== 0 && ((payload[1] ?? 0) & 0x1f) === 5;
  return stapUnit(payload, [5, 7]) !== null;
}

/** Seconds a layer change waits before the next step up, at first and at most (doubling). */
const BACKOFF_MS = 8_000;
const MAX_BACKOFF_MS = 64_000;
/** A viewer steps up after this long without loss on its layer. */
const CLEAN_MS = 4_000;
/** Loss reported this soon after a change belongs to the change (the new layer's burst). */
const SETTLE_MS = 1_500;
/** Fractions of packets lost (receiver reports) above which a viewer steps down, below which it is clean. */
const LOSSY = 0.1;
const CLEAN = 0.02;
/** A layer held this long without loss forgives earlier failures (the backoff starts again). */
const FORGIVE_MS = 30_000;

/**
 * Chooses a viewer's layer from its receiver reports (RFC 3550 fraction lost), as a browser's
 * own loss-based controller chooses its bitrate: start in the middle, step down when a report says
 * more than 10% was lost, step up after 4 s without loss. A step up that brings loss back is
 * tried again only after a backoff that doubles each time (8 s to 64 s), so a network that fits
 * one layer and not the next settles there. `max` caps it (the player is small).
 */
export class LayerChooser {
  #layer: number;
  #max: number;
  #changedAt: number;
  #cleanSince: number | null = null;
  #holdUntil = 0;
  #backoff = BACKOFF_MS;
  #steppedUp = false;

  constructor(
    private readonly layers: number,
    now: number,
    max = layers - 1,
  ) {
    this.#max = Math.max(0, Math.min(layers - 1, max));
    this.#layer = Math.min(this.#max, Math.floor((layers - 1) / 2));
    this.#changedAt = now;
  }

  get layer(): number {
    return this.#layer;
  }

  get max(): number {
    return this.#max;
  }

  /** The player's size allows layers up to `max` (a bigger player may step up at once). */
  setMax(max: number, now: number): number {
    const next = Math.max(0, Math.min(this.layers - 1, max));
    const grew = next > this.#max;
    this.#max = next;
    if (this.#layer > next) this.#change(next, now, false);
    else if (grew && this.#cleanSince !== null && now >= this.#holdUntil)
      this.#change(this.#layer + 1, now, true);
    return this.#layer;
  }

  /** A receiver report's fraction lost (0–1) for the viewer's video; answers the layer to be on. */
  report(lost: number, now: number): number {
    if (now - this.#changedAt < SETTLE_MS) return this.#layer;
    if (lost > LOSSY) {
      this.#cleanSince = null;
      if (this.#steppedUp) this.#backoff = Math.min(MAX_BACKOFF_MS, this.#backoff * 2);
      this.#holdUntil = now + this.#backoff;
      if (this.#layer > 0) this.#change(this.#layer - 1, now, false);
      return this.#layer;
    }
    if (lost > CLEAN) {
      this.#cleanSince = null;
      return this.#layer;
    }
    this.#cleanSince ??= now;
    if (now - this.#cleanSince >= FORGIVE_MS) {
      this.#backoff = BACKOFF_MS;
      this.#steppedUp = false;
    }
    if (this.#layer < this.#max && now >= this.#holdUntil && now - this.#cleanSince >= CLEAN_MS)
      this.#change(this.#layer + 1, now, true);
    return this.#layer;
  }

  #change(layer: number, now: number, up: boolean): void {
    this.#layer = layer;
    this.#changedAt = now;
    this.#cleanSince = null;
    this.#steppedUp = up;
  }
}

/**
 * The highest layer a player of `want` pixels needs: the smallest whose picture covers 80% of it
 * both ways (the player scales it up a little rather than get four times the pixels), or the
 * largest. Layers not measured yet (size 0) are passed over.
 */
export function layerFor(
  sizes: readonly { width: number; height: number }[],
  want: { maxWidth?: number | undefined; maxHeight?: number | undefined },
): number {
  const w = (want.maxWidth ?? 0) * 0.8;
  const h = (want.maxHeight ?? 0) * 0.8;
  const i = sizes.findIndex((s) => s.width > 0 && s.width >= w && s.height >= h);
  return i < 0 ? sizes.length - 1 : i;
}

const HISTORY = 1024;
/** A switch whose keyframe has not come by then asks for it again (a lost PLI or keyframe). */
const KEYFRAME_RETRY_MS = 1_000;

/** Where a LayerSwitch sends the viewer's packets (a LeanSender). */
export interface LayerOutput {
  send(rtp: RtpPacket, again: boolean, shift: Shift): void;
  sendBatch(batch: PlainBatch, packets: readonly RtpPacket[], shift: Shift): void;
  close(): void;
}

/** What a LayerSwitch works with: the room's layers and the viewer's sender. */
export interface LayerSource {
  /** The layers' streams, lowest first. */
  readonly layers: readonly Fanout[];
  /** Asks the publisher for a keyframe of layer `i` (rate-limited by the room). */
  requestKeyframe(layer: number): void;
}

/**
 * Forwards one viewer the video of one simulcast layer at a time, as one stream. A change of
 * layer waits for the new layer's keyframe (asked for at once) and meanwhile goes on forwarding
 * the old one, so the picture never freezes; from the keyframe on, the new layer's packets are
 * moved (Shift) so that the viewer's sequence numbers and timestamps go on from the last packet
 * it got. Retransmissions are found by the sequence number the viewer saw.
 */
export class LayerSwitch implements Resendable {
  #current = -1;
  #target: number;
  #shift: Shift = NO_SHIFT;
  /** The last packet sent in sequence order: its numbers as the viewer saw them, and when (-1: none yet). */
  #lastSeq = -1;
  #lastTs = 0;
  #lastAt = 0;
  #retry: NodeJS.Timeout | null = null;
  readonly #sent: (RtpPacket | undefined)[] = new Array<RtpPacket | undefined>(HISTORY);
  readonly #shifts: Shift[] = new Array<Shift>(HISTORY);
  readonly #outSeq = new Uint16Array(HISTORY);
  readonly #taps: Forwarder[] = [];
  /** Set once made (it finds retransmissions here, so it is made with the switch). */
  sender: LayerOutput | null = null;

  constructor(
    private readonly source: LayerSource,
    initial: number,
  ) {
    this.#target = initial;
    source.layers.forEach((fanout, i) => {
      const tap: Forwarder = {
        send: (rtp) => this.#packets(i, [rtp], null),
        sendBatch: (batch, packets) => this.#packets(i, packets, batch),
      };
      this.#taps.push(tap);
      fanout.forwarders.add(tap);
    });
    this.#wantKeyframe();
  }

  /** The layer the viewer gets now (-1 before its first keyframe). */
  get layer(): number {
    return this.#current;
  }

  /** The layer it is moving to (the current one when it is not). */
  get target(): number {
    return this.#target;
  }

  select(layer: number): void {
    if (layer === this.#target || layer < 0 || layer >= this.source.layers.length) return;
    this.#target = layer;
    if (layer === this.#current) this.#stopRetry();
    else this.#wantKeyframe();
  }

  /** The viewer lost the picture (its PLI), or just connected: a keyframe of the layer it is moving to. */
  keyframe(): void {
    this.source.requestKeyframe(this.#target);
  }

  find(seq: number): { rtp: RtpPacket; shift: Shift } | undefined {
    const i = seq % HISTORY;
    const rtp = this.#sent[i];
    if (!rtp || this.#outSeq[i] !== seq) return undefined;
    return { rtp, shift: this.#shifts[i] ?? NO_SHIFT };
  }

  close(): void {
    this.#stopRetry();
    this.source.layers.forEach((fanout, i) => {
      const tap = this.#taps[i];
      if (tap) fanout.forwarders.delete(tap);
    });
    this.sender?.close();
  }

  #wantKeyframe(): void {
    this.source.requestKeyframe(this.#target);
    this.#stopRetry();
    this.#retry = setInterval(() => {
      if (this.#current === this.#target) this.#stopRetry();
      else this.source.requestKeyframe(this.#target);
    }, KEYFRAME_RETRY_MS);
    this.#retry.unref();
  }

  #stopRetry(): void {
    if (this.#retry) clearInterval(this.#retry);
    this.#retry = null;
  }

  /** Packets of layer `i` (a batch of one turn of the event loop, when `batch` is given). */
  #packets(i: number, packets: readonly RtpPacket[], batch: PlainBatch | null): void {
    let from = 0;
    if (i !== this.#current) {
      if (i !== this.#target) return;
      from = packets.findIndex((rtp) => keyframeStart(rtp.payload));
      if (from < 0) return;
      this.#switchTo(i, packets[from] as RtpPacket);
    }
    const sender = this.sender;
    if (!sender) return;
    if (from === 0 && batch) sender.sendBatch(batch, packets, this.#shift);
    else for (let p = from; p < packets.length; p++) sender.send(packets[p] as RtpPacket, false, this.#shift);
    for (let p = from; p < packets.length; p++) this.#keep(packets[p] as RtpPacket);
  }

  /** From `first` on, layer `i`'s packets go on the viewer's stream where the last one left it. */
  #switchTo(i: number, first: RtpPacket): void {
    this.#current = i;
    if (i === this.#target) this.#stopRetry();
    if (this.#lastSeq < 0) return;
    // Timestamps are 90 kHz for every video codec here; the new layer's first frame comes after
    // the last one sent by the wall-clock time between them.
    const elapsed = Math.max(1, Math.round((performance.now() - this.#lastAt) * 90));
    this.#shift = {
      seq: (this.#lastSeq + 1 - first.header.sequenceNumber) & 0xffff,
      ts: (this.#lastTs + elapsed - first.header.timestamp) >>> 0,
    };
  }

  #keep(rtp: RtpPacket): void {
    const seq = (rtp.header.sequenceNumber + this.#shift.seq) & 0xffff;
    const i = seq % HISTORY;
    this.#sent[i] = rtp;
    this.#shifts[i] = this.#shift;
    this.#outSeq[i] = seq;
    if (this.#lastSeq < 0 || ((seq - this.#lastSeq) & 0xffff) < 0x8000) {
      this.#lastSeq = seq;
      this.#lastTs = (rtp.header.timestamp + this.#shift.ts) >>> 0;
      this.#lastAt = performance.now();
    }
  }
}
