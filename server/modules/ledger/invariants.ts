import type { Queryable } from '../../db/client';

export interface LedgerSnapshot {
  transactions: number;
  postings: number;
  /** account id → balance. */
  balances: Record<string, number>;
}

/**
 * Checks the ledger's invariants and returns what it saw (to compare before and after retries):
 * every account's balance (pending credits included) equals its postings; no user's balance is negative; each currency's
 * balances sum to zero; every transaction has postings; each gift moved what it says; top fans
 * add up to the gifts. Throws on the first violation. For tests, benchmarks and audits.
 */
export async function checkInvariants(db: Queryable): Promise<LedgerSnapshot> {
  // A balance is the account's column plus its pending credits (ledger_pending).
  const drift = await db.query<{ id: number; balance: number; sum: number }>(
    `WITH moves AS (
       SELECT to_account AS id, amount FROM ledger_postings
       UNION ALL SELECT from_account, -amount FROM ledger_postings),
     sums AS (SELECT id, sum(amount) AS sum FROM moves GROUP BY id),
     pend AS (SELECT account_id AS id, sum(amount) AS amount FROM ledger_pending GROUP BY account_id)
     SELECT a.id, (a.balance + coalesce(pend.amount, 0))::bigint AS balance, coalesce(sums.sum, 0)::bigint AS sum
     FROM ledger_accounts a LEFT JOIN sums ON sums.id = a.id LEFT JOIN pend ON pend.id = a.id`,
  );
  const wrong = drift.filter((a) => a.sum !== a.balance);
  if (wrong.length) throw new Error(`balances differ from postings: ${JSON.stringify(wrong.slice(0, 5))}`);
  const users = new Set(
    (await db.query<{ id: number }>('SELECT id FROM ledger_accounts WHERE owner_uid IS NOT NULL')).map(
      (r) => r.id,
    ),
  );
  const negative = drift.filter((a) => users.has(a.id) && a.balance < 0);
  if (negative.length) throw new Error(`negative user balances: ${JSON.stringify(negative)}`);
  const totals = await db.query<{ currency: string; total: number }>(
    `SELECT a.currency,
            sum(a.balance + coalesce((SELECT sum(amount) FROM ledger_pending WHERE account_id = a.id), 0))::bigint AS total
     FROM ledger_accounts a GROUP BY a.currency`,
  );
  for (const t of totals)
    if (t.total !== 0) throw new Error(`${t.currency} balances sum to ${t.total}, not 0`);
  const empty = await db.query(
    'SELECT t.id FROM ledger_transactions t WHERE NOT EXISTS (SELECT 1 FROM ledger_postings p WHERE p.tx_id = t.id)',
  );
  if (empty.length) throw new Error(`transactions without postings: ${JSON.stringify(empty.slice(0, 5))}`);
  const gifts = await db.query<{ id: number }>(
    `SELECT t.id FROM ledger_transactions t
     WHERE t.kind = 'gift' AND t.meta ? 'coins' AND (
       (SELECT coalesce(sum(amount), 0) FROM ledger_postings p WHERE p.tx_id = t.id AND p.currency = 'coin')
         <> (t.meta->>'coins')::bigint
       OR (SELECT coalesce(sum(amount), 0) FROM ledger_postings p WHERE p.tx_id = t.id AND p.currency = 'diamond')
         <> (t.meta->>'diamonds')::bigint)`,
  );
  if (gifts.length) throw new Error(`gifts that moved other amounts: ${JSON.stringify(gifts.slice(0, 5))}`);
  const fans = await db.query<{ vid: string }>(
    `WITH given AS (
       SELECT t.meta->>'vid' AS vid, sum((t.meta->>'coins')::bigint) AS coins
       FROM ledger_transactions t WHERE t.kind = 'gift' AND t.meta ? 'vid' GROUP BY 1)
     SELECT g.vid FROM given g
     WHERE g.coins <> coalesce((SELECT sum(coins) FROM fan_totals c WHERE c.vid = g.vid), 0)`,
  );
  if (fans.length) throw new Error(`top fans differ from gifts in ${JSON.stringify(fans)}`);
  const [counts] = await db.query<{ transactions: number; postings: number }>(
    `SELECT (SELECT count(*) FROM ledger_transactions)::int AS transactions,
            (SELECT count(*) FROM ledger_postings)::int AS postings`,
  );
  return {
    transactions: counts?.transactions ?? 0,
    postings: counts?.postings ?? 0,
    balances: Object.fromEntries(drift.map((a) => [String(a.id), a.balance])),
  };
}
