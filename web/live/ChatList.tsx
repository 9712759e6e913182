import { memo, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { unescapeChat } from '../../common/realtime';
import { useI18n } from '../i18n/i18n';
import type { MessageKey } from '../i18n/types';
import { hostTexts, noticeText, type ChatLine } from './chat-lines';
import { giftName, useGifts } from './room-api';
import { StickerImage } from './Stickers';

/** Lines in the page while the reader follows the newest (the list keeps more to scroll back to). */
export const CHAT_WINDOW = 40;
/** How near the bottom (px) still counts as following the newest. */
const FOLLOWING_PX = 80;

const keyOf = (l: ChatLine) => (l.t === 'chat' ? l.mid : l.id);

/**
 * The chat's lines, windowed: a busy room (20 lines a second) draws only the newest CHAT_WINDOW
 * lines, each drawn once (lines are memoised; the list re-renders keys, not lines). Scrolled
 * up, the lines stay where they are while new ones arrive, and reaching the top shows older ones
 * (up to what the chat keeps); back at the bottom the window follows the newest again.
 */
export function ChatList({
  lines,
  received,
  isHost,
  viewerUid,
  canDelete,
  onPick,
  onDelete,
}: {
  lines: readonly ChatLine[];
  /** Lines received since the page opened (data-received, for measuring). */
  received: number;
  isHost: boolean;
  viewerUid: number | null;
  canDelete: boolean;
  onPick: ((uid: number) => void) | undefined;
  onDelete: (mid: string) => void;
}) {
  const { t } = useI18n();
  const list = useRef<HTMLOListElement>(null);
  // Following the newest (null), or reading back from this line on.
  const [from, setFrom] = useState<string | null>(null);
  // Where the reader was from the bottom, kept across showing older lines above.
  const keepFromBottom = useRef<number | null>(null);
  const hostSays = useMemo(() => hostTexts(lines, isHost), [lines, isHost]);

  const start = from === null ? -1 : lines.findIndex((l) => keyOf(l) === from);
  const shown = start < 0 ? lines.slice(-CHAT_WINDOW) : lines.slice(start);

  const onScroll = () => {
    const el = list.current;
    if (!el) return;
    const following = el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOWING_PX;
    if (following) {
      if (from !== null) setFrom(null);
      return;
    }
    const first = shown[0];
    if (from === null && first) setFrom(keyOf(first));
    // At the top: older lines above, the reader's place kept.
    const at = lines.indexOf(first as ChatLine);
    if (el.scrollTop < 40 && at > 0) {
      keepFromBottom.current = el.scrollHeight - el.scrollTop;
      const older = lines[Math.max(0, at - CHAT_WINDOW)];
      if (older) setFrom(keyOf(older));
    }
  };

  // Before the browser paints: follow the newest, or keep the reader's place.
  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    if (keepFromBottom.current !== null) {
      el.scrollTop = el.scrollHeight - keepFromBottom.current;
      keepFromBottom.current = null;
    } else if (from === null) el.scrollTop = el.scrollHeight;
  }, [shown, from]);

  return (
    // The list sits in a plain block (not straight in the chat's grid): a grid's item is never a
    // layout root, and this list is one (its size is contained), so a new line lays out the list
    // alone. A list that announces what is added (a role of "log" would take its items' list
    // semantics).
    <div className="chat__scroll">
      <ol
        className="chat__list"
        ref={list}
        aria-live="polite"
        aria-relevant="additions"
        data-received={received}
        onScroll={onScroll}
      >
        {lines.length === 0 && <li className="chat__empty muted">{t('chat.empty')}</li>}
        {shown.map((m) => (
          <Line
            key={keyOf(m)}
            line={m}
            hostText={m.t === 'host' ? (hostSays.get(m.id) ?? 'chat.hostEnded') : null}
            mentionsMe={m.t === 'chat' && viewerUid !== null && m.mentions.includes(viewerUid)}
            canDelete={canDelete}
            onPick={onPick}
            onDelete={onDelete}
          />
        ))}
      </ol>
    </div>
  );
}

/** One line of the chat, drawn again only when what it shows changes. */
const Line = memo(function Line({
  line: m,
  hostText,
  mentionsMe,
  canDelete,
  onPick,
  onDelete,
}: {
  line: ChatLine;
  hostText: MessageKey | null;
  mentionsMe: boolean;
  canDelete: boolean;
  onPick: ((uid: number) => void) | undefined;
  onDelete: (mid: string) => void;
}) {
  const { t } = useI18n();
  if (m.t === 'gift')
    return <GiftLine name={m.from.name} giftId={m.gift_id} count={m.count} to={m.to?.name} />;
  if (m.t === 'host')
    return (
      <li className={`chat__system chat__system--host-${m.state}`}>{t(hostText ?? 'chat.hostEnded')}</li>
    );
  if (m.t === 'notice') return <NoticeLine noticeKey={m.key} params={m.params} />;
  if (m.t === 'follow') return <li className="chat__notice">{t('chat.followed', { name: m.from.name })}</li>;
  return (
    <li
      className={`chat__message chat__message--${m.from.role}${mentionsMe ? ' chat__message--mentions-me' : ''}`}
    >
      <Name uid={m.from.uid} onPick={onPick}>
        <bdi>{m.from.name}</bdi>
        {m.from.role !== 'viewer' && (
          <span className="chat__role">{t(m.from.role === 'host' ? 'chat.host' : 'chat.staff')}</span>
        )}
      </Name>{' '}
      {mentionsMe && <span className="sr-only">{t('chat.mentionsYou')} </span>}
      {m.text && (
        <span className="chat__text">
          <bdi>{unescapeChat(m.text)}</bdi>
        </span>
      )}
      {m.sticker !== undefined && <StickerImage id={m.sticker} />}
      {canDelete && (
        <button
          type="button"
          className="chat__delete"
          aria-label={t('chat.delete')}
          title={t('chat.delete')}
          onClick={() => onDelete(m.mid)}
        >
          ×
        </button>
      )}
    </li>
  );
});

/** A sender's name: a button that opens their card where the page offers one. */
function Name({
  uid,
  onPick,
  children,
}: {
  uid: number;
  onPick: ((uid: number) => void) | undefined;
  children: ReactNode;
}) {
  if (!onPick) return <span className="chat__name">{children}</span>;
  return (
    <button type="button" className="chat__name chat__name--button" onClick={() => onPick(uid)}>
      {children}
    </button>
  );
}

/** A notice from the team, in the reader's language; one this page has no text for is not shown. */
function NoticeLine({ noticeKey, params }: { noticeKey: string; params?: Record<string, string | number> }) {
  const { t } = useI18n();
  const text = noticeText(t, noticeKey, params);
  if (!text) return null;
  return <li className="chat__system chat__system--notice">{text}</li>;
}

/** '… sent Rose ×3' in the chat ('… to …' for a speaker of an audio room). */
function GiftLine({ name, giftId, count, to }: { name: string; giftId: number; count: number; to?: string }) {
  const { t, locale } = useI18n();
  const gift = useGifts().gifts?.find((g) => g.gift_id === giftId);
  const what = gift ? giftName(locale, gift) : '';
  return (
    <li className="chat__notice chat__gift">
      {to === undefined
        ? t('gifts.sent', { name, gift: what, count })
        : t('gifts.sentTo', { name, gift: what, count, to })}
    </li>
  );
}
