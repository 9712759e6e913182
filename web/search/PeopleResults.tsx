import { useState } from 'react';
import type { SearchPerson } from '../../common/api/search';
import { formatCount } from '../../common/format';
import { useI18n } from '../i18n/i18n';
import { FollowButton } from '../live/FollowButton';
import { Avatar } from '../live/PersonalCard';
import { Flag } from '../ui/Flag';
import { Link } from '../ui/Link';
import { searchFor } from './search-api';

/**
 * People found: avatar, name, flag, followers, LIVE (to their broadcast) and Follow; with
 * `more`, a Show more button reads the next page of 20 (spec: view more).
 */
export function PeopleResults({
  query,
  first,
  more,
}: {
  query: string;
  first: SearchPerson[];
  more: boolean;
}) {
  const { t } = useI18n();
  const [people, setPeople] = useState(first);
  const [next, setNext] = useState<number | null>(more ? 1 : null);
  const [status, setStatus] = useState<'idle' | 'loading' | 'error'>('idle');
  const load = () => {
    if (next === null) return;
    setStatus('loading');
    searchFor(query, 'people', next).then(
      (a) => {
        // Ranks move a little between pages (new followers): each person once.
        setPeople((shown) => {
          const seen = new Set(shown.map((p) => p.uid));
          return [...shown, ...a.people.list.filter((p) => !seen.has(p.uid))];
        });
        setNext(a.people.more ? next + 1 : null);
        setStatus('idle');
      },
      () => setStatus('error'),
    );
  };
  return (
    <>
      <ul className="search-people">
        {people.map((p) => (
          <Person key={p.uid} p={p} />
        ))}
      </ul>
      {status === 'error' && (
        <p className="form-error" role="alert">
          {t('explore.error')}
        </p>
      )}
      {status === 'loading' && (
        <div className="spinner" role="progressbar" aria-label={t('common.loading')} />
      )}
      {next !== null && status !== 'loading' && (
        <button type="button" className="btn btn--ghost btn--sm" onClick={load}>
          {t('explore.loadMore')}
        </button>
      )}
    </>
  );
}

function Person({ p }: { p: SearchPerson }) {
  const { t, locale } = useI18n();
  return (
    <li className="search-people__person">
      <Link to={`/u/${p.short_id}`} className="search-people__who">
        <Avatar face={p.face} name={p.nickname} size={48} />
        <span className="search-people__name">
          <bdi className="search-people__nickname">{p.nickname}</bdi>
          {/* Lines break between the two parts only, never inside one (a count from its label). */}
          <span className="muted small search-people__meta">
            <span>
              <Flag country={p.country} /> {t('search.idLabel', { id: p.short_id })}
            </span>{' '}
            ·{' '}
            <span>
              {formatCount(p.followers, locale)} {t('profile.followers', { count: p.followers })}
            </span>
          </span>
        </span>
      </Link>
      {p.live && (
        <Link
          to={`/v/${p.live}`}
          className="live-badge search-people__live"
          aria-label={t('search.watchLive', { name: p.nickname })}
        >
          {t('live.badge')}
        </Link>
      )}
      <FollowButton uid={p.uid} />
    </li>
  );
}
