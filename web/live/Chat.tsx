import { useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { escapeChat, unescapeChat, type RoomEvent } from '../../common/realtime';
import { useAuth } from '../auth/AuthContext';
import { useI18n } from '../i18n/i18n';
import { realtime, RealtimeError, type ConnectionState } from './realtime';

type ChatMessage = Extract<RoomEvent, { t: 'chat' }>;
/** What the list shows: messages, and who followed the host. */
type Line = ChatMessage | Extract<RoomEvent, { t: 'follow' }>;

const KEEP = 200;

/** Errors the chat can show; anything else reads as a network problem. */
type ChatError =
  'sign_in_first' | 'too_many_requests' | 'chat_empty' | 'not_in_room' | 'video_not_found' | 'not_allowed';
const CHAT_ERRORS = new Set<string>([
  'sign_in_first',
  'too_many_requests',
  'chat_empty',
  'not_in_room',
  'video_not_found',
  'not_allowed',
]);

/**
 * The live room's chat: history on join, new messages as they come, sending for signed-in
 * people (visitors get the login dialog), host messages marked, delete for the host.
 */
export function Chat({ vid, hostUid }: { vid: string; hostUid: number }) {
  const { t } = useI18n();
  const { user, requireLogin } = useAuth();
  const [messages, setMessages] = useState<Line[]>([]);
  const [state, setState] = useState<ConnectionState>('connecting');
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const list = useRef<HTMLOListElement>(null);

  useEffect(() => {
    const rt = realtime();
    const stopState = rt.onState(setState);
    const leave = rt.join(vid, {
      joined: (events, _viewers, fresh) => {
        const chats = events.filter((e): e is Line => e.t === 'chat' || e.t === 'follow');
        setMessages((old) => (fresh ? chats : [...old, ...chats]).slice(-KEEP));
      },
      event: (e) => {
        if (e.t === 'chat' || e.t === 'follow') setMessages((old) => [...old, e].slice(-KEEP));
        else if (e.t === 'delete') setMessages((old) => old.filter((m) => m.t !== 'chat' || m.mid !== e.mid));
      },
      // The page shows the player count (WHEP sessions); the chat's own audience count is not shown yet.
      count: () => undefined,
      error: (name) => setError(name),
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

  const send = async (e: SyntheticEvent) => {
    e.preventDefault();
    if (!user) return requireLogin(t('error.sign_in_first'));
    const body = text.trim();
    if (!body) return setError('chat_empty');
    setSending(true);
    try {
      await realtime().act({ t: 'chat', room: vid, text: escapeChat(body) });
      setText('');
      setError(null);
    } catch (err) {
      const name = err instanceof RealtimeError ? err.message : 'networkError';
      if (name === 'sign_in_first') requireLogin(t('error.sign_in_first'));
      else setError(name);
    } finally {
      setSending(false);
    }
  };

  const isHost = user?.uid === hostUid;
  return (
    <section className="chat" aria-label={t('chat.title')}>
      {state === 'reconnecting' && (
        <p className="chat__status" role="status">
          {t('chat.reconnecting')}
        </p>
      )}
      <ol className="chat__list" ref={list} role="log" aria-live="polite">
        {messages.length === 0 && <li className="chat__empty muted">{t('chat.empty')}</li>}
        {messages.map((m) =>
          m.t === 'follow' ? (
            <li key={m.id} className="chat__notice">
              {t('chat.followed', { name: m.from.name })}
            </li>
          ) : (
            <li key={m.mid} className={`chat__message chat__message--${m.from.role}`}>
              <span className="chat__name">
                <bdi>{m.from.name}</bdi>
                {m.from.role !== 'viewer' && (
                  <span className="chat__role">{t(m.from.role === 'host' ? 'chat.host' : 'chat.staff')}</span>
                )}
              </span>{' '}
              <span className="chat__text">
                <bdi>{unescapeChat(m.text)}</bdi>
              </span>
              {isHost && (
                <button
                  type="button"
                  className="chat__delete"
                  aria-label={t('chat.delete')}
                  title={t('chat.delete')}
                  onClick={() =>
                    void realtime()
                      .act({ t: 'delete', room: vid, mid: m.mid })
                      .catch(() => undefined)
                  }
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
          {t(CHAT_ERRORS.has(error) ? (`error.${error}` as `error.${ChatError}`) : 'error.network')}
        </p>
      )}
      <form className="chat__form" onSubmit={(e) => void send(e)}>
        <label className="sr-only" htmlFor={`chat-input-${vid}`}>
          {t('chat.placeholder')}
        </label>
        <input
          id={`chat-input-${vid}`}
          className="chat__input"
          value={text}
          maxLength={200}
          placeholder={user ? t('chat.placeholder') : t('chat.signIn')}
          onChange={(e) => setText(e.target.value)}
          onFocus={() => {
            if (!user) requireLogin(t('error.sign_in_first'));
          }}
          autoComplete="off"
        />
        <button type="submit" className="btn btn--primary chat__send" disabled={sending}>
          {t('chat.send')}
        </button>
      </form>
    </section>
  );
}
