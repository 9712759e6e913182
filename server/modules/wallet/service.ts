import { AppError } from '../../../common/errors';
import type { Db } from '../../db/client';
import { checkAmount, type Currency, type Ledger } from '../ledger';
import { collectibles, type OwnedCollectible } from '../collectibles';

/** Converting diamonds to coins (spec §2), and the NFT wallet. */
export class WalletService {
  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
    private readonly diamondsPerCoin: number,
  ) {
    // Whole diamonds per coin (config checks it): conversions stay exact integer division.
    if (!Number.isSafeInteger(diamondsPerCoin) || diamondsPerCoin < 1)
      throw new Error(`diamonds per coin must be a positive whole number, not ${diamondsPerCoin}`);
  }

  /** Diamonds in, whole coins out, in one movement; the same key converts once. */
  async convert(uid: number, input: { diamonds: number; key: string }): Promise<Record<Currency, number>> {
    checkAmount(input.diamonds, 'diamonds');
    if (input.diamonds % this.diamondsPerCoin !== 0) throw new AppError('convert_amount_invalid');
    const coins = input.diamonds / this.diamondsPerCoin;
    await this.ledger.post({
      kind: 'convert',
      key: `convert:${uid}:${input.key}`,
      actor: uid,
      meta: { diamonds: input.diamonds, coins },
      postings: [
        {
          from: { uid, currency: 'diamond' },
          to: { system: 'conversion', currency: 'diamond' },
          amount: input.diamonds,
        },
        { from: { system: 'conversion', currency: 'coin' }, to: { uid, currency: 'coin' }, amount: coins },
      ],
      also: (tx) => collectibles.award(tx, uid, 'star_maker'),
    });
    return this.ledger.balances(uid);
  }

  async collectibles(uid: number): Promise<OwnedCollectible[]> {
    return collectibles.owned(this.db, uid);
  }
}
