import {
  CAPPED_STATUSES,
  type PayeeMethod,
  type PayeeStatus,
  type WithdrawalStatus,
} from '../../../common/money';
import type { Queryable } from '../../db/client';

export interface PayeeRow {
  id: number;
  uid: number;
  method: PayeeMethod;
  account: string;
  phone: string;
  status: PayeeStatus;
  created_at: Date;
  reviewed_at: Date | null;
}

export interface WithdrawalRow {
  id: number;
  uid: number;
  payee_id: number;
  diamonds: number;
  usd_cents: number;
  week_start: string;
  status: WithdrawalStatus;
  created_at: Date;
  reviewed_at: Date | null;
  settled_at: Date | null;
  /** A first approval of a cash-out that needs two (CASHOUT_SECOND_APPROVAL_USD). */
  first_approved_by: number | null;
}

/** Who gave a large cash-out its first approval, and when. */
export interface FirstApproval {
  uid: number | null;
  nickname: string;
  at: string;
}

/** What the staff page lists: the row and who it is. */
export type Named<T> = T & { nickname: string; short_id: string };

const PAYEE = 'p.id, p.uid, p.method, p.account, p.phone, p.status, p.created_at, p.reviewed_at';
const WITHDRAWAL = `w.id, w.uid, w.payee_id, w.diamonds, w.usd_cents, to_char(w.week_start, 'YYYY-MM-DD') AS week_start,
  w.status, w.created_at, w.reviewed_at, w.settled_at, w.first_approved_by`;

export const cashoutRepo = {
  /** The user's payee account: the approved or pending one, else the latest rejected. */
  async currentPayee(db: Queryable, uid: number): Promise<PayeeRow | null> {
    const [row] = await db.query<PayeeRow>(
      `SELECT ${PAYEE} FROM payees p WHERE p.uid = $1 AND p.status <> 'replaced' ORDER BY p.id DESC LIMIT 1`,
      [uid],
    );
    return row ?? null;
  },

  async payee(db: Queryable, id: number): Promise<PayeeRow | null> {
    const [row] = await db.query<PayeeRow>(`SELECT ${PAYEE} FROM payees p WHERE p.id = $1`, [id]);
    return row ?? null;
  },

  async retirePayees(db: Queryable, uid: number): Promise<void> {
    await db.query(
      "UPDATE payees SET status = 'replaced' WHERE uid = $1 AND status IN ('pending', 'approved', 'rejected')",
      [uid],
    );
  },

  async insertPayee(
    db: Queryable,
    p: { uid: number; method: PayeeMethod; account: string; phone: string },
  ): Promise<PayeeRow> {
    const [row] = await db.query<PayeeRow>(
      `INSERT INTO payees AS p (uid, method, account, phone) VALUES ($1, $2, $3, $4) RETURNING ${PAYEE}`,
      [p.uid, p.method, p.account, p.phone],
    );
    if (!row) throw new Error('payee not inserted');
    return row;
  },

  async reviewPayee(
    db: Queryable,
    id: number,
    status: 'approved' | 'rejected',
    staffUid: number,
  ): Promise<boolean> {
    const rows = await db.query(
      `UPDATE payees SET status = $2, reviewed_by = $3, reviewed_at = now() WHERE id = $1 AND status = 'pending'
       RETURNING id`,
      [id, status, staffUid],
    );
    return rows.length > 0;
  },

  async pendingPayees(db: Queryable): Promise<Named<PayeeRow>[]> {
    return db.query<Named<PayeeRow>>(
      `SELECT ${PAYEE}, u.nickname, u.short_id FROM payees p JOIN users u ON u.uid = p.uid
       WHERE p.status = 'pending' ORDER BY p.created_at LIMIT 100`,
    );
  },

  /** US cents this user's cash-outs of the week hold or were paid (the weekly cap). */
  async weekUsedCents(db: Queryable, uid: number, week: string): Promise<number> {
    const [row] = await db.query<{ cents: number }>(
      `SELECT coalesce(sum(usd_cents), 0)::bigint AS cents FROM withdrawals
       WHERE uid = $1 AND week_start = $2::date AND status = ANY($3::text[])`,
      [uid, week, CAPPED_STATUSES],
    );
    return row?.cents ?? 0;
  },

  async insertWithdrawal(
    db: Queryable,
    w: {
      uid: number;
      clientKey: string;
      payeeId: number;
      diamonds: number;
      cents: number;
      week: string;
      holdTxId: number;
    },
  ): Promise<void> {
    await db.query(
      `INSERT INTO withdrawals (uid, client_key, payee_id, diamonds, usd_cents, week_start, hold_tx_id)
       VALUES ($1, $2, $3, $4, $5, $6::date, $7)`,
      [w.uid, w.clientKey, w.payeeId, w.diamonds, w.cents, w.week, w.holdTxId],
    );
  },

  async withdrawalByKey(db: Queryable, uid: number, key: string): Promise<WithdrawalRow | null> {
    const [row] = await db.query<WithdrawalRow>(
      `SELECT ${WITHDRAWAL} FROM withdrawals w WHERE w.uid = $1 AND w.client_key = $2`,
      [uid, key],
    );
    return row ?? null;
  },

  async withdrawal(db: Queryable, id: number): Promise<WithdrawalRow | null> {
    const [row] = await db.query<WithdrawalRow>(`SELECT ${WITHDRAWAL} FROM withdrawals w WHERE w.id = $1`, [
      id,
    ]);
    return row ?? null;
  },

  async withdrawals(db: Queryable, uid: number, limit: number): Promise<WithdrawalRow[]> {
    return db.query<WithdrawalRow>(
      `SELECT ${WITHDRAWAL} FROM withdrawals w WHERE w.uid = $1 ORDER BY w.id DESC LIMIT $2`,
      [uid, limit],
    );
  },

  async openWithdrawals(
    db: Queryable,
  ): Promise<Named<WithdrawalRow & { account: string; first_approval: FirstApproval | null }>[]> {
    return db.query<Named<WithdrawalRow & { account: string; first_approval: FirstApproval | null }>>(
      `SELECT ${WITHDRAWAL}, u.nickname, u.short_id, p.account,
         CASE WHEN w.first_approved_at IS NULL THEN NULL
              ELSE json_build_object('uid', w.first_approved_by, 'nickname', coalesce(a.nickname, ''),
                'at', to_char(w.first_approved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         END AS first_approval
       FROM withdrawals w
       JOIN users u ON u.uid = w.uid JOIN payees p ON p.id = w.payee_id
       LEFT JOIN users a ON a.uid = w.first_approved_by
       WHERE w.status IN ('waiting_review', 'approved') ORDER BY w.created_at LIMIT 100`,
    );
  },

  /** The first of two approvals, if nobody gave it yet and the request still waits for review. */
  async firstApproval(db: Queryable, id: number, staffUid: number): Promise<boolean> {
    const rows = await db.query(
      `UPDATE withdrawals SET first_approved_by = $2, first_approved_at = now()
       WHERE id = $1 AND status = 'waiting_review' AND first_approved_at IS NULL RETURNING id`,
      [id, staffUid],
    );
    return rows.length > 0;
  },

  /**
   * The second approval: moves the request to approved only if someone else gave the first
   * (checked in the statement, so two approvals by one person can never pass).
   */
  async secondApproval(db: Queryable, id: number, staffUid: number): Promise<boolean> {
    const rows = await db.query(
      `UPDATE withdrawals SET status = 'approved', reviewed_by = $2, reviewed_at = now()
       WHERE id = $1 AND status = 'waiting_review' AND first_approved_at IS NOT NULL
         AND first_approved_by IS DISTINCT FROM $2 RETURNING id`,
      [id, staffUid],
    );
    return rows.length > 0;
  },

  /** Moves a withdrawal on if it is still in one of `from`; false when someone else moved it. */
  async moveWithdrawal(
    db: Queryable,
    id: number,
    from: readonly WithdrawalStatus[],
    to: WithdrawalStatus,
    staffUid: number,
    settleTxId: number | null,
  ): Promise<boolean> {
    const rows = await db.query(
      `UPDATE withdrawals SET status = $3, reviewed_by = $4,
         reviewed_at = CASE WHEN status = 'waiting_review' THEN now() ELSE reviewed_at END,
         settle_tx_id = coalesce($5, settle_tx_id),
         settled_at = CASE WHEN $5::bigint IS NULL THEN settled_at ELSE now() END
       WHERE id = $1 AND status = ANY($2::text[]) RETURNING id`,
      [id, from, to, staffUid, settleTxId],
    );
    return rows.length > 0;
  },
};
