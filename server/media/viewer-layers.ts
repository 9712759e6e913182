import { RtcpRrPacket, RtcpSrPacket, type RTCRtpSender } from 'werift';
import { AppError } from '../../common/errors';
import type { LayerState, LayerWish } from './engine';
import { LeanSender } from './lean-forward';
import { LayerChooser, layerFor, LayerSwitch } from './simulcast';
import type { VideoLayer } from './video-layer';

/**
 * One viewer's video in a room with simulcast layers: forwarded one layer at a time
 * (LayerSwitch), chosen from the viewer's receiver reports (LayerChooser) within what its
 * player's size calls for (WHEP's layer extension).
 */
export class ViewerLayers {
  readonly #switch: LayerSwitch;
  readonly #chooser: LayerChooser;
  readonly #unsubscribe: (() => void)[] = [];

  /** `rids`: the layers' names, lowest first (as many as `layers`). */
  constructor(
    private readonly layers: readonly VideoLayer[],
    private readonly rids: readonly string[],
    out: RTCRtpSender,
  ) {
    this.#chooser = new LayerChooser(layers.length, performance.now());
    this.#switch = new LayerSwitch(
      { layers: layers.map((l) => l.fanout), requestKeyframe: (i) => layers[i]?.requestKeyframe() },
      this.#chooser.layer,
    );
    this.#switch.sender = new LeanSender(out, this.#switch);
    const ssrc = out.ssrc;
    const reports = out.onRtcp.subscribe((packet) => {
      if (!(packet instanceof RtcpRrPacket || packet instanceof RtcpSrPacket)) return;
      for (const report of packet.reports)
        if (report.ssrc === ssrc)
          this.#switch.select(this.#chooser.report(report.fractionLost / 256, performance.now()));
    });
    const pli = out.onPictureLossIndication.subscribe(() => this.#switch.keyframe());
    this.#unsubscribe.push(reports.unSubscribe, pli.unSubscribe);
  }

  /** The viewer connected (or lost its picture): a keyframe of the layer it is moving to. */
  keyframe(): void {
    this.#switch.keyframe();
  }

  state(): LayerState {
    return {
      layers: this.layers.map((l, i) => ({ encodingId: this.rids[i] ?? String(i), ...l.size })),
      current: this.#switch.layer,
      target: this.#switch.target,
      max: this.#chooser.max,
    };
  }

  /** Caps the layers by the player's size or a layer's RID (validation_failed: no such RID). */
  select(wish: LayerWish): LayerState {
    const named = wish.encodingId === undefined ? -1 : this.rids.indexOf(wish.encodingId);
    if (wish.encodingId !== undefined && named < 0) throw new AppError('validation_failed');
    const sizes = this.layers.map((l) => l.size);
    const max = named >= 0 ? named : layerFor(sizes, wish);
    this.#switch.select(this.#chooser.setMax(max, performance.now()));
    return this.state();
  }

  close(): void {
    for (const u of this.#unsubscribe) u();
    this.#switch.close();
  }
}
