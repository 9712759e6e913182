import type { Queryable } from '../../db/client';

export type Currency = 'coin' | 'diamond';

/** The system accounts: where coins and diamonds come from and go to. */
export type SystemAccount =
  'payments' | 'promotions' | 'gift_spend' | 'gift_mint' | 'conversion' | 'cashout_hold' | 'payouts';

/** One side of a posting: a user's account, or a system account, in a currency. */
export type AccountRef = { uid: number; currency: Currency } | { system: SystemAccount; currency: Currency };

export interface Posting {
  from: AccountRef;
  to: AccountRef;
  amount: number;
}

export interface HistoryRow {
  tx_id: number;
  kind: string;
  currency: Currency;
  /** Signed: what this account gained (positive) or lost (negative). */
  amount: number;
  meta: Record<string, unknown>;
  created_at: Date;
}

/** One gift of a batch, with its accounts resolved. */
export interface GiftRow {
  key: string;
  sender: number;
  senderAccount: number;
  /** The broadcast's host: the gift is made only while they are live, never from someone they blocked. */
  host: number;
  /** Who gets the diamonds: the host, or a speaker on their audio room's seats. */
  to: number;
  toAccount: number;
  vid: string;
  coins: number;
  diamonds: number;
  meta: Record<string, unknown>;
}

/** What became of a batch's gift: a new transaction, refused, or a key used before. */
export interface GiftOutcome {
  key: string;
  tx_id: number | null;
  /** False: the key had been used; the caller checks it was the same request. */
  fresh: boolean;
  /** Why a fresh gift was not made: the host is not live, blocked the sender, or coins were short. */
  refused: 'offline' | 'blocked' | 'short' | null;
  /** The sender's coins once this batch paid (the gift was made). */
  coins_left: number | null;
}

/**
 * A batch of gifts as ONE statement, atomic on its own: one round trip to the database instead
 * of a transaction of seven. Keys used before are left alone; a gift goes only to a host who is
 * live now (its broadcast's lease held) and never from someone that host blocked (checked here, in the statement's snapshot,
 * rather than by queries per gift before it: at thousands of gifts a second those cost more than
 * the batch); senders are debited only where their coins suffice; for each gift paid: its ledger transaction, its postings (coins sender →
 * gift_spend, and diamonds gift_mint → the recipient, the host or a speaker of their audio room, unless the rate gave none), a top-fans row
 * (fan_pending), a leaderboards row (leaderboard_pending), a PK battle's row when it scores (pk_pending); and per account one pending credit (ledger_pending) for what the host and the
 * system accounts gain or give, so no gift waits for their rows. A key inserted meanwhile by
 * another node breaks the unique index and fails the whole statement (nothing moved): the caller
 * retries gift by gift.
 *
 * A sender may appear more than once in a batch. GiftBatcher never does that, but the statement
 * must not depend on it: UPDATE … FROM updates a row once however many input rows match it, so a
 * debit per gift would take one gift's coins and pay for all. Instead a sender's gifts are paid
 * in input order while their coins last (the first that does not fit and every later one are
 * refused), and the sender is debited once, by the total paid. The later gifts are chosen by the
 * balance in this statement's snapshot; the UPDATE checks the total again on the row as it is
 * when locked, so a debit committed meanwhile can refuse them but never overdraw. A sender's
 * first gift is always tried, so a lone gift is decided on the locked row alone, as before (coins
 * credited just before it count).
 */
const GIFT_BATCH = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[],
                       $6::text[], $7::bigint[], $8::bigint[], $9::jsonb[], $12::bigint[]) WITH ORDINALITY
    AS x(k, sender, sender_account, host, to_account, vid, coins, diamonds, meta, rcpt, n)
),
used AS (SELECT idempotency_key AS k FROM ledger_transactions WHERE idempotency_key = ANY($1::text[])),
fresh AS (SELECT i.* FROM input i LEFT JOIN used u ON u.k = i.k WHERE u.k IS NULL),
-- Spec §4, §6: only to a host who is live now (and whose broadcast's lease has not lapsed: its
-- media node is alive, whether or not a sweep has ended it yet), never from someone the host blocked.
allowed AS (
  SELECT f.* FROM fresh f JOIN lives l ON l.vid = f.vid AND l.uid = f.host AND l.status = 'live'
    AND l.lease_until > now()
  WHERE NOT EXISTS (SELECT 1 FROM room_blocks b WHERE b.host_uid = f.host AND b.blocked_uid = f.sender)
),
running AS (
  SELECT f.*, sum(f.coins) OVER w AS upto, row_number() OVER w AS nth
  FROM allowed f WINDOW w AS (PARTITION BY f.sender_account ORDER BY f.n)
),
fits AS (
  SELECT r.* FROM running r JOIN ledger_accounts a ON a.id = r.sender_account
  WHERE r.nth = 1 OR r.upto <= a.balance
),
totals AS (SELECT sender_account, sum(coins)::bigint AS coins FROM fits GROUP BY sender_account),
debited AS (
  UPDATE ledger_accounts a SET balance = a.balance - t.coins
  FROM totals t WHERE a.id = ANY($3::bigint[]) AND a.id = t.sender_account AND a.balance >= t.coins
  RETURNING a.id, a.balance
),
-- No join between data-modifying CTEs here: they have no row estimates, and joining them became
-- nested loops of batch × batch comparisons (half of a 200-gift batch's time). The senders
-- debited are one array looked up per gift, and each gift's transaction id is drawn here, so its
-- postings need not find it among the inserted rows.
paid AS (
  SELECT f.*, nextval(pg_get_serial_sequence('ledger_transactions', 'id')) AS tx_id
  FROM fits f WHERE f.sender_account = ANY (ARRAY(SELECT id FROM debited))
),
created AS (
  INSERT INTO ledger_transactions (id, kind, idempotency_key, actor_uid, meta) OVERRIDING SYSTEM VALUE
  SELECT tx_id, 'gift', k, sender, meta FROM paid
  RETURNING id, idempotency_key AS k
),
legs AS (
  INSERT INTO ledger_postings (tx_id, leg, currency, from_account, to_account, amount, owner_account)
  SELECT p.tx_id, l.leg, l.currency, l.from_account, l.to_account, l.amount, l.owner_account
  FROM paid p,
  LATERAL (VALUES (1::smallint, 'coin', p.sender_account, $10::bigint, p.coins, p.sender_account),
                  (2::smallint, 'diamond', $11::bigint, p.to_account, p.diamonds, p.to_account))
    AS l(leg, currency, from_account, to_account, amount, owner_account)
  -- A gift whose rate gives the host no diamond moves coins only (a zero posting is refused;
  -- a negative one is left to fail the CHECK).
  WHERE l.amount <> 0
),
fans AS (
  INSERT INTO fan_pending (vid, fan_uid, host_uid, coins) SELECT vid, sender, rcpt, coins FROM paid
),
-- The leaderboards' row of each gift paid, in this transaction: counted once it commits, by
-- whichever roll-up comes next (see migration 024), so a transaction id drawn here and committed
-- after a higher one is never skipped.
boards AS (
  INSERT INTO leaderboard_pending (sender, host, coins, diamonds) SELECT sender, rcpt, coins, diamonds FROM paid
),
-- A gift to a host whose PK battle is in its start phase scores (migration 029): decided here, in
-- this statement's snapshot, so a gift either scored with its payment or did not.
battle AS (
  INSERT INTO pk_pending (battle_id, side, tx_id, sender, coins)
  SELECT s.battle_id, s.side, p.tx_id, p.sender, p.coins FROM paid p JOIN pk_scoring s ON s.vid = p.vid
),
credits AS (
  INSERT INTO ledger_pending (account_id, user_account, amount)
  SELECT account, user_account, sum(amount) FROM (
    SELECT to_account, true, diamonds FROM paid
    UNION ALL SELECT $10::bigint, false, coins FROM paid
    UNION ALL SELECT $11::bigint, false, -diamonds FROM paid
  ) AS c(account, user_account, amount)
  GROUP BY account, user_account HAVING sum(amount) <> 0
)
SELECT i.k AS key, c.id AS tx_id, f.k IS NOT NULL AS fresh,
  CASE WHEN c.id IS NOT NULL OR f.k IS NULL THEN NULL
       WHEN NOT EXISTS (SELECT 1 FROM allowed a WHERE a.k = i.k) THEN
         CASE WHEN EXISTS (SELECT 1 FROM room_blocks b WHERE b.host_uid = i.host AND b.blocked_uid = i.sender)
              THEN 'blocked' ELSE 'offline' END
       ELSE 'short' END AS refused,
  d.balance::int AS coins_left
FROM input i LEFT JOIN fresh f ON f.k = i.k LEFT JOIN created c ON c.k = i.k
  LEFT JOIN debited d ON d.id = i.sender_account AND c.id IS NOT NULL`;

export const ledgerRepo = {
  /** Makes a batch of gifts (see GIFT_BATCH); one outcome per gift, in no particular order. */
  async giftBatch(
    db: Queryable,
    gifts: readonly GiftRow[],
    system: { spend: number; mint: number },
  ): Promise<GiftOutcome[]> {
    const col = <T>(f: (g: GiftRow) => T) => gifts.map(f);
    return db.query<GiftOutcome>(
      GIFT_BATCH,
      [
        col((g) => g.key),
        col((g) => g.sender),
        col((g) => g.senderAccount),
        col((g) => g.host),
        col((g) => g.toAccount),
        col((g) => g.vid),
        col((g) => g.coins),
        col((g) => g.diamonds),
        col((g) => JSON.stringify(g.meta)),
        system.spend,
        system.mint,
        col((g) => g.to),
      ],
      'gift_batch',
    );
  },

  /** The accounts of these users in a currency, created on first use; uid → account id. */
  async userAccounts(
    db: Queryable,
    uids: readonly number[],
    currency: Currency,
  ): Promise<Map<number, number>> {
    if (!uids.length) return new Map();
    await db.query(
      `INSERT INTO ledger_accounts (owner_uid, currency) SELECT u, $2 FROM unnest($1::bigint[]) AS u
       ON CONFLICT (owner_uid, currency) DO NOTHING`,
      [uids, currency],
    );
    const rows = await db.query<{ id: number; owner_uid: number }>(
      'SELECT id, owner_uid FROM ledger_accounts WHERE owner_uid = ANY($1::bigint[]) AND currency = $2',
      [uids, currency],
    );
    return new Map(rows.map((r) => [r.owner_uid, r.id]));
  },

  async systemAccount(db: Queryable, name: SystemAccount, currency: Currency): Promise<number> {
    await db.query(
      `INSERT INTO ledger_accounts (system_name, currency) VALUES ($1, $2)
       ON CONFLICT (system_name, currency) DO NOTHING`,
      [name, currency],
    );
    const [row] = await db.query<{ id: number }>(
      'SELECT id FROM ledger_accounts WHERE system_name = $1 AND currency = $2',
      [name, currency],
    );
    if (!row) throw new Error(`no system account ${name}`);
    return row.id;
  },

  /**
   * Creates a movement's transaction under its idempotency key; null when the key was used
   * (then transactionByKey tells what was made under it).
   */
  async insertTransaction(
    db: Queryable,
    t: { kind: string; key: string; actor: number | null; meta: Record<string, unknown> },
  ): Promise<number | null> {
    const [created] = await db.query<{ id: number }>(
      `INSERT INTO ledger_transactions (kind, idempotency_key, actor_uid, meta) VALUES ($1, $2, $3, $4)
       ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
      [t.kind, t.key, t.actor, JSON.stringify(t.meta)],
    );
    return created?.id ?? null;
  },

  async transactionByKey(
    db: Queryable,
    key: string,
  ): Promise<{ id: number; kind: string; meta: Record<string, unknown> } | null> {
    const [row] = await db.query<{ id: number; kind: string; meta: Record<string, unknown> }>(
      'SELECT id, kind, meta FROM ledger_transactions WHERE idempotency_key = $1',
      [key],
    );
    return row ?? null;
  },

  /**
   * Locks accounts' rows for the rest of the transaction, in id order (so two movements never
   * deadlock). NO KEY UPDATE, as the balance updates themselves take: it does not wait for the
   * key-share locks other transactions' postings hold on these rows through their foreign keys.
   * FOR UPDATE would, and a gift batch debiting this user while posting to their diamond account
   * deadlocked with it (found by the property test).
   */
  async lockAccounts(db: Queryable, ids: readonly number[]): Promise<void> {
    await db.query(
      'SELECT id FROM ledger_accounts WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE',
      [ids],
    );
  },

  /**
   * What a debit can take from an account now: its balance without pending credits (the caller
   * holds its row and rolled those up; any added since are credits, not yet in the balance).
   */
  async available(db: Queryable, account: number): Promise<number> {
    const [row] = await db.query<{ balance: number }>('SELECT balance FROM ledger_accounts WHERE id = $1', [
      account,
    ]);
    if (!row) throw new Error(`no account ${account}`);
    return row.balance;
  },

  /** Takes `amount` from an account; false when a user's balance does not cover it. */
  async debit(db: Queryable, account: number, amount: number): Promise<boolean> {
    const rows = await db.query(
      `UPDATE ledger_accounts SET balance = balance - $2
       WHERE id = $1 AND (system_name IS NOT NULL OR balance >= $2) RETURNING id`,
      [account, amount],
    );
    return rows.length > 0;
  },

  async credit(db: Queryable, account: number, amount: number): Promise<void> {
    await db.query('UPDATE ledger_accounts SET balance = balance + $2 WHERE id = $1', [account, amount]);
  },

  async insertPosting(
    db: Queryable,
    p: {
      txId: number;
      leg: number;
      currency: Currency;
      from: number;
      to: number;
      amount: number;
      owner: number;
    },
  ): Promise<void> {
    await db.query(
      `INSERT INTO ledger_postings (tx_id, leg, currency, from_account, to_account, amount, owner_account)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [p.txId, p.leg, p.currency, p.from, p.to, p.amount, p.owner],
    );
  },

  /** Moves these accounts' pending credits into their balances (the caller holds their rows). */
  async rollUp(db: Queryable, accounts: readonly number[]): Promise<void> {
    await db.query(
      `WITH moved AS (DELETE FROM ledger_pending WHERE account_id = ANY($1::bigint[]) RETURNING account_id, amount)
       UPDATE ledger_accounts a SET balance = a.balance + s.total
       FROM (SELECT account_id, sum(amount)::bigint AS total FROM moved GROUP BY account_id) s
       WHERE a.id = s.account_id`,
      [accounts],
    );
  },

  /**
   * Accounts with credits pending, those waiting longest (their oldest row) first: taking them
   * by account id instead would leave accounts past the first `limit` ids waiting forever while
   * lower ones keep receiving gifts.
   */
  async pendingAccounts(db: Queryable, limit: number): Promise<number[]> {
    const rows = await db.query<{ account_id: number }>(
      'SELECT account_id FROM ledger_pending GROUP BY account_id ORDER BY min(id) LIMIT $1',
      [limit],
    );
    return rows.map((r) => r.account_id);
  },

  /** A user's balances, pending credits included. */
  async balances(db: Queryable, uid: number): Promise<Record<Currency, number>> {
    const rows = await db.query<{ currency: Currency; balance: number }>(
      `SELECT a.currency,
              (a.balance + coalesce((SELECT sum(amount) FROM ledger_pending p WHERE p.account_id = a.id), 0))::bigint AS balance
       FROM ledger_accounts a WHERE a.owner_uid = $1`,
      [uid],
      'user_balances',
    );
    const out: Record<Currency, number> = { coin: 0, diamond: 0 };
    for (const r of rows) out[r.currency] = r.balance;
    return out;
  },

  /**
   * A user's movements, newest first, before `beforeTx` when paging: `limit` transactions, each
   * with a row per currency it moved for the user (a conversion has two), so a page never ends
   * halfway through a transaction.
   */
  async history(db: Queryable, uid: number, limit: number, beforeTx?: number): Promise<HistoryRow[]> {
    // Each of the user's accounts (two at most) walks its own index (owner_account, tx_id DESC)
    // for its newest transactions: a read of `limit` entries however long the history, where
    // one scan over every user's postings looking for this user's took milliseconds.
    return db.query<HistoryRow>(
      `WITH mine AS (SELECT id FROM ledger_accounts WHERE owner_uid = $1),
       page AS (
         SELECT DISTINCT x.tx_id FROM mine, LATERAL (
           SELECT DISTINCT tx_id FROM ledger_postings
           WHERE owner_account = mine.id AND ($3::bigint IS NULL OR tx_id < $3)
           ORDER BY tx_id DESC LIMIT $2) x
         ORDER BY x.tx_id DESC LIMIT $2)
       SELECT t.id AS tx_id, t.kind, p.currency,
              sum(CASE WHEN p.to_account = p.owner_account THEN p.amount ELSE -p.amount END)::bigint AS amount,
              t.meta, t.created_at
       FROM page
       JOIN ledger_transactions t ON t.id = page.tx_id
       JOIN ledger_postings p ON p.tx_id = page.tx_id AND p.owner_account IN (SELECT id FROM mine)
       GROUP BY t.id, p.currency
       ORDER BY t.id DESC, p.currency`,
      [uid, limit, beforeTx ?? null],
      'wallet_history',
    );
  },
};
