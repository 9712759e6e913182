import { randomBytes } from 'node:crypto';
import { openPostgres } from '../server/db/client';
import { Ledger } from '../server/modules/ledger';
import { ledgerRepo } from '../server/modules/ledger/repo';
import { createTestDb } from '../server/testing/db';
import { makeLive, makeUsers } from '../server/testing/people';
const testDb = await createTestDb();
const db = openPostgres(testDb.url!, 4);
const [host = 0, ...fans] = await makeUsers(db, 201);
const vid = await makeLive(db, host);
const ledger = new Ledger(db);
for (const uid of fans) await ledger.post({ kind: 'grant', key: `g-${uid}`, postings: [{ from: { system: 'promotions', currency: 'coin' }, to: { uid, currency: 'coin' }, amount: 1e8 }] });
const coin = await ledgerRepo.userAccounts(db, fans, 'coin'); const dia = await ledgerRepo.userAccounts(db, [host], 'diamond');
const spend = await ledgerRepo.systemAccount(db, 'gift_spend', 'coin'); const mint = await ledgerRepo.systemAccount(db, 'gift_mint', 'diamond');
for (let round = 0; round < Number(process.env.ROUNDS ?? 350); round++) {
  const gifts = fans.map((f) => ({ key: `k-${randomBytes(6).toString('hex')}`, sender: f, senderAccount: coin.get(f)!, host, hostAccount: dia.get(host)!, vid, coins: 10, diamonds: 10, meta: { gift_id: 3, count: 1, vid, host, coins: 10, diamonds: 10 } }));
  await ledgerRepo.giftBatch(db, gifts, { spend, mint });
}
await db.query('ANALYZE');
console.log('seeded');
const url = testDb.url!;
console.log(`URL ${url} FAN ${fans[5]} HOST ${host}`);
await db.close();
