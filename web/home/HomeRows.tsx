import { useEffect, useState, type ReactNode } from 'react';
import type { Answer } from '../../common/api/envelope';
import type { ExploreCard, exploreAnswer, Watched } from '../../common/api/explore';
import { countryName } from '../../common/countries';
import { formatCount } from '../../common/format';
import { api } from '../lib/api';
import { useAuth } from '../lib/session';
import { useI18n } from '../i18n/i18n';
import { LiveCards } from '../explore/ExploreGrid';
import { Avatar } from '../live/PersonalCard';
import { Flag } from '../ui/Flag';
import { Link } from '../ui/Link';

/** A titled row of the home page, with a link to all of it. */
export function Row({
  id,
  title,
  more,
  children,
}: {
  id: string;
  title: string;
  more?: string;
  children: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <section className="section home-row" aria-labelledby={id}>
      <div className="section__head">
        <h2 id={id} className="section__title">
          {title}
        </h2>
        {more && <Link to={more}>{t('home.seeAll')}</Link>}
      </div>
      {children}
    </section>
  );
}

/**
 * Staff's featured broadcasts as large banners that scroll sideways (one screen wide on phones),
 * then the latest news as a banner of its own.
 */
export function FeaturedBanners({ featured }: { featured: ExploreCard[] }) {
  const { t, locale } = useI18n();
  if (featured.length === 0) return null;
  return (
    <section className="banners" aria-label={t('home.featured')}>
      <ul className="banners__list">
        {featured.map((c) => (
          <li key={c.vid} className="banner">
            <Link to={`/v/${c.vid}`} className="banner__link">
              {c.cover ? (
                <img src={c.cover} alt="" className="banner__image" />
              ) : (
                <span className="banner__image banner__image--empty" aria-hidden="true" />
              )}
              <span className="banner__text">
                <span className="live-badge">{t('live.badge')}</span>{' '}
                <span className="mark mark--featured">{t('home.featuredMark')}</span>
                <span className="banner__title" dir="auto">
                  {c.title}
                </span>
                <span className="banner__host">
                  <Flag country={c.host.country} /> <bdi>{c.host.nickname}</bdi> ·{' '}
                  {t('home.viewers', { count: c.viewers, formatted: formatCount(c.viewers, locale) })}
                </span>
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Countries with hosts on air, each a way into explore's list of that country. */
export function CountryChips({ countries }: { countries: { country: string; lives: number }[] }) {
  const { t, locale } = useI18n();
  if (countries.length === 0) return null;
  return (
    <Row id="home-countries" title={t('home.countries')} more="/explore">
      <ul className="home-countries">
        {countries.map((c) => (
          <li key={c.country}>
            <Link to={`/explore?country=${c.country}`} className="chip home-countries__chip">
              <Flag country={c.country} decorative /> {countryName(c.country, locale)}{' '}
              <span className="muted">{formatCount(c.lives, locale)}</span>
            </Link>
          </li>
        ))}
      </ul>
    </Row>
  );
}

/**
 * The signed-in reader's own rows: people they follow who are live now, and hosts they watched
 * lately (live ones link to the broadcast, the others to their page). Nothing for visitors, and
 * a row with nothing in it is left out.
 */
export function PersonalRows() {
  const { t } = useI18n();
  const { user } = useAuth();
  const [following, setFollowing] = useState<{ for: number; list: ExploreCard[] } | null>(null);
  const [recent, setRecent] = useState<{ for: number; list: Watched['list'] } | null>(null);
  useEffect(() => {
    if (!user) return;
    const uid = user.uid;
    api<Answer<typeof exploreAnswer>>('GET', '/api/v1/explore?tab=follow&limit=12').then(
      (p) => setFollowing({ for: uid, list: p.list }),
      () => setFollowing({ for: uid, list: [] }),
    );
    api<Watched>('GET', '/api/v1/watched').then(
      (w) => setRecent({ for: uid, list: w.list }),
      () => setRecent({ for: uid, list: [] }),
    );
  }, [user]);
  if (!user) return null;
  // What was read for someone else (before a sign-out and in) is not shown.
  const follows = following?.for === user.uid ? following.list : [];
  const watched = recent?.for === user.uid ? recent.list : [];
  return (
    <>
      {follows.length > 0 && (
        <Row id="home-following" title={t('home.followingLive')} more="/explore?tab=follow">
          <LiveCards items={follows} rail />
        </Row>
      )}
      {watched.length > 0 && (
        <Row id="home-recent" title={t('home.recentlyWatched')}>
          <ul className="rail rail--people">
            {watched.map((w) => (
              <li key={w.host.uid}>
                <Link
                  to={w.live ? `/v/${w.live.vid}` : `/u/${w.host.short_id}`}
                  className={w.live ? 'recent recent--live' : 'recent'}
                >
                  <Avatar face={w.host.face} name={w.host.nickname} size={64} />
                  {w.live && <span className="live-badge recent__badge">{t('live.badge')}</span>}
                  <bdi className="recent__name">{w.host.nickname}</bdi>
                </Link>
              </li>
            ))}
          </ul>
        </Row>
      )}
    </>
  );
}
