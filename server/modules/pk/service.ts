import {
  PK_AWAIT_SECONDS,
  PK_INVITE_SECONDS,
  PK_PUNISH_SECONDS,
  PK_QUEUE_SECONDS,
  PK_RESULT_MS,
  type PkBattle,
  type PkHost,
  type PkIdea,
  type PkInvite,
  type PkRecord,
} from '../../../common/api/pk';
import type { EndReason } from '../../../common/api/live';
import { AppError } from '../../../common/errors';
import type { Db, Queryable } from '../../db/client';
import type { Kv } from '../../infra/kv';
import { Recent } from '../../infra/recent';
import { enforceLimits, type Limit } from '../../infra/ratelimit';
import type { Bus } from '../../realtime/bus';
import { userTopic } from '../../realtime/inbox';
import { countPkWin } from '../leaderboard';
import { pkRepo, type BattleRow, type Person } from './repo';

/** Invitations a host may send a minute: a host looks for an opponent, a script is refused. */
const INVITE_LIMIT: Limit = { name: 'pk:invite', max: 6, windowSeconds: 60 };
/** Dare suggestions a person may make a minute (each replaces their last). */
const IDEA_LIMIT: Limit = { name: 'pk:idea', max: 10, windowSeconds: 60 };
/** The suggestions the winning host is shown, newest first. */
const IDEAS_SHOWN = 30;
/** How often every node moves battles whose phase is over, and takes their scoring gifts. */
export const PK_TICK_MS = 250;

/** Room signals of a battle are ordered by battle, then by version (a later battle wins). */
const seqOf = (b: { id: number; version: number }) => b.id * 1_000_000 + b.version;

/** Two people as one key, whatever their order. */
const pairKey = (x: number, y: number) => (x < y ? `${x}:${y}` : `${y}:${x}`);

function winnerOf(a: number, b: number): 'a' | 'b' | 'draw' {
  return a > b ? 'a' : b > a ? 'b' : 'draw';
}

export interface PkOptions {
  /** The clock the phases run on (tests move it). */
  now?: () => number;
  punishSeconds?: number;
  limitScale?: number;
  /** Masks words the site does not allow (the chat's list), for dares. */
  mask?: (text: string) => string;
  /**
   * The blocks among these people (the room module's rule): someone a host blocked cannot find,
   * invite or be matched with them, nor they with that person.
   */
  blocksAmong?: (uids: readonly number[]) => Promise<{ host: number; uid: number }[]>;
  log?: (err: unknown) => void;
}

/**
 * PK battles (issue 21; spec §4): an invitation answered within 10 s, then await (3 s) → start
 * (the round) → punish (the dare) → end. Every phase's end is a time in PostgreSQL that every
 * node's tick looks for, so a restart or a dead node loses no battle. A gift scores when the gift
 * batch finds its broadcast in pk_scoring (exactly the start phase), in the gift's own
 * transaction; the battle's roll-up turns those rows into points (the first of each side
 * doubled) and tells both rooms. docs/decisions.md, "PK battles".
 */
export class PkService {
  /** Broadcasts scoring now → their battle, as last read (every tick). */
  #scoring = new Map<string, number>();
  /**
   * Battles whose roll-up is running on this node, and whether gifts came meanwhile: those are
   * counted by one more roll-up right after (gifts that come while one runs go together).
   */
  readonly #rolling = new Map<number, { again: boolean }>();
  /** The two hosts of battles this node tells rooms of, read once a minute (not per score). */
  readonly #hosts = new Recent<number, [Person, Person]>({ ttlMs: 60_000, max: 10_000 });
  #timer: NodeJS.Timeout | null = null;
  #ticking = false;

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
    private readonly kv: Kv,
    private readonly opts: PkOptions = {},
  ) {}

  #now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  get #punish(): number {
    return this.opts.punishSeconds ?? PK_PUNISH_SECONDS;
  }

  /** Starts this node's tick. */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      if (this.#ticking) return;
      this.#ticking = true;
      this.tick()
        .catch((err: unknown) => this.opts.log?.(err))
        .finally(() => (this.#ticking = false));
    }, PK_TICK_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  async hosts(reader: number, q: { text: string | null; friends: boolean }): Promise<PkHost[]> {
    const list = await pkRepo.hosts(this.db, reader, q);
    const apart = await this.#apart([reader, ...list.map((h) => h.uid)]);
    return list.filter((h) => !apart.has(pairKey(h.uid, reader)));
  }

  /** The pairs among these people of whom one blocked the other (pairKey). */
  async #apart(uids: readonly number[]): Promise<Set<string>> {
    const blocks = (await this.opts.blocksAmong?.(uids)) ?? [];
    return new Set(blocks.map((b) => pairKey(b.host, b.uid)));
  }

  async settings(uid: number): Promise<{ accepts: boolean }> {
    return { accepts: await pkRepo.accepts(this.db, uid) };
  }

  async setSettings(uid: number, accepts: boolean): Promise<{ accepts: boolean }> {
    await pkRepo.setAccepts(this.db, uid, accepts);
    return { accepts };
  }

  async record(uid: number): Promise<PkRecord> {
    return pkRepo.record(this.db, uid);
  }

  /** A live host invites another to a battle of `minutes`; both are busy until it is answered. */
  async invite(
    from: number,
    to: number,
    minutes: number,
    rematchOf: number | null = null,
  ): Promise<PkInvite> {
    if (from === to) throw new AppError('pk_self');
    await enforceLimits(this.kv, [{ limit: INVITE_LIMIT, key: String(from) }], this.opts.limitScale);
    const aVid = await pkRepo.liveOf(this.db, from);
    if (!aVid) throw new AppError('pk_not_live');
    const bVid = await pkRepo.liveOf(this.db, to);
    if (!bVid || !(await pkRepo.accepts(this.db, to)) || (await this.#apart([from, to])).size)
      throw new AppError('pk_unavailable');
    const now = this.#now();
    const id = await this.db.transaction(async (tx) => {
      const [mine] = await tx.query('SELECT 1 FROM pk_busy WHERE uid = $1', [from]);
      if (mine) throw new AppError('pk_busy');
      const made = await pkRepo.open(
        tx,
        {
          a_uid: from,
          a_vid: aVid,
          b_uid: to,
          b_vid: bVid,
          round: minutes * 60,
          punish: this.#punish,
          until: now + PK_INVITE_SECONDS * 1000,
          rematchOf,
        },
        'invited',
      );
      // The other host is in a battle (or was invited meanwhile): nothing was made.
      if (made === null) throw new AppError('pk_unavailable');
      return made;
    });
    return this.#tellInvite(id);
  }

  /**
   * A live host waits for a random opponent (PK_QUEUE_SECONDS): the tick matches them by
   * country first, then by the size of their audience. Answers how long they will wait.
   */
  async joinQueue(uid: number, minutes: number): Promise<{ left_ms: number }> {
    const vid = await pkRepo.liveOf(this.db, uid);
    if (!vid) throw new AppError('pk_not_live');
    const [busy] = await this.db.query('SELECT 1 FROM pk_busy WHERE uid = $1', [uid]);
    if (busy) throw new AppError('pk_busy');
    await pkRepo.enqueue(this.db, {
      uid,
      vid,
      round: minutes * 60,
      until: this.#now() + PK_QUEUE_SECONDS * 1000,
    });
    return { left_ms: PK_QUEUE_SECONDS * 1000 };
  }

  async leaveQueue(uid: number): Promise<void> {
    await pkRepo.dequeue(this.db, [uid]);
  }

  /**
   * Pairs the hosts waiting in the queue, first come first: each with the waiting host most like
   * them (the same country counts more than any difference of audience; audiences compare by
   * their order of magnitude). Who can no longer battle, or waited too long, leaves the queue.
   */
  async #match(now: number): Promise<number[]> {
    const queued = await pkRepo.queuedUids(this.db);
    if (!queued.length) return [];
    // Who blocked whom among those waiting, asked before the matching transaction: the block
    // rule's query is not the transaction's (on the embedded database a query outside an open
    // transaction waits for it). Someone who joined meanwhile waits for the next tick.
    const apart = await this.#apart(queued);
    const known = new Set(queued);
    return this.db.transaction(async (tx) => {
      const queue = await pkRepo.queue(tx);
      if (!queue?.length) return [];
      const gone = queue.filter((q) => !q.ready || q.until <= now);
      if (gone.length)
        await pkRepo.dequeue(
          tx,
          gone.map((q) => q.uid),
        );
      const waiting = queue.filter((q) => q.ready && q.until > now && known.has(q.uid));
      const taken = new Set<number>();
      const made: number[] = [];
      for (const [i, a] of waiting.entries()) {
        if (taken.has(a.uid)) continue;
        const cost = (b: (typeof waiting)[number]) =>
          (a.country === b.country ? 0 : 10) +
          Math.abs(Math.log10(1 + a.viewers) - Math.log10(1 + b.viewers));
        const candidates = waiting
          .slice(i + 1)
          .filter((b) => !taken.has(b.uid))
          .sort((x, y) => cost(x) - cost(y));
        const best = candidates.find((b) => !apart.has(pairKey(a.uid, b.uid))) ?? null;
        if (!best) continue;
        taken.add(a.uid).add(best.uid);
        const id = await pkRepo.open(
          tx,
          {
            a_uid: a.uid,
            a_vid: a.vid,
            b_uid: best.uid,
            b_vid: best.vid,
            round: a.round_seconds,
            punish: this.#punish,
            until: now + PK_AWAIT_SECONDS * 1000,
          },
          'await',
        );
        // Invited meanwhile (after this queue was read): nothing of this tick is kept, and the
        // next one drops whoever is busy.
        if (id === null) throw new Error('a host of the queue became busy');
        await pkRepo.dequeue(tx, [a.uid, best.uid]);
        made.push(id);
      }
      return made;
    });
  }

  /** The invited host accepts (the countdown starts in both rooms) or declines. */
  async answer(uid: number, id: number, accept: boolean): Promise<PkInvite> {
    const now = this.#now();
    const started = await this.db.transaction(async (tx) => {
      const b = await pkRepo.get(tx, id, true);
      if (!b || b.b_uid !== uid) throw new AppError('not_found');
      if (b.phase !== 'invited' || (b.phase_until ?? 0) <= now) throw new AppError('pk_invite_gone');
      if (!accept) {
        await pkRepo.setPhase(tx, id, { phase: 'declined', until: null });
        await pkRepo.free(tx, id);
        return false;
      }
      // Both must still be live with the broadcasts the invitation named.
      const [aVid, bVid] = [await pkRepo.liveOf(tx, b.a_uid), await pkRepo.liveOf(tx, b.b_uid)];
      if (aVid !== b.a_vid || bVid !== b.b_vid) {
        await pkRepo.setPhase(tx, id, { phase: 'cancelled', until: null });
        await pkRepo.free(tx, id);
        throw new AppError('pk_unavailable');
      }
      await pkRepo.setPhase(tx, id, { phase: 'await', until: now + PK_AWAIT_SECONDS * 1000 });
      return true;
    });
    if (started) await this.#tellRooms(id);
    return this.#tellInvite(id);
  }

  /** The inviting host takes the invitation back before it is answered. */
  async withdraw(uid: number, id: number): Promise<PkInvite> {
    await this.db.transaction(async (tx) => {
      const b = await pkRepo.get(tx, id, true);
      if (!b || b.a_uid !== uid) throw new AppError('not_found');
      if (b.phase !== 'invited') throw new AppError('pk_invite_gone');
      await pkRepo.setPhase(tx, id, { phase: 'cancelled', until: null });
      await pkRepo.free(tx, id);
    });
    return this.#tellInvite(id);
  }

  /**
   * The winning host names the loser's dare, during the dare: in their own words, or the
   * suggestion of `from` (someone in their room, see suggest).
   */
  async dare(uid: number, id: number, what: { text: string } | { from: number }): Promise<PkBattle> {
    await this.db.transaction(async (tx) => {
      const b = await pkRepo.get(tx, id, true);
      if (!b || (b.a_uid !== uid && b.b_uid !== uid)) throw new AppError('not_found');
      const side = b.a_uid === uid ? 'a' : 'b';
      if (b.phase !== 'punish' || b.winner !== side) throw new AppError('pk_no_dare');
      if ('text' in what) return pkRepo.setDare(tx, id, this.#mask(what.text));
      const idea = await pkRepo.idea(tx, id, what.from);
      if (idea === null) throw new AppError('not_found');
      await pkRepo.setDare(tx, id, idea, what.from);
    });
    const view = await this.#tellRooms(id);
    if (!view) throw new AppError('not_found');
    return view;
  }

  /**
   * Someone in the winning room suggests the loser's dare, while the winning host has not named
   * it (a new suggestion replaces theirs). Not the battle's hosts, nor someone the winning host
   * blocked (they are out of that room).
   */
  async suggest(uid: number, id: number, text: string): Promise<void> {
    await enforceLimits(this.kv, [{ limit: IDEA_LIMIT, key: String(uid) }], this.opts.limitScale);
    const b = await pkRepo.get(this.db, id);
    if (!b) throw new AppError('not_found');
    if (b.phase !== 'punish' || (b.winner !== 'a' && b.winner !== 'b') || b.dare !== null)
      throw new AppError('pk_no_dare');
    if (uid === b.a_uid || uid === b.b_uid) throw new AppError('not_allowed', { reason: 'pk_host' });
    const host = b.winner === 'a' ? b.a_uid : b.b_uid;
    if ((await this.#apart([host, uid])).size) throw new AppError('blocked_permanently');
    await pkRepo.suggest(this.db, id, uid, this.#mask(text));
  }

  /** The dares the winning room suggested, newest first: for the winning host only. */
  async ideas(uid: number, id: number): Promise<PkIdea[]> {
    const b = await pkRepo.get(this.db, id);
    if (!b || (b.a_uid !== uid && b.b_uid !== uid)) throw new AppError('not_found');
    if (b.winner !== (b.a_uid === uid ? 'a' : 'b')) throw new AppError('pk_no_dare');
    return pkRepo.ideas(this.db, id, IDEAS_SHOWN);
  }

  #mask(text: string): string {
    return this.opts.mask ? this.opts.mask(text) : text;
  }

  /** A room's battle now (or its result, for a while after the end). */
  async room(vid: string): Promise<PkBattle | null> {
    const b = await pkRepo.ofRoom(this.db, vid, PK_RESULT_MS);
    return b ? this.#view(b) : null;
  }

  /**
   * A gift was paid in this broadcast (GiftService, after its batch committed): when its battle
   * is scoring, the battle's roll-up runs now, or once more right after the one running.
   */
  gifted(vid: string): void {
    const id = this.#scoring.get(vid);
    if (id !== undefined) this.#kick(id);
  }

  #kick(id: number): void {
    const running = this.#rolling.get(id);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    this.#rolling.set(id, state);
    void (async () => {
      try {
        do {
          state.again = false;
          await this.rollUp(id);
        } while (state.again);
      } catch (err) {
        this.opts.log?.(err);
      } finally {
        this.#rolling.delete(id);
      }
    })();
  }

  /**
   * A broadcast ended. Its battle: an invitation or countdown is called off; a round is lost by
   * the side that left (forfeit, or dropped when its media did not come back); a dare just ends.
   */
  async liveEnded(vid: string, reason: EndReason): Promise<void> {
    const id = await this.db.transaction(async (tx) => {
      const b = await pkRepo.openOfRoom(tx, vid);
      if (!b) return null;
      if (b.phase === 'invited' || b.phase === 'await') {
        await pkRepo.setPhase(tx, b.id, { phase: 'cancelled', until: null });
        await pkRepo.free(tx, b.id);
      } else if (b.phase === 'start') {
        await pkRepo.stopScoring(tx, b.id);
        const left = b.a_vid === vid ? 'a' : 'b';
        await this.#finish(tx, b, {
          winner: left === 'a' ? 'b' : 'a',
          reason: reason === 'lost' || reason === 'lapsed' ? 'dropped' : 'forfeit',
        });
      } else {
        // The dare: the result stands.
        await this.#finish(tx, b, null);
      }
      return b.id;
    });
    if (id === null) return;
    await this.#tellRooms(id);
    await this.#tellInvite(id);
  }

  /** Moves every battle whose phase is over (one node does each: the others find it moved), pairs the queue, and counts scoring gifts that wait. */
  async tick(): Promise<void> {
    const now = this.#now();
    for (const id of await pkRepo.due(this.db, now, 100)) await this.#step(id, now);
    for (const id of await this.#match(now)) await this.#tellRooms(id);
    await this.#readScoring();
    for (const id of await pkRepo.withPending(this.db)) await this.rollUp(id);
  }

  async #readScoring(): Promise<void> {
    this.#scoring = new Map((await pkRepo.scoring(this.db)).map((r) => [r.vid, r.battle_id]));
  }

  async #step(id: number, now: number): Promise<void> {
    const moved = await this.db.transaction(async (tx) => {
      const b = await pkRepo.lockToMove(tx, id);
      if (!b || b.phase_until === null || b.phase_until > now) return null;
      switch (b.phase) {
        case 'invited':
          await pkRepo.setPhase(tx, id, { phase: 'expired', until: null });
          await pkRepo.free(tx, id);
          return 'invite';
        case 'await':
          await pkRepo.setPhase(tx, id, {
            phase: 'start',
            until: now + b.round_seconds * 1000,
            started: true,
          });
          await pkRepo.startScoring(tx, b);
          return 'room';
        case 'start': {
          // From here no gift's statement finds the battle scoring; those that already did are
          // counted as they commit (the result follows them: see rollUp).
          await pkRepo.stopScoring(tx, id);
          const s = await this.#count(tx, b);
          await pkRepo.setPhase(tx, id, {
            phase: 'punish',
            until: now + b.punish_seconds * 1000,
            winner: winnerOf(s.a, s.b),
            reason: 'score',
          });
          return 'room';
        }
        case 'punish': {
          await this.#finish(tx, b, null);
          return 'room';
        }
        default:
          return null;
      }
    });
    if (moved === 'invite') await this.#tellInvite(id);
    if (moved === 'room') {
      await this.#readScoring();
      await this.#tellRooms(id);
    }
  }

  /**
   * Ends a battle: the last scoring gifts counted, the result (the scores', or `forced`: a
   * forfeit), the winner's win on the leaderboards, both hosts free.
   */
  async #finish(
    tx: Queryable,
    b: BattleRow,
    forced: { winner: 'a' | 'b'; reason: 'forfeit' | 'dropped' } | null,
  ): Promise<void> {
    const s = await this.#count(tx, b);
    const winner =
      forced?.winner ?? (b.reason === 'score' || b.reason === null ? winnerOf(s.a, s.b) : b.winner);
    await pkRepo.setPhase(tx, b.id, {
      phase: 'end',
      until: null,
      ended: true,
      winner,
      reason: forced?.reason ?? 'score',
    });
    await pkRepo.free(tx, b.id);
    if (winner === 'a' || winner === 'b') await countPkWin(tx, winner === 'a' ? b.a_uid : b.b_uid);
  }

  /** Counts a battle's scoring gifts that wait (one statement), and tells both rooms when any were. */
  async rollUp(id: number): Promise<void> {
    const row = await pkRepo.roll(this.db, id);
    if (row?.counted) await this.#tellRooms(id, row);
  }

  /**
   * Turns the battle's pending scoring gifts into points, in the order they were made: the first
   * of each side counts double. A gift already counted is not counted again (pk_points is keyed
   * by its ledger transaction). Answers the scores after. Once the round is over, the result
   * follows the scores (a gift whose statement found the round still on may commit just after
   * it ended); a forfeit's result stands.
   */
  async #count(tx: Queryable, b: BattleRow): Promise<{ a: number; b: number }> {
    const row = await pkRepo.roll(tx, b.id);
    return { a: row?.a_score ?? b.a_score, b: row?.b_score ?? b.b_score };
  }

  /**
   * Checks a battle against the ledger: every point is a gift of the ledger to that side's
   * broadcast with the same coins, at most one per side counted double, and the scores are the
   * points' sums. Answers what does not hold (nothing when all does).
   */
  async audit(id: number): Promise<string[]> {
    const b = await pkRepo.get(this.db, id);
    if (!b) return ['no such battle'];
    const rows = await pkRepo.audit(this.db, id);
    const wrong: string[] = [];
    const sum = { a: 0, b: 0 };
    const doubled = { a: 0, b: 0 };
    for (const r of rows) {
      const vid = r.side === 'a' ? b.a_vid : b.b_vid;
      if (r.ledger_coins !== r.coins || r.ledger_vid !== vid)
        wrong.push(`tx ${r.tx_id} is not a gift of ${r.coins} to ${vid}`);
      if (r.points === 2 * r.coins) doubled[r.side]++;
      sum[r.side] += r.points;
    }
    if (sum.a !== b.a_score || sum.b !== b.b_score)
      wrong.push(`scores ${b.a_score}:${b.b_score}, points ${sum.a}:${sum.b}`);
    if (doubled.a > 1 || doubled.b > 1) wrong.push('more than one first gift on a side');
    return wrong;
  }

  #people(b: BattleRow): Promise<[Person, Person]> {
    return this.#hosts.get(b.id, async () => {
      const people = await pkRepo.people(this.db, [b.a_uid, b.b_uid]);
      const missing = (uid: number): Person => ({ uid, short_id: '', nickname: '', face: null });
      return [people.get(b.a_uid) ?? missing(b.a_uid), people.get(b.b_uid) ?? missing(b.b_uid)];
    });
  }

  async #view(b: BattleRow): Promise<PkBattle> {
    const [a, bh] = await this.#people(b);
    const showMvp = b.phase === 'punish' || b.phase === 'end';
    const mvp = showMvp ? await pkRepo.mvp(this.db, b.id) : [];
    const side = (s: 'a' | 'b') =>
      mvp
        .filter((m) => m.side === s)
        .map((m) => ({ uid: m.uid, nickname: m.nickname, face: m.face, points: m.points }));
    return {
      id: b.id,
      phase: b.phase,
      left_ms: b.phase_until === null ? 0 : Math.max(0, b.phase_until - this.#now()),
      round_seconds: b.round_seconds,
      a: { host: a, vid: b.a_vid, score: b.a_score, mvp: side('a') },
      b: { host: bh, vid: b.b_vid, score: b.b_score, mvp: side('b') },
      winner: b.winner,
      reason: b.reason,
      dare: b.dare,
      dare_by:
        b.dare_by === null ? null : ((await pkRepo.people(this.db, [b.dare_by])).get(b.dare_by) ?? null),
      version: b.version,
    };
  }

  /** Tells both rooms the battle as it is now (`row`, when the caller has just read it). */
  async #tellRooms(id: number, row?: BattleRow): Promise<PkBattle | null> {
    const b = row ?? (await pkRepo.get(this.db, id));
    if (!b) return null;
    const view = await this.#view(b);
    const battle = ['await', 'start', 'punish', 'end'].includes(b.phase) ? view : null;
    await Promise.all(
      [b.a_vid, b.b_vid].map((room) =>
        this.bus.signal({
          t: 'pk',
          room,
          battle,
          seq: seqOf(b),
          // A result is shown to people who come in for a while, not for ever.
          ...(b.phase === 'end' ? { ttl_ms: PK_RESULT_MS } : {}),
        }),
      ),
    ).catch((err: unknown) => this.opts.log?.(err));
    return view;
  }

  /** Tells both hosts the invitation as it is now. */
  async #tellInvite(id: number): Promise<PkInvite> {
    const b = await pkRepo.get(this.db, id);
    if (!b) throw new AppError('not_found');
    const [from, to] = await this.#people(b);
    const invite: PkInvite = {
      id: b.id,
      phase: b.phase,
      from,
      to,
      round_seconds: b.round_seconds,
      left_ms: b.phase === 'invited' && b.phase_until !== null ? Math.max(0, b.phase_until - this.#now()) : 0,
    };
    await Promise.all(
      [b.a_uid, b.b_uid].map((uid) => this.bus.signal({ t: 'pk_invite', room: userTopic(uid), invite })),
    ).catch((err: unknown) => this.opts.log?.(err));
    return invite;
  }
}
