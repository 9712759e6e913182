import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/client';
import { createTestDb, type TestDb } from '../../testing/db';
import { grant as grantTo, makeLive, makeUsers } from '../../testing/people';
import { checkInvariants } from './invariants';
import { Ledger } from './ledger';
import { ledgerRepo, type GiftRow } from './repo';

// The ledger's SQL on its own, without the callers that happen to keep it safe today: a gift
// batch naming one sender twice, the roll-up of pending credits past its first hundred accounts,
// and what the schema refuses in ledger_pending.
let t: TestDb;
let db: Db;
let ledger: Ledger;
let system: { spend: number; mint: number };

beforeAll(async () => {
  t = await createTestDb();
  db = t.db;
  ledger = new Ledger(db);
  system = {
    spend: await ledgerRepo.systemAccount(db, 'gift_spend', 'coin'),
    mint: await ledgerRepo.systemAccount(db, 'gift_mint', 'diamond'),
  };
});
afterAll(async () => {
  await t.drop();
});

let keys = 0;
const lives = new Map<number, string>();
const grant = (uid: number, coins: number) => grantTo(db, uid, coins);

/** Gift rows as GiftBatcher builds them, with the accounts resolved. */
async function gifts(sender: number, hosts: readonly number[], coins: readonly number[]): Promise<GiftRow[]> {
  const coin = await ledgerRepo.userAccounts(db, [sender], 'coin');
  const diamond = await ledgerRepo.userAccounts(db, hosts, 'diamond');
  // Gifts go only to a host who is live: each host is, in a broadcast of their own.
  for (const host of hosts) if (!lives.has(host)) lives.set(host, await makeLive(db, host));
  return coins.map((c, i) => {
    const host = hosts[i % hosts.length] ?? 0;
    return {
      key: `repo-gift-${++keys}`,
      sender,
      senderAccount: coin.get(sender) ?? 0,
      host,
      to: host,
      toAccount: diamond.get(host) ?? 0,
      vid: lives.get(host) ?? '',
      coins: c,
      diamonds: c,
      meta: { coins: c, diamonds: c },
    };
  });
}

describe('a gift batch (ledgerRepo.giftBatch)', () => {
  it('debits a sender named twice for every gift it pays, and pays only what the coins cover', async () => {
    const [sender = 0, host = 0] = await makeUsers(db, 2);
    await grant(sender, 50);
    // 30 + 30 > 50: the first is paid, the second refused. A debit per gift (one UPDATE row per
    // sender) would take 30 once and mark both paid.
    const rows = await gifts(sender, [host], [30, 30]);
    const out = await ledgerRepo.giftBatch(db, rows, system);
    const byKey = new Map(out.map((o) => [o.key, o]));
    expect(byKey.get(rows[0]?.key ?? '')?.tx_id).toEqual(expect.any(Number));
    expect(byKey.get(rows[1]?.key ?? '')).toMatchObject({ tx_id: null, fresh: true });
    expect(await ledger.balances(sender)).toMatchObject({ coin: 20 });
    expect(await ledger.balances(host)).toMatchObject({ diamond: 30 });

    // Three that fit together (5 + 6 + 9 = 20): all paid, the sender debited by the total.
    const fit = await ledgerRepo.giftBatch(db, await gifts(sender, [host], [5, 6, 9]), system);
    expect(fit.filter((o) => o.tx_id !== null)).toHaveLength(3);
    expect(await ledger.balances(sender)).toMatchObject({ coin: 0 });
    expect(await ledger.balances(host)).toMatchObject({ diamond: 50 });
    await checkInvariants(db);
  });

  it('moves coins only for a gift whose rate gives the host no diamond', async () => {
    const [sender = 0, host = 0] = await makeUsers(db, 2);
    await grant(sender, 1);
    const [row] = await gifts(sender, [host], [1]);
    if (!row) throw new Error('no gift');
    const [out] = await ledgerRepo.giftBatch(
      db,
      [{ ...row, diamonds: 0, meta: { coins: 1, diamonds: 0 } }],
      system,
    );
    expect(out?.tx_id).toEqual(expect.any(Number));
    const legs = await db.query<{ currency: string }>(
      'SELECT currency FROM ledger_postings WHERE tx_id = $1',
      [out?.tx_id],
    );
    expect(legs).toEqual([{ currency: 'coin' }]);
    expect(await ledger.balances(sender)).toMatchObject({ coin: 0 });
    expect(await ledger.balances(host)).toMatchObject({ diamond: 0 });
    await checkInvariants(db);
  });
});

describe('pending credits', () => {
  it('are rolled up longest-waiting first, past the first hundred accounts', async () => {
    await ledger.rollUp();
    const [sender = 0, ...hosts] = await makeUsers(db, 151);
    // Diamond accounts in uid order: the last 50 hosts have the highest account ids.
    const accounts = await ledgerRepo.userAccounts(db, hosts, 'diamond');
    const high = hosts.slice(100);
    await grant(sender, 150);
    // The high accounts receive first (their pending rows are the oldest), then the 100 lower.
    await ledgerRepo.giftBatch(
      db,
      await gifts(
        sender,
        high,
        high.map(() => 1),
      ),
      system,
    );
    await ledgerRepo.giftBatch(
      db,
      await gifts(
        sender,
        hosts.slice(0, 100),
        Array.from({ length: 100 }, () => 1),
      ),
      system,
    );
    // 150 hosts + gift_spend + gift_mint wait; one roll-up takes 100: the high ones among them.
    expect(await ledger.rollUp()).toBe(100);
    const waiting = new Set(
      (await db.query<{ account_id: number }>('SELECT DISTINCT account_id FROM ledger_pending')).map(
        (r) => r.account_id,
      ),
    );
    expect(waiting.size).toBe(52);
    for (const uid of high) expect(waiting.has(accounts.get(uid) ?? 0)).toBe(false);
    expect(await ledger.rollUp()).toBe(52);
    expect(await ledger.rollUp()).toBe(0);
    await checkInvariants(db);
  });

  it('on a user account can only be credits (the schema refuses a debit)', async () => {
    const [uid = 0] = await makeUsers(db, 1);
    const account = (await ledgerRepo.userAccounts(db, [uid], 'diamond')).get(uid) ?? 0;
    await expect(
      db.query('INSERT INTO ledger_pending (account_id, user_account, amount) VALUES ($1, true, -1)', [
        account,
      ]),
    ).rejects.toThrow(/ledger_pending_user_credit/);
    // Nor can a row pass a user's account off as a system one.
    await expect(
      db.query('INSERT INTO ledger_pending (account_id, user_account, amount) VALUES ($1, false, -1)', [
        account,
      ]),
    ).rejects.toThrow(/ledger_pending_account_kind_fkey/);
    // System accounts give through pending rows (gift_mint's diamonds): negative is theirs to have.
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO ledger_pending (account_id, user_account, amount) VALUES ($1, false, -1)', [
        system.mint,
      ]);
      await tx.query('INSERT INTO ledger_pending (account_id, user_account, amount) VALUES ($1, true, 1)', [
        account,
      ]);
      // Undone: these two rows have no postings behind them.
      await tx.query('DELETE FROM ledger_pending WHERE account_id = ANY($1::bigint[])', [
        [system.mint, account],
      ]);
    });
    await checkInvariants(db);
  });
});
