import { useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { unescapeChat } from '../../common/realtime';
import { useI18n } from '../i18n/i18n';
import { useAuth } from '../lib/session';
import { FormError } from '../ui/form';
import { Modal } from '../ui/Modal';
import { TimeAgo } from '../ui/TimeAgo';
import {
  deleteComment,
  fetchComments,
  postComment,
  videoErrorText,
  type ShortComment,
  type ShortVideo,
} from './videos-api';

/**
 * A video's comments, newest first, a page at a time, with the box to write one (visitors are
 * asked to sign in). Whoever wrote a comment, the video's author and staff may delete it.
 */
export function CommentsPanel({
  video,
  onCount,
  onClose,
}: {
  video: ShortVideo;
  onCount: (n: number) => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const { user, requireLogin } = useAuth();
  const [list, setList] = useState<ShortComment[]>([]);
  const [next, setNext] = useState<number | null>(null);
  const [state, setState] = useState<'loading' | 'idle' | 'error'>('loading');
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const gone = useRef(false);

  const fetchPage = (cursor: number | null) => {
    fetchComments(video.id, cursor).then(
      (page) => {
        if (gone.current) return;
        setList((shown) => {
          const seen = new Set(cursor ? shown.map((c) => c.id) : []);
          return [...(cursor ? shown : []), ...page.list.filter((c) => !seen.has(c.id))];
        });
        setNext(page.next);
        setState('idle');
      },
      () => {
        if (!gone.current) setState('error');
      },
    );
  };
  const load = (cursor: number | null) => {
    setState('loading');
    fetchPage(cursor);
  };
  useEffect(() => {
    gone.current = false;
    fetchPage(null);
    return () => {
      gone.current = true;
    };
    // Loaded once, when the panel opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const send = (e: SyntheticEvent) => {
    e.preventDefault();
    if (!text.trim() || sending) return;
    setSending(true);
    setError(null);
    postComment(video.id, text.trim())
      .then((c) => {
        setList((l) => [c, ...l]);
        setText('');
        onCount(video.comments + 1);
      })
      .catch((err: unknown) => setError(videoErrorText(t, err)))
      .finally(() => setSending(false));
  };

  const remove = (c: ShortComment) => {
    deleteComment(video.id, c.id)
      .then(() => {
        setList((l) => l.filter((x) => x.id !== c.id));
        onCount(Math.max(0, video.comments - 1));
      })
      .catch((err: unknown) => setError(videoErrorText(t, err)));
  };

  const mayDelete = (c: ShortComment) =>
    user !== null && (user.uid === c.author.uid || user.uid === video.author.uid || user.staff === true);

  return (
    <Modal label={t('videos.comments')} onClose={onClose} className="sheet shorts-comments">
      <h2 className="sheet__title">{t('videos.commentsCount', { count: video.comments })}</h2>
      <ul className="shorts-comments__list" aria-busy={state === 'loading'}>
        {list.map((c) => (
          <li key={c.id} className="shorts-comments__item">
            <span className="shorts-comments__avatar" aria-hidden="true">
              {c.author.face ? (
                <img src={c.author.face} alt="" width={32} height={32} />
              ) : (
                c.author.nickname.slice(0, 1)
              )}
            </span>
            <div className="shorts-comments__body">
              <p className="shorts-comments__meta muted small">
                <bdi>{c.author.nickname}</bdi> · <TimeAgo iso={c.created_at} />
              </p>
              {/* Escaped by the server as chat text is; React escapes it again when it shows it. */}
              <p className="shorts-comments__text">
                <bdi>{unescapeChat(c.text)}</bdi>
              </p>
            </div>
            {mayDelete(c) && (
              <button type="button" className="btn btn--link btn--sm" onClick={() => remove(c)}>
                {t('videos.deleteComment')}
              </button>
            )}
          </li>
        ))}
      </ul>
      {state === 'idle' && list.length === 0 && <p className="muted">{t('videos.noComments')}</p>}
      {state === 'loading' && <p className="muted">{t('common.loading')}</p>}
      {state === 'error' && (
        <p role="alert">
          {t('videos.loadFailed')}{' '}
          <button
            type="button"
            className="btn btn--link btn--sm"
            onClick={() => load(list.length ? next : null)}
          >
            {t('videos.retry')}
          </button>
        </p>
      )}
      {state === 'idle' && next !== null && (
        <button type="button" className="btn btn--ghost btn--sm" onClick={() => load(next)}>
          {t('videos.moreComments')}
        </button>
      )}
      {user ? (
        <form className="shorts-comments__form" onSubmit={send}>
          <label className="sr-only" htmlFor={`comment-${video.id}`}>
            {t('videos.commentLabel')}
          </label>
          <input
            id={`comment-${video.id}`}
            className="chat__input"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder={t('videos.commentPlaceholder')}
            autoComplete="off"
          />
          <button type="submit" className="btn btn--primary" disabled={!text.trim() || sending}>
            {t('videos.send')}
          </button>
        </form>
      ) : (
        <button
          type="button"
          className="btn btn--primary"
          onClick={() => requireLogin(t('auth.pleaseSignIn'))}
        >
          {t('videos.signInToComment')}
        </button>
      )}
      <FormError message={error} />
    </Modal>
  );
}
