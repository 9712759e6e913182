import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PkBattle } from '../../../common/api/pk';
import { AppError } from '../../../common/errors';
import { MemoryKv } from '../../infra/kv';
import { MemoryBus } from '../../realtime/bus';
import type { PkEvent } from '../../../common/realtime';
import { createTestDb, type TestDb } from '../../testing/db';
import { grant, makeLive, makeUsers } from '../../testing/people';
import { GiftService } from '../gifts';
import { Ledger } from '../ledger';
import { LeaderboardService } from '../leaderboard';
import { LiveDirectory } from '../live';
import { roomRepo } from '../room/repo';
import { PkService } from './service';

// The round state machine on PostgreSQL with an injected clock: invitations (answered, declined,
// lapsed, refused), await → start → punish → end, points from real gifts (the first of each side
// doubled, a retried gift once, none outside the round), forfeits, a second node taking over
// mid-round, a rematch, and the audit against the ledger.
let testDb: TestDb;
const kv = new MemoryKv();
const bus = new MemoryBus();
let clock = Date.now();
let pk: PkService;
let gifts: GiftService;

const ROSE = 1; // 1 coin
const STAR = 3; // 10 coins

beforeAll(async () => {
  testDb = await createTestDb();
  const ledger = new Ledger(testDb.db);
  pk = new PkService(testDb.db, bus, kv, {
    now: () => clock,
    // The room module's rule (its repository's query, as RoomService asks it).
    blocksAmong: (uids) => roomRepo.blocksAmong(testDb.db, uids),
  });
  gifts = new GiftService(testDb.db, ledger, bus, new LiveDirectory(testDb.db), {
    diamondsPerCoin: { num: 1, den: 1 },
    gifted: (vid) => pk.gifted(vid),
  });
});
afterAll(async () => {
  await testDb.drop();
  await kv.close();
});
beforeEach(() => {
  clock = Date.now();
});

interface Side {
  uid: number;
  vid: string;
}

/** Two live hosts and a fan with coins for each room. */
async function cast(): Promise<{ a: Side; b: Side; fans: number[] }> {
  const [a = 0, b = 0, f1 = 0, f2 = 0, f3 = 0] = await makeUsers(testDb.db, 5);
  const aVid = await makeLive(testDb.db, a);
  const bVid = await makeLive(testDb.db, b);
  for (const f of [f1, f2, f3]) await grant(testDb.db, f, 1000);
  return { a: { uid: a, vid: aVid }, b: { uid: b, vid: bVid }, fans: [f1, f2, f3] };
}

let keys = 0;
const gift = (fan: number, vid: string, giftId: number, count = 1, key = `k${++keys}-${Date.now()}`) =>
  gifts.send({ uid: fan, name: `fan ${fan}` }, { vid, giftId, count, key });

const advance = async (seconds: number) => {
  clock += seconds * 1000;
  await pk.tick();
};

async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err.errorName;
    throw err;
  }
  return 'none';
}

/** A battle accepted and in its round. */
async function started(minutes = 5) {
  const c = await cast();
  const invite = await pk.invite(c.a.uid, c.b.uid, minutes);
  await pk.answer(c.b.uid, invite.id, true);
  await advance(3);
  const battle = await pk.room(c.a.vid);
  expect(battle?.phase).toBe('start');
  return { ...c, id: invite.id };
}

describe('invitations', () => {
  it('an accepted invitation counts down 3 s in both rooms, then the round starts', async () => {
    const { a, b } = await cast();
    const heard: PkEvent[] = [];
    const sub = bus.subscribe(b.vid, (e) => {
      if (e.t === 'pk') heard.push(e);
    });
    const invite = await pk.invite(a.uid, b.uid, 2);
    expect(invite).toMatchObject({
      phase: 'invited',
      round_seconds: 120,
      from: { uid: a.uid },
      to: { uid: b.uid },
    });
    expect(invite.left_ms).toBe(10_000);
    // Only the invited host answers.
    expect(await errorOf(pk.answer(a.uid, invite.id, true))).toBe('not_found');
    expect((await pk.answer(b.uid, invite.id, true)).phase).toBe('await');
    expect((await pk.room(a.vid))?.phase).toBe('await');
    await advance(2.9);
    expect((await pk.room(b.vid))?.phase).toBe('await');
    await advance(0.1);
    const battle = await pk.room(b.vid);
    expect(battle).toMatchObject({ phase: 'start', left_ms: 120_000, a: { vid: a.vid }, b: { vid: b.vid } });
    expect(heard.map((e) => e.battle?.phase)).toEqual(['await', 'start']);
    sub.close();
  });

  it('declined, lapsed after 10 s, taken back: both hosts are free again', async () => {
    const { a, b } = await cast();
    const first = await pk.invite(a.uid, b.uid, 5);
    expect((await pk.answer(b.uid, first.id, false)).phase).toBe('declined');
    const second = await pk.invite(a.uid, b.uid, 5);
    await advance(9.9);
    expect((await pk.answer(b.uid, second.id, false)).phase).toBe('declined');
    const third = await pk.invite(a.uid, b.uid, 5);
    await advance(10);
    expect(await errorOf(pk.answer(b.uid, third.id, true))).toBe('pk_invite_gone');
    const fourth = await pk.invite(b.uid, a.uid, 5);
    expect((await pk.withdraw(b.uid, fourth.id)).phase).toBe('cancelled');
    expect(await errorOf(pk.answer(a.uid, fourth.id, true))).toBe('pk_invite_gone');
  });

  it('refuses a host who is not live, busy, not taking invitations, or oneself', async () => {
    const { a, b } = await cast();
    const [offline = 0] = await makeUsers(testDb.db, 1);
    const c = await cast();
    expect(await errorOf(pk.invite(a.uid, a.uid, 5))).toBe('pk_self');
    // Someone a host blocked can neither find nor invite them.
    await testDb.db.query('INSERT INTO room_blocks (host_uid, blocked_uid) VALUES ($1, $2)', [
      c.b.uid,
      c.a.uid,
    ]);
    expect((await pk.hosts(c.a.uid, { text: null, friends: false })).map((h) => h.uid)).not.toContain(
      c.b.uid,
    );
    expect(await errorOf(pk.invite(c.a.uid, c.b.uid, 5))).toBe('pk_unavailable');
    expect(await errorOf(pk.invite(offline, a.uid, 5))).toBe('pk_not_live');
    expect(await errorOf(pk.invite(a.uid, offline, 5))).toBe('pk_unavailable');
    await pk.setSettings(b.uid, false);
    expect(await errorOf(pk.invite(a.uid, b.uid, 5))).toBe('pk_unavailable');
    expect((await pk.hosts(a.uid, { text: null, friends: false })).map((h) => h.uid)).not.toContain(b.uid);
    await pk.setSettings(b.uid, true);
    await pk.invite(a.uid, b.uid, 5);
    // One battle (or open invitation) per host, either side.
    expect(await errorOf(pk.invite(a.uid, c.a.uid, 5))).toBe('pk_busy');
    expect(await errorOf(pk.invite(c.a.uid, b.uid, 5))).toBe('pk_unavailable');
    expect((await pk.hosts(c.a.uid, { text: null, friends: false })).map((h) => h.uid)).not.toContain(b.uid);
  });
});

describe('points', () => {
  it('a gift in the round scores its coins, the first of each side double; a retry once; none after', async () => {
    const { a, b, fans, id } = await started();
    const [f1 = 0, f2 = 0, f3 = 0] = fans;
    await gift(f1, a.vid, STAR, 1, 'retry-me'); // first of a: 20
    await gift(f1, a.vid, STAR, 1, 'retry-me'); // the same request again: nothing
    await gift(f2, a.vid, ROSE, 5); // 5
    await gift(f3, b.vid, ROSE, 3); // first of b: 6
    await gift(f3, b.vid, STAR, 2); // 20
    await pk.tick();
    let battle = (await pk.room(a.vid)) as PkBattle;
    expect([battle.a.score, battle.b.score]).toEqual([25, 26]);
    // The last second of the round still scores; then the dare, which does not.
    await advance(299);
    await gift(f2, a.vid, STAR, 1); // 10
    await advance(1);
    await gift(f1, b.vid, STAR, 10); // punish: paid, not scored
    await pk.tick();
    battle = (await pk.room(b.vid)) as PkBattle;
    expect(battle).toMatchObject({ phase: 'punish', winner: 'a', reason: 'score', left_ms: 60_000 });
    expect([battle.a.score, battle.b.score]).toEqual([35, 26]);
    // Top gifters of each side.
    expect(battle.a.mvp.map((m) => [m.uid, m.points])).toEqual([
      [f1, 20],
      [f2, 15],
    ]);
    expect(battle.b.mvp.map((m) => [m.uid, m.points])).toEqual([[f3, 26]]);
    expect(await pk.audit(id)).toEqual([]);
    // The winner names the dare; the loser cannot.
    expect(await errorOf(pk.dare(b.uid, id, { text: 'sing' }))).toBe('pk_no_dare');
    expect((await pk.dare(a.uid, id, { text: 'Sing the chorus' })).dare).toBe('Sing the chorus');
    await advance(60);
    expect((await pk.room(a.vid))?.phase).toBe('end');
    expect(await pk.record(a.uid)).toEqual({ wins: 1, losses: 0, draws: 0, streak: 1 });
    expect(await pk.record(b.uid)).toEqual({ wins: 0, losses: 1, draws: 0, streak: 0 });
    // The win is on the PK board from the leaderboards' next roll-up.
    const boards = new LeaderboardService(testDb.db, { utcOffset: 0 });
    await boards.rollUp();
    const week = await boards.board({ board: 'pk', period: 'week', page: 0 }, b.uid);
    expect(week.items.find((i) => i.user.uid === a.uid)?.amount).toBe(1);
    expect(week.me).toBeNull();
    // Free again: a rematch.
    const again = await pk.invite(b.uid, a.uid, 1, id);
    expect(again.phase).toBe('invited');
  });

  it('the winning room suggests dares; the winning host picks one, which both rooms see with who suggested it', async () => {
    const { a, b, fans, id } = await started(1);
    const [f1 = 0, f2 = 0, f3 = 0] = fans;
    await gift(f1, a.vid, ROSE);
    // Not before the result.
    expect(await errorOf(pk.suggest(f1, id, 'too soon'))).toBe('pk_no_dare');
    await advance(60);
    expect((await pk.room(a.vid))?.winner).toBe('a');
    await pk.suggest(f1, id, 'Sing the chorus');
    await pk.suggest(f2, id, 'Ten push-ups');
    await pk.suggest(f1, id, 'Dance for ten seconds'); // replaces f1's
    // The hosts do not suggest; someone the winning host blocked is out of the room.
    expect(await errorOf(pk.suggest(a.uid, id, 'mine'))).toBe('not_allowed');
    expect(await errorOf(pk.suggest(b.uid, id, 'mine'))).toBe('not_allowed');
    await roomRepo.block(testDb.db, a.uid, f3, a.vid);
    expect(await errorOf(pk.suggest(f3, id, 'blocked'))).toBe('blocked_permanently');
    // Only the winning host reads them, newest first.
    expect(await errorOf(pk.ideas(b.uid, id))).toBe('pk_no_dare');
    expect(await errorOf(pk.ideas(f2, id))).toBe('not_found');
    const ideas = await pk.ideas(a.uid, id);
    expect(ideas.map((i) => [i.uid, i.text])).toEqual([
      [f1, 'Dance for ten seconds'],
      [f2, 'Ten push-ups'],
    ]);
    expect(await errorOf(pk.dare(a.uid, id, { from: f3 }))).toBe('not_found');
    const heard: PkEvent[] = [];
    const sub = bus.subscribe(b.vid, (e) => {
      if (e.t === 'pk') heard.push(e);
    });
    await sub.ready;
    const battle = await pk.dare(a.uid, id, { from: f2 });
    expect(battle).toMatchObject({ dare: 'Ten push-ups', dare_by: { uid: f2 } });
    await expect.poll(() => heard.at(-1)?.battle?.dare_by?.uid).toBe(f2);
    sub.close();
    // Named: no more suggestions.
    expect(await errorOf(pk.suggest(f1, id, 'late'))).toBe('pk_no_dare');
  });

  it('equal scores are a draw', async () => {
    const { a, b, fans } = await started(1);
    await gift(fans[0] ?? 0, a.vid, ROSE);
    await gift(fans[1] ?? 0, b.vid, ROSE);
    await advance(60);
    expect(await pk.room(a.vid)).toMatchObject({
      phase: 'punish',
      winner: 'draw',
      a: { score: 2 },
      b: { score: 2 },
    });
  });

  it('concurrent gifts in both rooms: the scores are the ledger’s, one first gift a side', async () => {
    const { a, b, fans, id } = await started();
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        gift(fans[i % 3] ?? 0, i % 2 ? a.vid : b.vid, i % 4 ? ROSE : STAR),
      ),
    );
    await pk.tick();
    const battle = (await pk.room(a.vid)) as PkBattle;
    expect(await pk.audit(id)).toEqual([]);
    // Room a: 30 Roses (odd i), the first doubled. Room b: 15 Stars and 15 Roses, whichever
    // committed first doubled.
    expect(battle.a.score).toBe(31);
    expect([15 * 10 + 15 + 1, 15 * 10 + 15 + 10]).toContain(battle.b.score);
  });
});

describe('counting on several nodes at once', () => {
  it('concurrent roll-ups count each gift once and double one gift a side', async () => {
    const { a, b, fans, id } = await started();
    // Gifts paid on a node that does not count them (its hook is not wired): they wait.
    const quiet = new GiftService(testDb.db, new Ledger(testDb.db), bus, new LiveDirectory(testDb.db), {
      diamondsPerCoin: { num: 1, den: 1 },
    });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        quiet.send(
          { uid: fans[i % 3] ?? 0, name: 'f' },
          { vid: i % 2 ? a.vid : b.vid, giftId: ROSE, count: 1, key: `many-${id}-${i}` },
        ),
      ),
    );
    const other = new PkService(testDb.db, bus, kv, { now: () => clock });
    await Promise.all([pk.rollUp(id), other.rollUp(id), pk.rollUp(id), other.tick(), pk.tick()]);
    const battle = (await pk.room(a.vid)) as PkBattle;
    expect([battle.a.score, battle.b.score]).toEqual([21, 21]);
    expect(await pk.audit(id)).toEqual([]);
  });
});

describe('faults', () => {
  it('a host who ends the live forfeits; one whose media did not come back has dropped', async () => {
    const first = await started();
    await gift(first.fans[0] ?? 0, first.a.vid, STAR, 5);
    await testDb.db.query("UPDATE lives SET status = 'ended', ended_at = now() WHERE vid = $1", [
      first.a.vid,
    ]);
    await pk.liveEnded(first.a.vid, 'host');
    expect(await pk.room(first.b.vid)).toMatchObject({ phase: 'end', winner: 'b', reason: 'forfeit' });
    expect(await pk.audit(first.id)).toEqual([]);

    const second = await started();
    await pk.liveEnded(second.b.vid, 'lost');
    expect(await pk.room(second.a.vid)).toMatchObject({ phase: 'end', winner: 'a', reason: 'dropped' });
    // Both free.
    expect((await pk.invite(second.a.uid, first.b.uid, 5)).phase).toBe('invited');
  });

  it('an invitation or countdown is called off when a host leaves', async () => {
    const { a, b } = await cast();
    const invite = await pk.invite(a.uid, b.uid, 5);
    await pk.answer(b.uid, invite.id, true);
    await pk.liveEnded(b.vid, 'host');
    expect(await pk.room(a.vid)).toBeNull();
    await advance(3);
    expect(await pk.room(a.vid)).toBeNull();
  });

  it('another node takes the battle over mid-round: its timers and the gifts that wait', async () => {
    const { a, b, fans, id } = await started();
    // This node stops (its roll-up never ran); the gifts wait in pk_pending.
    pk.stop();
    const other = new PkService(testDb.db, bus, kv, { now: () => clock });
    await gifts.send(
      { uid: fans[0] ?? 0, name: 'f' },
      { vid: a.vid, giftId: STAR, count: 1, key: `node-${id}` },
    );
    clock += 300_000;
    await other.tick();
    expect(await other.room(b.vid)).toMatchObject({ phase: 'punish', winner: 'a', a: { score: 20 } });
    expect(await other.audit(id)).toEqual([]);
  });
});

describe('the random match queue', () => {
  it('pairs waiting hosts by country first, then audience; lets the unmatched go after 30 s', async () => {
    const [us1 = 0, br = 0, us2 = 0, offline = 0] = await makeUsers(testDb.db, 4);
    const vids: string[] = [];
    for (const [uid, country, viewers] of [
      [us1, 'US', 10],
      [br, 'BR', 10],
      [us2, 'US', 1000],
    ] as const) {
      const vid = await makeLive(testDb.db, uid);
      vids.push(vid);
      await testDb.db.query('UPDATE users SET country = $2 WHERE uid = $1', [uid, country]);
      await testDb.db.query('UPDATE lives SET viewers = $2 WHERE vid = $1', [vid, viewers]);
    }
    expect(await errorOf(pk.joinQueue(offline, 5))).toBe('pk_not_live');
    expect(await pk.joinQueue(us1, 2)).toEqual({ left_ms: 30_000 });
    await pk.joinQueue(br, 5);
    await pk.joinQueue(us2, 5);
    await pk.tick();
    // The two in the US battle (the first's round length); Brazil waits on.
    expect(await pk.room(vids[0] ?? '')).toMatchObject({
      phase: 'await',
      round_seconds: 120,
      b: { vid: vids[2] },
    });
    expect(await pk.room(vids[1] ?? '')).toBeNull();
    expect(await errorOf(pk.joinQueue(us2, 5))).toBe('pk_busy');
    await advance(30);
    const [left] = await testDb.db.query('SELECT 1 FROM pk_queue WHERE uid = $1', [br]);
    expect(left).toBeUndefined();
  });

  it('does not match two hosts of whom one blocked the other', async () => {
    const [x = 0, y = 0, z = 0] = await makeUsers(testDb.db, 3);
    const vids: string[] = [];
    for (const [uid, country] of [
      [x, 'JP'],
      [y, 'JP'],
      [z, 'KR'],
    ] as const) {
      vids.push(await makeLive(testDb.db, uid));
      await testDb.db.query('UPDATE users SET country = $2 WHERE uid = $1', [uid, country]);
    }
    await testDb.db.query('INSERT INTO room_blocks (host_uid, blocked_uid) VALUES ($1, $2)', [y, x]);
    for (const uid of [x, y, z]) await pk.joinQueue(uid, 5);
    await pk.tick();
    // Not the other host in Japan (a block between them): the one in Korea.
    expect(await pk.room(vids[0] ?? '')).toMatchObject({ phase: 'await', b: { vid: vids[2] } });
    expect(await pk.room(vids[1] ?? '')).toBeNull();
  });
});
