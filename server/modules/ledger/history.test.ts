import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/client';
import { createTestDb, type TestDb } from '../../testing/db';
import { grant, makeUsers } from '../../testing/people';
import { Ledger } from './ledger';
import { ledgerRepo } from './repo';

// The wallet's history pages (GET /api/v1/wallet?before=): a page holds whole transactions, so a
// conversion (one row per currency) is never cut in two at a page boundary.
let t: TestDb;
let db: Db;
let uid: number;

beforeAll(async () => {
  t = await createTestDb();
  db = t.db;
  [uid = 0] = await makeUsers(db, 1);
  const ledger = new Ledger(db);
  await grant(db, uid, 100, 'diamond');
  for (let i = 0; i < 25; i++) {
    await ledger.post({
      kind: 'convert',
      key: `history-convert-${i}`,
      postings: [
        { from: { uid, currency: 'diamond' }, to: { system: 'conversion', currency: 'diamond' }, amount: 2 },
        { from: { system: 'conversion', currency: 'coin' }, to: { uid, currency: 'coin' }, amount: 2 },
      ],
    });
  }
});
afterAll(async () => {
  await t.drop();
});

describe('wallet history', () => {
  it('pages by transaction, newest first, with every currency of each', async () => {
    const first = await ledgerRepo.history(db, uid, 20);
    const firstTxs = [...new Set(first.map((r) => r.tx_id))];
    expect(firstTxs).toHaveLength(20);
    expect(first).toHaveLength(40);
    expect(firstTxs).toEqual([...firstTxs].sort((a, b) => b - a));
    const second = await ledgerRepo.history(db, uid, 20, Math.min(...firstTxs));
    const secondTxs = [...new Set(second.map((r) => r.tx_id))];
    // Five conversions and the grant: 11 rows, none of them on the first page.
    expect(secondTxs).toHaveLength(6);
    expect(second).toHaveLength(11);
    expect(secondTxs.some((id) => firstTxs.includes(id))).toBe(false);
    for (const r of [...first, ...second].filter((r) => r.kind === 'convert'))
      expect(r.amount).toBe(r.currency === 'coin' ? 2 : -2);
  });
});
