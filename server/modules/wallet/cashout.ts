import { AppError } from '../../../common/errors';
import {
  cashoutAmount,
  cashoutWeek,
  type MoneyRules,
  type PayeeMethod,
  type WithdrawalStatus,
} from '../../../common/money';
import { isEmail } from '../../../common/validation';
import type { AlsoInTransaction, Db, Queryable } from '../../db/client';
import { enforceLimits, LIMITS } from '../../infra/ratelimit';
import type { Kv } from '../../infra/kv';
import { phoneFromParts, type RequestMeta, type SmsCodes } from '../auth';
import { checkAmount, type Ledger } from '../ledger';
import { refuseCashoutWhileShortfall } from '../payments';
import { collectibles } from '../collectibles';
import { cashoutRepo, type PayeeRow, type WithdrawalRow } from './cashout-repo';

/** The SMS code purpose for connecting a payee account. */
const PAYEE_CODE = 'payee';

export type WithdrawalAction = 'approve' | 'reject' | 'paid' | 'failed';
/** A decision's outcome: the request's state now, and whether it waits for a second approval. */
export interface Decided {
  status: WithdrawalStatus;
  awaiting_second: boolean;
}

/** What each staff action does: which states it leaves, where to, and where the held diamonds go. */
const ACTIONS: Record<
  WithdrawalAction,
  { from: WithdrawalStatus[]; to: WithdrawalStatus; diamonds: 'keep' | 'return' | 'pay' }
> = {
  approve: { from: ['waiting_review'], to: 'approved', diamonds: 'keep' },
  reject: { from: ['waiting_review', 'approved'], to: 'rejected', diamonds: 'return' },
  paid: { from: ['approved'], to: 'successful', diamonds: 'pay' },
  failed: { from: ['approved'], to: 'failed', diamonds: 'return' },
};

/**
 * Cash out (spec §2, §4, §5, §6, §9): a payee account connected with a phone code and approved by
 * staff; requests of at least the minimum and within the weekly cap (weeks in UTC-7), whose
 * diamonds are held by the ledger at once and either paid out or returned when staff decide.
 */
export class CashoutService {
  constructor(
    private readonly db: Db,
    private readonly kv: Kv,
    private readonly ledger: Ledger,
    private readonly codes: SmsCodes,
    readonly rules: MoneyRules,
    private readonly limitScale = 1,
    private readonly opts: {
      /** The clock the cash-out week is read from (tests set it to either side of a week's start). */
      now?: () => Date;
      /** Refuses a banned account (server/modules/safety): its payouts are held. */
      mayCashOut?: (uid: number) => Promise<void>;
      /** Cash-outs of at least this many cents need two different approvers (none when absent). */
      secondApprovalCents?: number;
    } = {},
  ) {}

  #now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  get minDiamonds(): number {
    return this.rules.minCashoutUsd * this.rules.diamondsPerUsd;
  }

  async overview(uid: number) {
    const week = cashoutWeek(this.#now(), this.rules.weekUtcOffset);
    return {
      balances: await this.ledger.balances(uid),
      payee: await cashoutRepo.currentPayee(this.db, uid),
      week: {
        start: week,
        used_cents: await cashoutRepo.weekUsedCents(this.db, uid, week),
        cap_cents: this.rules.weeklyCapUsd * 100,
      },
      withdrawals: await cashoutRepo.withdrawals(this.db, uid, 20),
    };
  }

  /** Sends the code that proves the payee's phone (once a minute; the SMS limits apply). */
  async sendPayeeCode(uid: number, input: { country: string; phone: string }, meta: RequestMeta) {
    const phone = phoneFromParts(input.country, input.phone, meta.country);
    await enforceLimits(
      this.kv,
      [
        { limit: LIMITS.smsPhone, key: phone },
        { limit: LIMITS.smsIp, key: meta.ip },
      ],
      this.limitScale,
    );
    return { phone, ...(await this.codes.send(`${PAYEE_CODE}:${uid}`, phone, meta.locale)) };
  }

  /** Connects a payee account (replacing the current one); it waits for staff approval. */
  async connectPayee(
    uid: number,
    input: { method: PayeeMethod; account: string; country: string; phone: string; code: string },
    meta: RequestMeta,
  ): Promise<PayeeRow> {
    const account = input.account.trim().toLowerCase();
    if (!isEmail(account)) throw new AppError('payee_invalid');
    const phone = phoneFromParts(input.country, input.phone, meta.country);
    await this.codes.use(`${PAYEE_CODE}:${uid}`, phone, input.code);
    return this.db.transaction(async (tx) => {
      await cashoutRepo.retirePayees(tx, uid);
      return cashoutRepo.insertPayee(tx, { uid, method: input.method, account, phone });
    });
  }

  /**
   * A cash-out request; the same key makes it once. Only the diamonds worth whole cents are held
   * and paid (see cashoutAmount); the rest of the request stays in the balance.
   */
  async request(uid: number, input: { diamonds: number; key: string }): Promise<WithdrawalRow> {
    checkAmount(input.diamonds, 'diamonds');
    await this.opts.mayCashOut?.(uid);
    const payee = await cashoutRepo.currentPayee(this.db, uid);
    if (payee?.status !== 'approved') throw new AppError('payee_not_approved');
    await refuseCashoutWhileShortfall(this.db, uid);
    if (input.diamonds < this.minDiamonds) throw new AppError('cashout_below_minimum');
    // The minimum is whole dollars, so what is held is never below it.
    const { diamonds, cents } = cashoutAmount(input.diamonds, this.rules.diamondsPerUsd);
    if (!Number.isSafeInteger(cents)) throw new AppError('validation_failed', { field: 'diamonds' });
    const week = cashoutWeek(this.#now(), this.rules.weekUtcOffset);
    const capCents = this.rules.weeklyCapUsd * 100;
    try {
      await this.ledger.post({
        kind: 'cashout_hold',
        key: `cashout:${uid}:${input.key}`,
        actor: uid,
        // What was asked, when it differs from what is held: a retry must ask the same.
        meta: {
          diamonds,
          payee: payee.id,
          ...(diamonds !== input.diamonds && { requested: input.diamonds }),
        },
        postings: [
          {
            from: { uid, currency: 'diamond' },
            to: { system: 'cashout_hold', currency: 'diamond' },
            amount: diamonds,
          },
        ],
        // The user's diamond account is locked by now: their requests are checked one at a time.
        also: async (tx, txId) => {
          if ((await cashoutRepo.weekUsedCents(tx, uid, week)) + cents > capCents)
            throw new AppError('cashout_weekly_cap');
          await cashoutRepo.insertWithdrawal(tx, {
            uid,
            clientKey: input.key,
            payeeId: payee.id,
            diamonds,
            cents,
            week,
            holdTxId: txId,
          });
        },
      });
    } catch (err) {
      // Spec §8: not enough diamonds for the minimum reads as "below the cash-out minimum".
      if (err instanceof AppError && err.errorName === 'insufficient_diamonds') {
        const { diamond } = await this.ledger.balances(uid);
        if (diamond < this.minDiamonds) throw new AppError('cashout_below_minimum');
      }
      throw err;
    }
    const row = await cashoutRepo.withdrawalByKey(this.db, uid, input.key);
    if (!row) throw new AppError('internal');
    return row;
  }

  // Staff.

  /** A person's payee account (the approved or pending one, else the latest rejected), for staff. */
  payeeOf(uid: number): Promise<PayeeRow | null> {
    return cashoutRepo.currentPayee(this.db, uid);
  }

  async queue() {
    return {
      payees: await cashoutRepo.pendingPayees(this.db),
      withdrawals: (await cashoutRepo.openWithdrawals(this.db)).map((w) => ({
        ...w,
        needs_two: this.#needsTwo(w.usd_cents),
      })),
      second_approval_cents: this.opts.secondApprovalCents ?? null,
    };
  }

  #needsTwo(usdCents: number): boolean {
    return this.opts.secondApprovalCents !== undefined && usdCents >= this.opts.secondApprovalCents;
  }

  /**
   * Staff never decide on their own payee account or cash-out: that takes someone else. `audit`
   * is written in the transaction that records the decision.
   */
  async reviewPayee(
    staffUid: number,
    payeeId: number,
    approve: boolean,
    audit?: AlsoInTransaction,
  ): Promise<void> {
    const payee = await cashoutRepo.payee(this.db, payeeId);
    if (!payee) throw new AppError('not_found');
    if (payee.uid === staffUid) throw new AppError('review_own');
    await this.db.transaction(async (tx) => {
      if (!(await cashoutRepo.reviewPayee(tx, payeeId, approve ? 'approved' : 'rejected', staffUid)))
        throw new AppError('already_reviewed');
      await audit?.(tx);
    });
  }

  /**
   * A staff decision. It is made on the state staff saw: when another decision moved the request
   * meanwhile, this one lost and is refused (`already_reviewed`), even where the new state would
   * allow it (a rejection of a request waiting for review does not undo an approval made at the
   * same moment). The same decision twice (a double click, a retry) answers as done.
   *
   * `audit` is told each change this decision makes, in the transaction that makes it (the
   * diamonds' movement too): a decision answered as done without a change (the same one again)
   * writes nothing.
   */
  async reviewWithdrawal(
    staffUid: number,
    id: number,
    action: WithdrawalAction,
    audit?: (tx: Queryable, outcome: Decided) => Promise<void>,
  ): Promise<Decided> {
    const w = await cashoutRepo.withdrawal(this.db, id);
    if (!w) throw new AppError('not_found');
    if (w.uid === staffUid) throw new AppError('review_own');
    const step = ACTIONS[action];
    if (w.status === step.to) return { status: w.status, awaiting_second: false };
    if (!step.from.includes(w.status)) throw new AppError('already_reviewed');
    const record = audit ?? (() => Promise.resolve());
    if (action === 'approve' && this.#needsTwo(w.usd_cents)) return this.#approveLarge(staffUid, w, record);
    await this.#settle(staffUid, w, action, record);
    return { status: step.to, awaiting_second: false };
  }

  /** `change` made in a transaction, with the audit entry of its outcome when it changed anything. */
  async #write(
    audit: (tx: Queryable, outcome: Decided) => Promise<void>,
    outcome: Decided,
    change: (tx: Queryable) => Promise<boolean>,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const changed = await change(tx);
      if (changed) await audit(tx, outcome);
      return changed;
    });
  }

  /**
   * A large cash-out's approval: the first records who gave it; the second, by someone else,
   * approves. The same member twice is refused (`second_approver_required`); a first approval
   * given twice (a double click) answers as given.
   */
  async #approveLarge(
    staffUid: number,
    w: WithdrawalRow,
    audit: (tx: Queryable, outcome: Decided) => Promise<void>,
  ): Promise<Decided> {
    const first: Decided = { status: 'waiting_review', awaiting_second: true };
    if (w.first_approved_by === null) {
      if (await this.#write(audit, first, (tx) => cashoutRepo.firstApproval(tx, w.id, staffUid)))
        return first;
      // Someone gave the first approval meanwhile: this one may be the second.
      const now = await cashoutRepo.withdrawal(this.db, w.id);
      if (now?.status === 'waiting_review' && now.first_approved_by === staffUid)
        return { status: 'waiting_review', awaiting_second: true };
      if (!now || now.status !== 'waiting_review') throw new AppError('already_reviewed');
      return this.#approveLarge(staffUid, now, audit);
    }
    if (w.first_approved_by === staffUid) throw new AppError('second_approver_required');
    const approved: Decided = { status: 'approved', awaiting_second: false };
    if (!(await this.#write(audit, approved, (tx) => cashoutRepo.secondApproval(tx, w.id, staffUid))))
      await this.#sameDecision(w.id, 'approved');
    return approved;
  }

  async #settle(
    staffUid: number,
    w: WithdrawalRow,
    action: WithdrawalAction,
    audit: (tx: Queryable, outcome: Decided) => Promise<void>,
  ): Promise<void> {
    const { id } = w;
    const step = ACTIONS[action];
    const seen = [w.status];
    const outcome: Decided = { status: step.to, awaiting_second: false };
    if (step.diamonds === 'keep') {
      const moved = await this.#write(audit, outcome, (tx) =>
        cashoutRepo.moveWithdrawal(tx, id, seen, step.to, staffUid, null),
      );
      if (!moved) await this.#sameDecision(id, step.to);
      return;
    }
    const held = { system: 'cashout_hold' as const, currency: 'diamond' as const };
    try {
      await this.ledger.post({
        kind: step.diamonds === 'pay' ? 'payout' : 'cashout_release',
        // One settlement per withdrawal: paying out and returning share the key, so only one is
        // ever made. The outcome is part of the request: a rejection and a failure (both return
        // the diamonds) racing each other differ, and the loser is refused below instead of
        // being answered as a retry of the winner.
        key: `cashout-settle:${id}`,
        actor: staffUid,
        meta: { withdrawal: id, diamonds: w.diamonds, status: step.to },
        postings: [
          step.diamonds === 'pay'
            ? { from: held, to: { system: 'payouts', currency: 'diamond' }, amount: w.diamonds }
            : { from: held, to: { uid: w.uid, currency: 'diamond' }, amount: w.diamonds },
        ],
        also: async (tx, txId) => {
          if (!(await cashoutRepo.moveWithdrawal(tx, id, seen, step.to, staffUid, txId)))
            throw new AppError('already_reviewed');
          if (step.to === 'successful') await collectibles.award(tx, w.uid, 'first_cashout');
          await audit(tx, outcome);
        },
      });
    } catch (err) {
      if (err instanceof AppError && err.errorName === 'idempotency_conflict')
        throw new AppError('already_reviewed');
      throw err;
    }
  }

  /** After losing a race to move a request: fine if the winner made this same decision. */
  async #sameDecision(id: number, to: WithdrawalStatus): Promise<void> {
    if ((await cashoutRepo.withdrawal(this.db, id))?.status !== to) throw new AppError('already_reviewed');
  }
}
