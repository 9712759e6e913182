import { useCallback, useEffect, useRef, useState, type ReactNode, type SyntheticEvent } from 'react';
import { escapeChat, type RoomEvent } from '../../common/realtime';
import { countGraphemes } from '../../common/validation';
import { sessionMark } from '../lib/api';
import { useAuth } from '../lib/session';
import { useI18n } from '../i18n/i18n';
import { applyEvents, chatErrorText, isLine, clampChat, CHAT_MAX_CHARS, type ChatLine } from './chat-lines';
import { ChatList } from './ChatList';
import { realtime, RealtimeError, type ConnectionState } from './realtime';
import { StickerPicker } from './Stickers';

const KEEP = 200;
/** Lines arriving within this long of a redraw wait for the next one. */
const FLUSH_MS = 200;
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
  /** Lines received since the page opened (on the list as data-received, for measuring). */
  const [received, setReceived] = useState(0);
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
    // A busy room sends lines faster than anyone reads them: at most one redraw per FLUSH_MS
    // (the first line of a quiet spell at once). A timer, not an animation frame: a tab in the
    // background catches up when shown, and headless browsers draw frames only on demand.
    let pending: RoomEvent[] = [];
    let timer = 0;
    let last = 0;
    const flush = () => {
      timer = 0;
      last = performance.now();
      const events = pending;
      pending = [];
      setMessages((old) => applyEvents(old, events, KEEP));
      setReceived((n) => n + events.filter(isLine).length);
    };
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
        pending.push(e);
        if (!timer) timer = window.setTimeout(flush, Math.max(0, last + FLUSH_MS - performance.now()));
      },
      count: (viewers) => callbacks.current.onViewers?.(viewers),
      error: (name) => {
        if (name === 'blocked_permanently') callbacks.current.onBlocked?.();
        else setError(name);
      },
    });
    return () => {
      window.clearTimeout(timer);
      leave();
      stopState();
    };
  }, [vid]);

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

  /**
   * Deletes a message (host, staff), or reminds the room of the guidelines (staff). One function
   * per room: the lines are drawn once each.
   */
  const moderate = useCallback(
    async (mid?: string) => {
      try {
        await realtime().act(mid ? { t: 'delete', room: vid, mid } : { t: 'warn', room: vid });
        setError(null);
      } catch (err) {
        setError(err instanceof RealtimeError ? err.message : 'networkError');
      }
    },
    [vid],
  );
  const deleteMessage = useCallback((mid: string) => void moderate(mid), [moderate]);

  const isHost = user?.uid === hostUid;
  const staff = user?.staff === true;
  // The server lets the host and staff delete (and checks again).
  const canDelete = isHost || staff;
  const length = countGraphemes(text);
  return (
    <section className="chat" aria-label={t('chat.title')}>
      {state === 'reconnecting' && (
        <p className="chat__status" role="status">
          {t('chat.reconnecting')}
        </p>
      )}
      <ChatList
        lines={messages}
        received={received}
        isHost={isHost}
        viewerUid={user?.uid ?? null}
        canDelete={canDelete}
        onPick={onPick}
        onDelete={deleteMessage}
      />
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
