import { AppError } from '../../../common/errors';
import { applyRatio, type Ratio } from '../../../common/money';
import type { Gift, GiftTotals, ReceivedGift, Sticker } from '../../../common/api/gifts';
import { giftPlayable, MAX_COMBO } from '../../../common/room';
import type { Db } from '../../db/client';
import type { Bus } from '../../realtime/bus';
import { existingLive, type LiveDirectory } from '../live';
import { GiftBatcher, type Ledger } from '../ledger';
import { Recent } from '../../infra/recent';
import { giftRepo } from './repo';

export type { Gift };

export { MAX_COMBO };

/**
 * Sending gifts in a live room (spec giftV2): the host must be live, nobody gifts themselves,
 * only video gifts play (spec §4: lottie raises an error). Coins go through the GiftBatcher; the
 * room sees the gift once it is paid (a retry does not play it again).
 */
export class GiftService {
  readonly #batcher: GiftBatcher;
  /** The catalogue and the stickers, read once a minute (every room asks; a first rush shares one read). */
  readonly #catalogue = new Recent<'gifts', Gift[]>({ ttlMs: 60_000 });
  readonly #stickers = new Recent<'stickers', Sticker[]>({ ttlMs: 60_000 });

  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
    private readonly bus: Bus,
    /** Broadcast → host: a popular room's gifts do not each look it up (a host never changes). */
    private readonly directory: LiveDirectory,
    /**
     * Diamonds per coin as an exact ratio: the host gets coins × rate rounded down, which is
     * zero for a one-coin gift at a rate below one (not forced up to one: the rate is the rule).
     */
    private readonly opts: {
      diamondsPerCoin: Ratio;
      log?: (err: unknown) => void;
      /** Told of the senders and hosts whose wallets a batch of gifts touched (GiftBatcher). */
      walletsChanged?: (uids: number[]) => void;
      /** Told of each gift paid, once it committed (a PK battle's score follows its room's gifts). */
      gifted?: (vid: string) => void;
      /** Whether `uid` speaks on a seat of the audio room `vid` (a gift may go to them). */
      speaks?: (vid: string, uid: number) => Promise<boolean>;
    },
  ) {
    this.#batcher = new GiftBatcher(db, { changed: opts.walletsChanged });
  }

  /**
   * The gift wall: only gifts that can be sent and shown (giftPlayable), so a viewer is never
   * offered one that the send refuses.
   */
  async wall(): Promise<Gift[]> {
    return (await this.catalogue()).filter(giftPlayable);
  }

  /** Every active gift of the catalogue (cached for a minute: every room asks). */
  catalogue(): Promise<Gift[]> {
    return this.#catalogue.get('gifts', () => giftRepo.activeGifts(this.db));
  }

  /** Staff changed the catalogue or the stickers: the next reader loads them again. */
  forgetCatalogue(): void {
    this.#catalogue.clear();
    this.#stickers.clear();
  }

  /** The sticker set (spec giftV2H5/giftStickers), cached like the gift wall. */
  stickers(): Promise<Sticker[]> {
    return this.#stickers.get('stickers', () => giftRepo.activeStickers(this.db));
  }

  async hasSticker(id: number): Promise<boolean> {
    return (await this.stickers()).some((s) => s.sticker_id === id);
  }

  async send(
    who: { uid: number; name: string },
    req: {
      vid: string;
      giftId: number;
      count: number;
      key: string;
      /** A speaker of the host's audio room to give it to instead of the host. */
      to?: { uid: number; name: string };
    },
  ): Promise<{ txId: number; replay: boolean; coins: number }> {
    const gift = (await this.catalogue()).find((g) => g.gift_id === req.giftId);
    if (!gift) throw new AppError('gift_not_found');
    if (!giftPlayable(gift)) throw new AppError('gift_format_unsupported');
    if (!Number.isInteger(req.count) || req.count < 1 || req.count > MAX_COMBO)
      throw new AppError('validation_failed', { field: 'count' });
    const host = await this.#host(req.vid);
    const to = req.to && req.to.uid !== host ? req.to : undefined;
    if ((to?.uid ?? host) === who.uid) throw new AppError('gift_self');
    // Only to someone on a seat now; one who leaves while the gift commits still gets it.
    if (to && !(await this.opts.speaks?.(req.vid, to.uid)))
      throw new AppError('not_allowed', { reason: 'not_speaking' });
    const coins = gift.price * req.count;
    // The batch itself refuses a host who is not live now (host_offline) and someone the host
    // blocked (out of the room: no gift from them plays there or ranks).
    const receipt = await this.#batcher.send({
      // Keys are the sender's: two people's requests can never collide.
      key: `gift:${who.uid}:${req.key}`,
      sender: who.uid,
      host,
      ...(to ? { to: to.uid } : {}),
      vid: req.vid,
      giftId: gift.gift_id,
      count: req.count,
      coins,
      diamonds: applyRatio(coins, this.opts.diamondsPerCoin),
    });
    // Paid: from here on nothing may answer as a failure, or the sender would pay again. The
    // answer goes as soon as the batch committed; the room hears of the gift meanwhile (one that
    // does not loses its animation, not anyone's coins).
    if (!receipt.replay) this.opts.gifted?.(req.vid);
    if (!receipt.replay)
      void this.bus
        .publish(req.vid, {
          t: 'gift',
          from: { uid: who.uid, name: who.name, role: 'viewer' },
          gift_id: gift.gift_id,
          count: req.count,
          coins,
          tx_id: receipt.txId,
          ...(to ? { to } : {}),
        })
        .catch((err: unknown) => this.opts.log?.(err));
    const coinsLeft = receipt.coinsLeft ?? (await this.ledger.balances(who.uid)).coin;
    return { txId: receipt.txId, replay: receipt.replay, coins: coinsLeft };
  }

  /**
   * The gifts of a broadcast for its host (the studio's Gifts tab): newest first, paged back from
   * the transaction `before`, with the totals and the rate that turned coins into diamonds (the
   * tab prices gifts that arrive as room events with it). Only the host may read them.
   */
  async received(
    uid: number,
    vid: string,
    page: { before: number | null; limit: number },
  ): Promise<{ list: ReceivedGift[]; totals: GiftTotals; more: boolean; rate: Ratio }> {
    const live = await existingLive(this.db, vid);
    if (live.uid !== uid) throw new AppError('not_room_owner');
    // One more than asked says whether there are older ones.
    const { list, totals } = await giftRepo.received(this.db, vid, page.before, page.limit + 1);
    return {
      list: list.slice(0, page.limit),
      totals,
      more: list.length > page.limit,
      rate: this.opts.diamondsPerCoin,
    };
  }

  /** The broadcast's host; `video_not_found` for a broadcast that does not exist (or was deleted). */
  async #host(vid: string): Promise<number> {
    return this.directory.host(vid);
  }
}
