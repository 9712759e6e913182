import { randomBytes } from 'node:crypto';
import { AppError } from '../../../common/errors';
import { escapeChat } from '../../../common/realtime';
import type { Db } from '../../db/client';
import type { Kv } from '../../infra/kv';
import { enforceLimits, type Limit } from '../../infra/ratelimit';
import type { Bus } from '../../realtime/bus';
import type { ClientMessage, RoomEvent } from '../../realtime/events';
import type { Identity } from '../../realtime/gateway';
import { existingLive } from '../live/existing';
import { roomRepo } from '../room/repo';
import { usersRepo } from '../users/repo';
import type { SensitiveWords } from '../moderation/sensitive';

/** Spec §8 'Please slow down': this many messages per user and room in the window. */
export const CHAT_LIMIT: Limit = { name: 'chat:user', max: 5, windowSeconds: 5 };
export const MAX_CHAT_CHARS = 200;
export const MAX_MENTIONS = 5;
const graphemes = new Intl.Segmenter();

/**
 * The live room's rules for what people say: who may write, how fast, what gets masked, who may
 * delete. Everything accepted is published on the bus, which carries it to every node.
 */
export class ChatService {
  readonly #hosts = new Map<string, { uid: number; at: number }>();

  constructor(
    private readonly db: Db,
    private readonly kv: Kv,
    private readonly bus: Bus,
    private readonly opts: {
      sensitive: SensitiveWords;
      limitScale?: number;
      /** Whether a sticker id is in the set (the gift catalogue's). */
      hasSticker?: (id: number) => Promise<boolean>;
    },
  ) {}

  /** Whose room it is (cached briefly: every chat message asks). */
  async #host(room: string): Promise<number> {
    const hit = this.#hosts.get(room);
    if (hit && Date.now() - hit.at < 60_000) return hit.uid;
    const live = await existingLive(this.db, room);
    this.#hosts.set(room, { uid: live.uid, at: Date.now() });
    if (this.#hosts.size > 10_000) this.#hosts.delete(this.#hosts.keys().next().value ?? '');
    return live.uid;
  }

  /**
   * Joining: the broadcast must exist (ended rooms stay readable for their last words), and the
   * host must not have blocked the person (spec §6).
   */
  async canJoin(room: string, who: Identity | null): Promise<'host' | 'viewer'> {
    const host = await this.#host(room);
    if (who?.uid === host) return 'host';
    if (who && (await roomRepo.isBlocked(this.db, host, who.uid))) throw new AppError('blocked_permanently');
    return 'viewer';
  }

  /** The mentioned people whose @name is in the text (at most MAX_MENTIONS, each once). */
  async #mentions(text: string, uids: readonly number[] | undefined): Promise<number[]> {
    const found: number[] = [];
    for (const uid of new Set(uids ?? [])) {
      if (found.length >= MAX_MENTIONS) break;
      const user = await usersRepo.byUid(this.db, uid);
      if (user && text.includes(`@${user.nickname}`)) found.push(uid);
    }
    return found;
  }

  async act(who: Identity | null, msg: Extract<ClientMessage, { t: 'chat' | 'delete' }>): Promise<RoomEvent> {
    if (!who) throw new AppError('sign_in_first');
    const host = await this.#host(msg.room);
    if (msg.t === 'delete') {
      if (who.uid !== host && !who.staff) throw new AppError('not_allowed');
      return this.bus.publish(msg.room, { t: 'delete', mid: msg.mid });
    }
    const text = Array.from(graphemes.segment(msg.text.trim()), (g) => g.segment)
      .slice(0, MAX_CHAT_CHARS)
      .join('');
    if (!text && msg.sticker === undefined) throw new AppError('chat_empty');
    if (msg.sticker !== undefined && !(await this.opts.hasSticker?.(msg.sticker)))
      throw new AppError('validation_failed', { field: 'sticker' });
    await enforceLimits(
      this.kv,
      [{ limit: CHAT_LIMIT, key: `${who.uid}:${msg.room}` }],
      this.opts.limitScale,
    );
    return this.bus.publish(msg.room, {
      t: 'chat',
      mid: randomBytes(6).toString('base64url'),
      from: {
        uid: who.uid,
        name: who.name,
        role: who.uid === host ? 'host' : who.staff ? 'staff' : 'viewer',
      },
      text: escapeChat(this.opts.sensitive.mask(text)),
      mentions: await this.#mentions(text, msg.mentions),
      ...(msg.sticker === undefined ? {} : { sticker: msg.sticker }),
    });
  }
}
