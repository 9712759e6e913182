import type { PageProps } from '../lib/page';
import { useConfig } from '../lib/config';
import { AccountLink } from '../ui/AccountLink';
import { Link } from '../ui/Link';
import { TimeAgo } from '../ui/TimeAgo';
import { useI18n } from '../i18n/i18n';
import { LiveNow } from '../live/LiveNow';
import { LiveCards } from '../explore/ExploreGrid';
import { CountryChips, FeaturedBanners, PersonalRows, Row } from '../home/HomeRows';
import { FestivalBanners } from '../festival/FestivalBanners';
import type { HomeData } from './data';

export default function Home({ data, payload }: PageProps) {
  const { news, live, hot, fresh, featured, countries, programmes } = data as HomeData;
  const { t } = useI18n();
  const { siteName } = useConfig();
  return (
    <>
      <section className="hero" aria-labelledby="hero-title">
        <div className="hero__inner">
          <h1 id="hero-title" className="hero__title">
            {t('home.heroTitle')}
          </h1>
          <p className="hero__text">{t('home.heroText')}</p>
          <div className="hero__actions">
            <a className="btn btn--primary btn--lg" href="#live-now">
              {t('home.watchNow')}
            </a>
            <AccountLink to="/broadcast" className="btn btn--light btn--lg">
              {t('home.goLive')}
            </AccountLink>
          </div>
        </div>
      </section>

      <FestivalBanners initial={programmes} renderedAt={payload.renderedAt} />
      <FeaturedBanners featured={featured} />
      <PersonalRows />
      {hot.length > 0 && (
        <Row id="home-hot" title={t('home.hot')} more="/explore">
          <LiveCards items={hot} rail />
        </Row>
      )}

      <section id="live-now" className="section" aria-labelledby="live-title">
        <div className="section__head">
          <h2 id="live-title" className="section__title">
            <span className="live-dot" aria-hidden="true" /> {t('home.liveNow')}
          </h2>
          <Link to="/explore">{t('home.exploreAll')}</Link>
        </div>
        <LiveNow initial={live} />
      </section>

      {fresh.length > 0 && (
        <Row id="home-new" title={t('home.newHosts')} more="/explore?tab=new">
          <LiveCards items={fresh} rail />
        </Row>
      )}
      <CountryChips countries={countries} />

      {news.length > 0 && (
        <section className="section" aria-labelledby="news-title">
          <div className="section__head">
            <h2 id="news-title" className="section__title">
              {t('home.latestNews')}
            </h2>
            <Link to="/news">{t('home.allNews')}</Link>
          </div>
          <ul className="card-grid">
            {news.map((n) => (
              <li key={n.slug} className="card">
                <TimeAgo className="card__meta" iso={n.publishedAt} />
                <h3 className="card__title">
                  <Link to={`/news/${n.slug}`}>{n.title}</Link>
                </h3>
                <p className="card__text">{n.summary}</p>
              </li>
            ))}
          </ul>
        </section>
      )}

      <section className="section promo-grid" aria-label={siteName}>
        <div className="promo promo--safety">
          <h2 className="promo__title">{t('home.safetyTitle')}</h2>
          <p>{t('home.safetyText')}</p>
          <Link to="/safety" className="btn btn--ghost">
            {t('home.safetyLink')}
          </Link>
        </div>
        <div className="promo promo--learn">
          <h2 className="promo__title">{t('home.learnTitle')}</h2>
          <p>{t('home.learnText')}</p>
          <Link to="/teaching" className="btn btn--ghost">
            {t('home.learnLink')}
          </Link>
        </div>
      </section>
    </>
  );
}
