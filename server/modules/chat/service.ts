import { randomBytes } from 'node:crypto';
import { AppError } from '../../../common/errors';
import { escapeChat, unescapeChat } from '../../../common/realtime';
import { cleanText } from '../../../common/text';
import { LocalLimits, type Limit } from '../../infra/ratelimit';
import { HISTORY_LENGTH, type Bus } from '../../realtime/bus';
import type { ClientMessage, RoomEvent } from '../../realtime/events';
import type { Identity } from '../../realtime/gateway';
import type { LiveDirectory } from '../live';
import type { RoomService } from '../room';
import type { UsersService } from '../users';
import type { SensitiveWords } from '../moderation';

/** Spec §8 'Please slow down': this many messages per user and room in the window. */
export const CHAT_LIMIT: Limit = { name: 'chat:user', max: 5, windowSeconds: 5 };
export const MAX_CHAT_CHARS = 200;
export const MAX_MENTIONS = 5;
const graphemes = new Intl.Segmenter();

/** A message of a room's history: who, what, when (ms). */
export interface ChatLine {
  mid: string;
  from: { uid: number; name: string };
  text: string;
  at: number;
}
/** A broadcast that ends is closed to new messages within this (every chat message asks). */
const ROOM_CACHE_MS = 5000;

/**
 * The live room's rules for what people say: who may write, how fast, what gets masked, who may
 * delete. Everything accepted is published on the bus, which carries it to every node.
 */
export class ChatService {
  /** Counted on this node: a Redis round trip per message cost more than the limit is worth. */
  readonly #limits: LocalLimits;

  constructor(
    private readonly bus: Bus,
    private readonly opts: {
      /** Whose broadcast a room is and whether it is on. */
      directory: LiveDirectory;
      /** The host's blocks (spec §6). */
      room: Pick<RoomService, 'isBlocked'>;
      /** Nicknames, for mentions. */
      users: Pick<UsersService, 'names'>;
      sensitive: SensitiveWords;
      limitScale?: number;
      /** Whether a sticker id is in the set (the gift catalogue's). */
      hasSticker?: (id: number) => Promise<boolean>;
    },
  ) {
    this.#limits = new LocalLimits(opts.limitScale);
  }

  /** Whose room it is and whether it is still on (as of a few seconds ago). */
  async #room(room: string): Promise<{ uid: number; open: boolean }> {
    return this.opts.directory.entry(room, ROOM_CACHE_MS);
  }

  async #host(room: string): Promise<number> {
    return (await this.#room(room)).uid;
  }

  /**
   * Joining: the broadcast must exist (ended rooms stay readable for their last words), and the
   * host must not have blocked the person (spec §6).
   */
  async canJoin(room: string, who: Identity | null): Promise<'host' | 'viewer'> {
    const host = await this.#host(room);
    if (who?.uid === host) return 'host';
    if (who && (await this.opts.room.isBlocked(host, who.uid))) throw new AppError('blocked_permanently');
    return 'viewer';
  }

  /**
   * A room's latest messages, oldest first, deleted ones left out: what the staff's monitor shows
   * and what a report keeps of the moment it was made.
   */
  async recent(room: string, limit: number): Promise<ChatLine[]> {
    const { events } = await this.bus.history(room, { limit: limit * 2 });
    const deleted = new Set(events.flatMap((e) => (e.t === 'delete' ? [e.mid] : [])));
    return events
      .flatMap((e) =>
        e.t === 'chat' && !deleted.has(e.mid) ? [{ mid: e.mid, from: e.from, text: e.text, at: e.at }] : [],
      )
      .slice(-limit);
  }

  /** The mentioned people whose @name is in the text (at most MAX_MENTIONS, each once). */
  async #mentions(text: string, uids: readonly number[] | undefined): Promise<number[]> {
    const found: number[] = [];
    const asked = [...new Set(uids ?? [])];
    if (!asked.length) return found;
    const names = await this.opts.users.names(asked);
    for (const uid of asked) {
      if (found.length >= MAX_MENTIONS) break;
      const name = names.get(uid);
      if (name !== undefined && text.includes(`@${name}`)) found.push(uid);
    }
    return found;
  }

  async act(
    who: Identity | null,
    msg: Extract<ClientMessage, { t: 'chat' | 'delete' | 'warn' }>,
  ): Promise<RoomEvent> {
    if (!who) throw new AppError('sign_in_first');
    const { uid: host, open } = await this.#room(msg.room);
    if (msg.t === 'warn') {
      if (!who.staff) throw new AppError('not_allowed');
      return this.bus.publish(msg.room, { t: 'notice', key: 'room_warning' });
    }
    if (msg.t === 'delete') {
      if (who.uid !== host && !who.staff) throw new AppError('not_allowed');
      // Only a message still in the room's history (what joins and resumes would show).
      const { events } = await this.bus.history(msg.room, { limit: HISTORY_LENGTH });
      if (!events.some((e) => e.t === 'chat' && e.mid === msg.mid)) throw new AppError('message_not_found');
      if (events.some((e) => e.t === 'delete' && e.mid === msg.mid)) throw new AppError('message_not_found');
      return this.bus.publish(msg.room, { t: 'delete', mid: msg.mid });
    }
    if (!open) throw new AppError('video_ended');
    // The host's block holds for chat too, not only at the door: a block that landed while this
    // person was joining could not drop a connection it did not yet know of.
    if (who.uid !== host && !who.staff && (await this.opts.room.isBlocked(host, who.uid)))
      throw new AppError('blocked_permanently');
    // The page sends < and > escaped (spec §5); the limit counts what the person wrote, without
    // direction overrides, invisible or control characters (common/text.ts).
    const text = Array.from(graphemes.segment(cleanText(unescapeChat(msg.text)).trim()), (g) => g.segment)
      .slice(0, MAX_CHAT_CHARS)
      .join('');
    if (!text && msg.sticker === undefined) throw new AppError('chat_empty');
    if (msg.sticker !== undefined && !(await this.opts.hasSticker?.(msg.sticker)))
      throw new AppError('validation_failed', { field: 'sticker' });
    this.#limits.enforce(CHAT_LIMIT, `${who.uid}:${msg.room}`);
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
