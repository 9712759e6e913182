import { AppError } from '../../../common/errors';
import type { Queryable } from '../../db/client';
import { paymentsRepo } from './repo';

/**
 * Refuses a cash-out while the user owes coins from a recharge that was refunded or charged back
 * after they spent its coins (docs/money.md "Refunds and chargebacks"): otherwise coins that were
 * never paid for could leave as money. Called by the cash-out request (server/modules/wallet).
 */
export async function refuseCashoutWhileShortfall(db: Queryable, uid: number): Promise<void> {
  if ((await paymentsRepo.unsettledShortfall(db, uid)) > 0) throw new AppError('reversal_shortfall');
}
