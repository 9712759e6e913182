import { useEffect, useRef, useState, type ReactNode, type SyntheticEvent } from 'react';
import { escapeChat, unescapeChat } from '../../common/realtime';
import { sessionMark } from '../lib/api';
import { useAuth } from '../lib/session';
import { useI18n } from '../i18n/i18n';
import {
  applyEvents,
  chatErrorText,
  chatLength,
  clampChat,
  CHAT_MAX_CHARS,
  hostTexts,
  noticeText,
  type ChatLine,
} from './chat-lines';
import { realtime, RealtimeError, type ConnectionState } from './realtime';
import { giftName, useGifts } from './room-api';
import { StickerImage, StickerPicker } from './Stickers';

const KEEP = 200;
/** The length is shown once a message is this close to the limit. */
const COUNT_FROM = CHAT_MAX_CHARS - 20;

/** Someone to @mention, asked for from their card (`at` makes each request new). */
export interface Mention {
  uid: number;
  name: string;
  at: number;
}

/**
 * The live room's chat: history on join, new messages as they come, sending for signed-in
 * people (visitors get the login dialog), host messages marked, delete for the host and staff,
 * names that open a person's card, @mentions (messages naming the reader stand out), and lines
 * for the broadcaster's connection and the team's notices.
 */
export function Chat({
  vid,
  hostUid,
  onPick,
  mention,
  onViewers,
  onBlocked,
  actions,
}: {
  vid: string;
  hostUid: number;
  onPick?: (uid: number) => void;
  mention?: Mention | null;
  onViewers?: (n: number) => void;
  /** The host blocked this viewer (now, or before they came). */
  onBlocked?: () => void;
  /** Buttons at the end of the message bar (the phone's gift and share). */
  actions?: ReactNode;
}) {
  const { t } = useI18n();
  const { user, requireLogin } = useAuth();
  const [messages, setMessages] = useState<ChatLine[]>([]);
  const [state, setState] = useState<ConnectionState>('connecting');
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const list = useRef<HTMLOListElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [mentioned, setMentioned] = useState<Mention[]>([]);
  const [lastMention, setLastMention] = useState(mention);
  // The page's callbacks, read when events come (the room is joined once per vid).
  const callbacks = useRef({ onViewers, onBlocked });
  useEffect(() => {
    callbacks.current = { onViewers, onBlocked };
  });

  // The server knows who is writing from the connection's cookie: signing in or out (not the
  // page restoring who was signed in) connects again.
  const session = sessionMark();
  const connectedAs = useRef(session);
  useEffect(() => {
    if (connectedAs.current === session) return;
    connectedAs.current = session;
    realtime().renew();
  }, [session]);

  // A new mention from a card: @name goes into the message being written.
  if (mention !== lastMention) {
    setLastMention(mention);
    if (mention) {
      setMentioned((old) => [...old.filter((m) => m.uid !== mention.uid), mention]);
      setText((old) => clampChat(`${old && !old.endsWith(' ') ? `${old} ` : old}@${mention.name} `));
    }
  }
  useEffect(() => {
    if (mention) input.current?.focus();
  }, [mention]);
  // Signed in from the chat's button: the box that replaces it takes the focus.
  const wantsInput = useRef(false);
  useEffect(() => {
    if (user && wantsInput.current) {
      wantsInput.current = false;
      input.current?.focus();
    }
  }, [user]);

  useEffect(() => {
    const rt = realtime();
    const stopState = rt.onState(setState);
    const leave = rt.join(vid, {
      joined: (events, viewers, fresh) => {
        // A room just opened on this node may not have counted anyone yet: the page's count
        // stands until the room's count events say otherwise.
        if (viewers > 0) callbacks.current.onViewers?.(viewers);
        // Deletes in the history apply to it (and, on a resume, to what is shown).
        setMessages((old) => applyEvents(fresh ? [] : old, events, KEEP));
      },
      event: (e) => {
        setMessages((old) => applyEvents(old, [e], KEEP));
      },
      count: (viewers) => callbacks.current.onViewers?.(viewers),
      error: (name) => {
        if (name === 'blocked_permanently') callbacks.current.onBlocked?.();
        else setError(name);
      },
    });
    return () => {
      leave();
      stopState();
    };
  }, [vid]);

  // Keep the newest message in view unless the reader has scrolled up.
  useEffect(() => {
    const el = list.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 80) el.scrollTop = el.scrollHeight;
  }, [messages]);

  const send = async (e: SyntheticEvent | null, sticker?: number) => {
    e?.preventDefault();
    if (!user) return requireLogin(t('error.sign_in_first'));
    // A sticker goes on its own; the text being typed stays in the box.
    const body = sticker === undefined ? text.trim() : '';
    if (!body && sticker === undefined) return setError('chat_empty');
    setSending(true);
    try {
      // Only the people still named in the text are mentioned.
      const mentions = mentioned.filter((m) => body.includes(`@${m.name}`)).map((m) => m.uid);
      await realtime().act({
        t: 'chat',
        room: vid,
        text: escapeChat(body),
        ...(mentions.length ? { mentions } : {}),
        ...(sticker === undefined ? {} : { sticker }),
      });
      if (sticker === undefined) {
        setMentioned([]);
        setText('');
      }
      setError(null);
    } catch (err) {
      const name = err instanceof RealtimeError ? err.message : 'networkError';
      if (name === 'sign_in_first') requireLogin(t('error.sign_in_first'));
      else if (name === 'blocked_permanently') callbacks.current.onBlocked?.();
      else setError(name);
    } finally {
      setSending(false);
    }
  };

  /** Deletes a message (host, staff), or reminds the room of the guidelines (staff). */
  const moderate = async (mid?: string) => {
    try {
      await realtime().act(mid ? { t: 'delete', room: vid, mid } : { t: 'warn', room: vid });
      setError(null);
    } catch (err) {
      setError(err instanceof RealtimeError ? err.message : 'networkError');
    }
  };

  const isHost = user?.uid === hostUid;
  const staff = user?.staff === true;
  // The server lets the host and staff delete (and checks again).
  const canDelete = isHost || staff;
  const length = chatLength(text);
  const hostSays = hostTexts(messages, isHost);
  return (
    <section className="chat" aria-label={t('chat.title')}>
      {state === 'reconnecting' && (
        <p className="chat__status" role="status">
          {t('chat.reconnecting')}
        </p>
      )}
      {/* A list that announces what is added (a role of "log" would take its items' list semantics). */}
      <ol className="chat__list" ref={list} aria-live="polite" aria-relevant="additions">
        {messages.length === 0 && <li className="chat__empty muted">{t('chat.empty')}</li>}
        {messages.map((m) =>
          m.t === 'gift' ? (
            <GiftLine key={m.id} name={m.from.name} giftId={m.gift_id} count={m.count} />
          ) : m.t === 'host' ? (
            <li key={m.id} className={`chat__system chat__system--host-${m.state}`}>
              {t(hostSays.get(m.id) ?? 'chat.hostEnded')}
            </li>
          ) : m.t === 'notice' ? (
            <NoticeLine key={m.id} noticeKey={m.key} params={m.params} />
          ) : m.t === 'follow' ? (
            <li key={m.id} className="chat__notice">
              {t('chat.followed', { name: m.from.name })}
            </li>
          ) : (
            <li
              key={m.mid}
              className={`chat__message chat__message--${m.from.role}${
                user && m.mentions.includes(user.uid) ? ' chat__message--mentions-me' : ''
              }`}
            >
              <Name uid={m.from.uid} onPick={onPick}>
                <bdi>{m.from.name}</bdi>
                {m.from.role !== 'viewer' && (
                  <span className="chat__role">{t(m.from.role === 'host' ? 'chat.host' : 'chat.staff')}</span>
                )}
              </Name>{' '}
              {user && m.mentions.includes(user.uid) && (
                <span className="sr-only">{t('chat.mentionsYou')} </span>
              )}
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
                  onClick={() => void moderate(m.mid)}
                >
                  ×
                </button>
              )}
            </li>
          ),
        )}
      </ol>
      {error && (
        <p className="form-error chat__error" role="alert">
          {chatErrorText(t, error)}
        </p>
      )}
      <form className="chat__form" onSubmit={(e) => void send(e)}>
        {user && (
          <label className="sr-only" htmlFor={`chat-input-${vid}`}>
            {t('chat.placeholder')}
          </label>
        )}
        {user ? (
          <input
            ref={input}
            id={`chat-input-${vid}`}
            className="chat__input"
            value={text}
            placeholder={t('chat.placeholder')}
            // At most 200 characters as people count them (an emoji is one), as the server does.
            onChange={(e) => setText(clampChat(e.target.value))}
            aria-describedby={length >= COUNT_FROM ? `chat-count-${vid}` : undefined}
            autoComplete="off"
          />
        ) : (
          // A visitor gets a button where the box will be, not a box that opens the dialog when
          // focused: closing the dialog gives focus back here, and a focused box reopened it.
          <button
            type="button"
            className="chat__input chat__sign-in"
            onClick={() => {
              wantsInput.current = true;
              requireLogin(t('error.sign_in_first'));
            }}
          >
            {t('chat.signIn')}
          </button>
        )}
        {length >= COUNT_FROM && (
          <span
            id={`chat-count-${vid}`}
            className={`chat__count${length >= CHAT_MAX_CHARS ? ' chat__count--full' : ''}`}
          >
            {t('chat.count', { count: length, max: CHAT_MAX_CHARS })}
          </span>
        )}
        <StickerPicker
          disabled={sending}
          onPick={(id) => {
            if (!user) requireLogin(t('error.sign_in_first'));
            else void send(null, id);
          }}
        />
        <button type="submit" className="btn btn--primary chat__send" disabled={sending}>
          {t('chat.send')}
        </button>
        {actions}
      </form>
      {staff && (
        <button type="button" className="btn btn--ghost chat__warn" onClick={() => void moderate()}>
          {t('chat.warn')}
        </button>
      )}
    </section>
  );
}

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

/** '… sent Rose ×3' in the chat. */
function GiftLine({ name, giftId, count }: { name: string; giftId: number; count: number }) {
  const { t } = useI18n();
  const gift = useGifts().gifts?.find((g) => g.gift_id === giftId);
  return (
    <li className="chat__notice chat__gift">
      {t('gifts.sent', { name, gift: gift ? giftName(t, gift) : '', count })}
    </li>
  );
}
