import { useCallback, useEffect, useState } from 'react';
import { formatCount } from '../../common/format';
import type { FollowListKind, FollowPage, FollowPerson } from '../../common/social';
import { api } from '../lib/api';
import { useAuth } from '../lib/session';
import { errorMessage } from '../lib/errors';
import { NoContent } from '../ui/feedback';
import { Link } from '../ui/Link';
import { Modal } from '../ui/Modal';
import { useI18n } from '../i18n/i18n';
import { FollowButton } from './FollowButton';
import { useFollowEntry, useFollowStore, type FollowState } from './follow-store';
import { Avatar } from './PersonalCard';

const PAGE = 20;

/**
 * Who follows someone, or whom they follow, in a dialog: newest first, a page at a time, each
 * person with a follow button (sharing the page's follow state) and a link to their page.
 */
export function FollowList({
  uid,
  name,
  kind,
  onClose,
  onFollowChange,
}: {
  uid: number;
  name: string;
  kind: FollowListKind;
  onClose: () => void;
  /** The reader followed or unfollowed someone in the list. */
  onFollowChange?: (uid: number, s: FollowState) => void;
}) {
  const { t } = useI18n();
  const { user } = useAuth();
  const me = user?.uid ?? 0;
  const store = useFollowStore();
  const [people, setPeople] = useState<FollowPerson[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const fetchPage = useCallback(
    async (cursor: string | null) => {
      const q = new URLSearchParams({ limit: String(PAGE) });
      if (cursor) q.set('cursor', cursor);
      const page = await api<FollowPage>('GET', `/api/v1/follows/${uid}/${kind}?${q.toString()}`);
      // The list knows how the reader relates to each person: their buttons need not ask.
      for (const p of page.list) store.seed(me, p.uid, { relation: p.relation, followers: p.follower_count });
      return page;
    },
    [uid, kind, me, store],
  );

  useEffect(() => {
    let live = true;
    fetchPage(null).then(
      (page) => {
        if (!live) return;
        setPeople(page.list);
        setNext(page.next);
      },
      (err: unknown) => live && setError(errorMessage(t, err)),
    );
    return () => {
      live = false;
    };
  }, [fetchPage, t]);

  const more = async () => {
    if (!next) return;
    setBusy(true);
    try {
      const page = await fetchPage(next);
      setPeople((old) => [...(old ?? []), ...page.list.filter((p) => !old?.some((o) => o.uid === p.uid))]);
      setNext(page.next);
      setError(null);
    } catch (err) {
      setError(errorMessage(t, err));
    } finally {
      setBusy(false);
    }
  };

  const title = t(kind === 'followers' ? 'profile.followersOf' : 'profile.followingOf', { name });
  return (
    <Modal label={title} onClose={onClose} className="follow-list">
      <h2 className="dialog__title follow-list__title">{title}</h2>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {!people && !error && <div className="spinner" role="progressbar" aria-label={t('common.loading')} />}
      {people?.length === 0 && (
        <NoContent>
          <p className="muted small">
            {t(kind === 'followers' ? 'profile.noFollowers' : 'profile.noFollowing', { name })}
          </p>
        </NoContent>
      )}
      {people && people.length > 0 && (
        <ul className="follow-list__people">
          {people.map((p) => (
            <Person key={p.uid} person={p} me={me} onOpen={onClose} onFollowChange={onFollowChange} />
          ))}
        </ul>
      )}
      {next && (
        <button type="button" className="btn btn--ghost btn--sm" disabled={busy} onClick={() => void more()}>
          {t('profile.more')}
        </button>
      )}
    </Modal>
  );
}

/** One person of the list; their follower count follows the page's follow state. */
function Person({
  person: p,
  me,
  onOpen,
  onFollowChange,
}: {
  person: FollowPerson;
  me: number;
  onOpen: () => void;
  onFollowChange: ((uid: number, s: FollowState) => void) | undefined;
}) {
  const { t, locale } = useI18n();
  const followers = useFollowEntry(useFollowStore(), me, p.uid).followers ?? p.follower_count;
  return (
    <li className="follow-list__person">
      <Link to={`/u/${p.short_id}`} className="follow-list__who" onClick={onOpen}>
        <Avatar face={p.face} name={p.nickname} size={40} />
        <span className="follow-list__name">
          {/* A name in its own script: the ellipsis goes at its end, in any page direction. */}
          <span className="follow-list__nickname" dir="auto">
            {p.nickname}
          </span>
          <span className="muted small">
            {t('profile.level', { level: p.level })} · {formatCount(followers, locale)}{' '}
            {t('profile.followers', { count: followers })}
          </span>
        </span>
      </Link>
      <FollowButton uid={p.uid} onChange={(s) => onFollowChange?.(p.uid, s)} />
    </li>
  );
}
