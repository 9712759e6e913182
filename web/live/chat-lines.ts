import { ERRORS } from '../../common/errors';
import { escapeChat, type RoomEvent } from '../../common/realtime';
import { graphemes } from '../../common/validation';
import type { I18n } from '../i18n/i18n';
import type { MessageKey } from '../i18n/types';

// The chat's pure rules: which events are lines, how a batch (a join's history, a resume, a live
// event) changes the list, what an error or a notice says, how long a message may be.

/** What the chat list shows: messages, follows, gifts, the broadcaster's state, notices. */
export type ChatLine = Extract<RoomEvent, { t: 'chat' | 'follow' | 'gift' | 'host' | 'notice' }>;

export function isLine(e: RoomEvent): e is ChatLine {
  return e.t === 'chat' || e.t === 'follow' || e.t === 'gift' || e.t === 'host' || e.t === 'notice';
}

/**
 * The list after a batch of events: new lines go at the end, and every `delete` of the batch
 * removes its message, whether the message came earlier in the same batch, in an earlier one, or
 * (out of order) after the delete. At most `keep` lines stay, the newest.
 */
export function applyEvents(
  old: readonly ChatLine[],
  events: readonly RoomEvent[],
  keep: number,
): ChatLine[] {
  const deleted = new Set<string>();
  for (const e of events) if (e.t === 'delete') deleted.add(e.mid);
  const next = [...old, ...events.filter(isLine)];
  const kept = deleted.size ? next.filter((l) => l.t !== 'chat' || !deleted.has(l.mid)) : next;
  return kept.slice(-keep);
}

/**
 * What each change of the broadcaster's state in the list says (by event id), which depends on
 * the state before it: back after a drop, or started; for the broadcaster themselves, an end
 * right after a drop is their connection giving out (spec: 'Your internet connection is
 * unstable and your broadcast is ended').
 */
export function hostTexts(lines: readonly ChatLine[], broadcaster: boolean): Map<string, MessageKey> {
  const texts = new Map<string, MessageKey>();
  let before: Extract<ChatLine, { t: 'host' }>['state'] | null = null;
  for (const l of lines) {
    if (l.t !== 'host') continue;
    texts.set(
      l.id,
      l.state === 'interrupted'
        ? 'chat.hostInterrupted'
        : l.state === 'live'
          ? before === 'interrupted'
            ? 'chat.hostBack'
            : 'chat.hostStarted'
          : broadcaster && before === 'interrupted'
            ? 'error.unstable'
            : 'chat.hostEnded',
    );
    before = l.state;
  }
  return texts;
}

/**
 * What a refused room action says: the server's catalogue text (error.<name>) for every error it
 * can name, 'network' for anything else (no answer, a dropped connection).
 */
export function chatErrorText(t: I18n['t'], name: string): string {
  return Object.hasOwn(ERRORS, name) ? t(`error.${name}` as MessageKey) : t('error.network');
}

/** A system notice's text (catalogue `notice.<key>`), or null for a key this page does not know. */
export function noticeText(
  t: I18n['t'],
  key: string,
  params?: Record<string, string | number>,
): string | null {
  if (!/^[a-z0-9_]{1,64}$/.test(key)) return null;
  const id = `notice.${key}` as MessageKey;
  try {
    const text = t(id, params);
    return text === id ? null : text;
  } catch {
    return null; // a placeholder the notice did not bring
  }
}

/** Spec: a chat message is at most 200 characters, as people count them (graphemes). */
export const CHAT_MAX_CHARS = 200;
/** The realtime protocol's limit on a message's text as sent (escaped). */
const CHAT_MAX_WIRE = 1000;

/**
 * The text cut to what may be sent: CHAT_MAX_CHARS characters (never half an emoji), and no more
 * than the protocol carries once < and > are escaped.
 */
export function clampChat(text: string): string {
  if (text.length <= CHAT_MAX_CHARS) return text;
  let out = '';
  let chars = 0;
  let wire = 0;
  for (const { segment } of graphemes(text)) {
    const size = escapeChat(segment).length;
    if (chars + 1 > CHAT_MAX_CHARS || wire + size > CHAT_MAX_WIRE) break;
    out += segment;
    chars++;
    wire += size;
  }
  return out;
}
