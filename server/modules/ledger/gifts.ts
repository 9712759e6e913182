import { AppError } from '../../../common/errors';
import { applyRatio, type Ratio } from '../../../common/money';
import type { Gift, Sticker } from '../../../common/room';
import type { Db } from '../../db/client';
import type { Bus } from '../../realtime/bus';
import { existingLive } from '../live/existing';
import { roomRepo } from '../room/repo';
import { GiftBatcher, type GiftReceipt } from './gift-batcher';
import { giftRepo } from './gift-repo';
import type { Ledger } from './ledger';
import type { Currency } from './repo';

export type { Gift };

/** Most of one gift sent at once (a combo). */
export const MAX_COMBO = 99;

/**
 * Sending gifts in a live room (spec giftV2): the host must be live, nobody gifts themselves,
 * only video gifts play (spec §4: lottie raises an error). Coins go through the GiftBatcher; the
 * room sees the gift once it is paid (a retry does not play it again).
 */
export class GiftService {
  readonly #batcher: GiftBatcher;
  #catalogue: { at: number; gifts: Gift[] } | null = null;
  #stickers: { at: number; list: Sticker[] } | null = null;

  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
    private readonly bus: Bus,
    /**
     * Diamonds per coin as an exact ratio: the host gets coins × rate rounded down, which is
     * zero for a one-coin gift at a rate below one (not forced up to one: the rate is the rule).
     */
    private readonly opts: { diamondsPerCoin: Ratio; log?: (err: unknown) => void },
  ) {
    this.#batcher = new GiftBatcher(db);
  }

  /** The gift wall (cached for a minute: every room asks). */
  async catalogue(): Promise<Gift[]> {
    if (this.#catalogue && Date.now() - this.#catalogue.at < 60_000) return this.#catalogue.gifts;
    const gifts = await giftRepo.activeGifts(this.db);
    this.#catalogue = { at: Date.now(), gifts };
    return gifts;
  }

  /** The sticker set (spec giftV2H5/giftStickers), cached like the gift wall. */
  async stickers(): Promise<Sticker[]> {
    if (this.#stickers && Date.now() - this.#stickers.at < 60_000) return this.#stickers.list;
    const list = await giftRepo.activeStickers(this.db);
    this.#stickers = { at: Date.now(), list };
    return list;
  }

  async hasSticker(id: number): Promise<boolean> {
    return (await this.stickers()).some((s) => s.sticker_id === id);
  }

  async send(
    who: { uid: number; name: string },
    req: { vid: string; giftId: number; count: number; key: string },
  ): Promise<GiftReceipt & { balances: Record<Currency, number> }> {
    const gift = (await this.catalogue()).find((g) => g.gift_id === req.giftId);
    if (!gift) throw new AppError('gift_not_found');
    if (gift.format !== 'video') throw new AppError('gift_format_unsupported');
    if (!Number.isInteger(req.count) || req.count < 1 || req.count > MAX_COMBO)
      throw new AppError('validation_failed', { field: 'count' });
    const live = await existingLive(this.db, req.vid);
    if (live.status !== 'live') throw new AppError('host_offline');
    if (live.uid === who.uid) throw new AppError('gift_self');
    // Someone the host blocked is out of the room: no gift from them plays there or ranks.
    if (await roomRepo.isBlocked(this.db, live.uid, who.uid)) throw new AppError('blocked_permanently');
    const coins = gift.price * req.count;
    const receipt = await this.#batcher.send({
      // Keys are the sender's: two people's requests can never collide.
      key: `gift:${who.uid}:${req.key}`,
      sender: who.uid,
      host: live.uid,
      vid: live.vid,
      giftId: gift.gift_id,
      count: req.count,
      coins,
      diamonds: applyRatio(coins, this.opts.diamondsPerCoin),
    });
    // Paid: from here on nothing may answer as a failure, or the sender would pay again. A room
    // that does not hear of the gift loses its animation, not anyone's coins.
    if (!receipt.replay)
      await this.bus
        .publish(live.vid, {
          t: 'gift',
          from: { uid: who.uid, name: who.name, role: 'viewer' },
          gift_id: gift.gift_id,
          count: req.count,
          coins,
        })
        .catch((err: unknown) => this.opts.log?.(err));
    return { ...receipt, balances: await this.ledger.balances(who.uid) };
  }
}
